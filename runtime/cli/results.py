"""`codeplan results`: regenerate docs/RESULTS.md's benchmark tables from results/.

Why a command: the tables in the document are copied from the newest
results/<suite>/<date>/table.md, never typed, so a number there always has its run beside it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add `results` to the `codeplan` verbs."""
    p = subparsers.add_parser("results", help="splice the newest results/<suite>/<date>/table.md "
                                       "into docs/RESULTS.md")
    p.add_argument("--doc", type=Path, default=Path("docs/RESULTS.md"))
    p.add_argument("--results", type=Path, default=Path("results"))
    p.add_argument("--json", action="store_true", help="print what was updated as JSON")
    p.set_defaults(handler=_results)


def _results(args: argparse.Namespace) -> int:
    """Splice each suite's newest table in; suites without results keep their block."""
    from runtime.eval.results_doc import update_results_doc

    if not args.doc.is_file():
        raise ValueError(f"no document at {args.doc}")
    summary = update_results_doc(args.doc, args.results)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        for suite, source in summary["updated"].items():
            print(f"{suite}: from {source}/")
        for suite in summary["missing"]:
            print(f"{suite}: no results under {args.results}/{suite}/ (block left as it was)")
    return 0
