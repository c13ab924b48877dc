"""`codeplan eval closed-loop`: the seed paper's Table 2 (and ad-hoc task × mode grids).

    codeplan eval closed-loop --suite paper-table2 --episodes 50 --workers 2
    codeplan eval closed-loop --task put-blocks-in-mismatched-bowls --modes success,progress

A suite fixes tasks, modes and seeds and writes results/<suite>/<date>/ (episodes.jsonl,
runs/, summary.json, table.md, table.csv, success.png, command.txt); `--task` runs an ad-hoc
grid into results/closed-loop/ (or `--out`). `codeplan results` copies the newest suite table
into docs/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from runtime.cli.args import CliError, non_negative_int, positive_int
from runtime.eval.closed_loop_suites import SUITES

if TYPE_CHECKING:
    from runtime.eval.closed_loop import EvalSpec


def add_closed_loop_parser(esub: argparse._SubParsersAction) -> None:
    """Add `closed-loop` to the `eval` group."""
    cl = esub.add_parser("closed-loop", help="success rate by task and validation mode")
    cl.add_argument("--suite", choices=sorted(SUITES), default=None,
                    help="a named benchmark: its tasks, modes, seeds and reference numbers")
    cl.add_argument("--task", default=None, help="task id(s), comma-separated (instead of "
                                                 "--suite; default put-blocks-in-mismatched-bowls)")
    cl.add_argument("--modes", default=None,
                    help="comma-separated (default open-loop,success,progress)")
    cl.add_argument("--episodes", type=positive_int, default=50)
    cl.add_argument("--seed-start", type=non_negative_int, default=None,
                    help="first test seed (default 1000, or the suite's)")
    cl.add_argument("--situations", default="dkprompt", help="none, dkprompt, hard or drop=0.2,...")
    cl.add_argument("--actor", default="cliport", help="cliport (shipped), oracle or a dir")
    cl.add_argument("--reasoner", default="default",
                    help="default/learned, ns, ofa, oracle, a checkpoint dir or http://...")
    cl.add_argument("--planner", choices=("offline", "openai"), default="offline",
                    help="offline (rule-based, no LLM) or openai (any OpenAI-compatible server)")
    cl.add_argument("--model", default=None, help="model for --planner openai "
                                                  "(default $CODEPLAN_MODEL or gpt-4o-mini)")
    cl.add_argument("--base-url", default=None, help="OpenAI-compatible server for --planner "
                                                     "openai, e.g. http://localhost:8000/v1")
    cl.add_argument("--workers", type=positive_int, default=1)
    cl.add_argument("--out", type=Path, default=None,
                    help="results dir (default results/<suite>/<date>, or results/closed-loop)")
    cl.add_argument("--json", action="store_true", help="print one JSON object")
    cl.set_defaults(handler=_eval_closed_loop)


def build_spec(args: argparse.Namespace) -> EvalSpec:
    """Resolve --suite / --task into an EvalSpec, naming any bad task, mode or situation."""
    from ravens_env.situations import parse_situations
    from ravens_env.tasks import make_task
    from runtime.controller import MODES
    from runtime.eval.closed_loop import EvalSpec
    from runtime.eval.closed_loop_suites import get_suite

    if args.suite and args.task:
        raise CliError("--suite and --task are exclusive: a suite fixes its tasks")
    suite = get_suite(args.suite) if args.suite else None
    tasks = list(suite.tasks) if suite else _split(args.task or "put-blocks-in-mismatched-bowls")
    modes = [MODE_ALIASES.get(m.lower(), m) for m in _split(args.modes)] if args.modes else list(
        suite.modes if suite else MODES)
    for t in tasks:
        make_task(t)
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        raise CliError(f"unknown mode(s) {bad}; modes: {', '.join(MODES)}")
    parse_situations(args.situations)
    out = args.out or (Path("results") / results_name(suite.name, args) / date.today().isoformat()
                       if suite else Path("results/closed-loop"))
    seed_start = args.seed_start if args.seed_start is not None else (
        suite.seed_start if suite else 1000)
    reference = {"reference": suite.reference, "reference_label": suite.reference_label,
                 "reference_episodes": suite.reference_episodes} if suite else {}
    return EvalSpec(tasks, modes, args.episodes, seed_start, args.situations, args.actor,
                    args.reasoner, planner=args.planner, planner_options=planner_options(args),
                    workers=args.workers, out_dir=out, suite=suite.name if suite else None,
                    **reference)


# The seed paper's column names ("Codeplan", "+Success", "+Progress") for our mode names.
MODE_ALIASES = {"codeplan": "open-loop", "open_loop": "open-loop", "openloop": "open-loop",
                "+success": "success", "+progress": "progress"}
DEFAULT_STACK = {"actor": "cliport", "reasoner": "default", "situations": "dkprompt",
                 "planner": "offline"}


def planner_options(args: argparse.Namespace) -> dict:
    """The planner's constructor options, as `codeplan run` builds them."""
    if getattr(args, "planner", "offline") != "openai":
        return {}
    return {"model": args.model or os.environ.get("CODEPLAN_MODEL", "gpt-4o-mini"),
            "base_url": args.base_url}


def results_name(suite: str, args: argparse.Namespace) -> str:
    """`paper-table2` for the default stack, else e.g. `paper-table2+actor-oracle`: runs of
    one suite with other components never overwrite (or pose as) the default stack's table."""
    parts = {k: getattr(args, k, v) for k, v in DEFAULT_STACK.items()}
    if parts["planner"] == "openai":
        parts["planner"] = planner_options(args)["model"]
    tags = [f"{key}-{re.sub(r'[^A-Za-z0-9.=_-]+', '_', Path(str(value)).name)}"
            for key, value in parts.items()
            if value != DEFAULT_STACK[key] and not (key == "reasoner" and value == "learned")]
    return "+".join([suite, *tags])


def _split(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _eval_closed_loop(args: argparse.Namespace) -> int:
    from runtime.eval.closed_loop import format_table, run_eval
    from runtime.eval.closed_loop_report import write_report

    spec = build_spec(args)
    result = run_eval(spec, progress=not args.json)
    summary = write_report(result, spec.out_dir, "codeplan " + shlex.join(sys.argv[1:]))
    if args.json:
        print(json.dumps(summary))
    else:
        print(format_table(result))
        print(f"written to {spec.out_dir}/ (table.md, table.csv, success.png, summary.json, "
              "episodes.jsonl, runs/)")
    return 0
