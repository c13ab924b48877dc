"""`codeplan eval parser`: the offline planner on an instruction corpus (solved / refused /
misread per line), the figure behind "the offline parser never misreads"."""

from __future__ import annotations

import argparse
import json
from datetime import date
from pathlib import Path

from runtime.cli.args import CliError, non_negative_int


def add_parser(esub: argparse._SubParsersAction) -> None:
    p = esub.add_parser("parser", help="the offline planner on an instruction corpus: every "
                        "line solved or refused, never misread (oracle actor and reasoner)")
    p.add_argument("--corpus", default="reasoning-corpus",
                   help="reasoning-corpus (dev), reasoning-heldout (held out), or a .jsonl")
    p.add_argument("--task", default=None, help="only the lines of these tasks (comma-separated)")
    p.add_argument("--seed-start", type=non_negative_int, default=None,
                   help="first seed tried for line 0 (default 5000, dev seeds)")
    p.add_argument("--out", type=Path, default=None,
                   help="results directory (default results/parser-<corpus>/<date>)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_eval_parser)


def _eval_parser(args: argparse.Namespace) -> int:
    from common.provenance import provenance
    from runtime.eval.instruction_corpus import DEV_SEED_START, evaluate, load_corpus

    try:
        lines = load_corpus(args.corpus)
    except ValueError as e:
        raise CliError(str(e)) from None
    if args.task:
        wanted = {t.strip() for t in args.task.split(",")}
        lines = [line for line in lines if line.task in wanted]
        if not lines:
            raise CliError(f"--task {args.task}: no corpus line is about these tasks")
    out = args.out or Path("results") / f"parser-{Path(args.corpus).stem}" / \
        date.today().isoformat()
    out.mkdir(parents=True, exist_ok=True)
    seed = DEV_SEED_START if args.seed_start is None else args.seed_start

    def progress(row: dict) -> None:
        if not args.json:
            print(f"{row['outcome']:8} {row['id']:10} {row['instruction']}", flush=True)

    result = evaluate(lines, out / "runs", seed, progress)
    summary = {"corpus": args.corpus, "seed_start": seed, **result, **provenance()}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    if args.json:
        print(json.dumps({k: v for k, v in summary.items() if k != "rows"}))
        return 0
    o = result["overall"]
    print(f"\n{result['lines']} lines: {o['solved']}/{o['solve_lines']} solve lines solved "
          f"({100 * (o['solve_rate'] or 0):.1f}% [{100 * o['solve_ci95'][0]:.1f}-"
          f"{100 * o['solve_ci95'][1]:.1f}]), {o['refused']} refused, {o['misread']} misread")
    for row in result["misreads"]:
        print(f"  MISREAD {row['id']} (seed {row['seed']}): {row['instruction']} -- "
              f"{row['detail']}")
    print(f"written to {out}/summary.json")
    return 0
