"""`codeplan tune detector` / `tune unsure`: choose a model's settings on a dev set.

    codeplan tune detector --model runs/detector --data data/vqa-dev --write
    codeplan tune unsure --reasoner default     # the symbolic modes' unsure threshold

Why a verb of its own: settings chosen after training (the detector's decoding thresholds)
must be chosen on data of their own, neither training nor validation; `--write` stores the
choice and its grid in the checkpoint's config.json. The old verb `tune perception` stays as
an argparse alias.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from runtime.cli.args import add_group, non_negative_int, positive_int


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add `tune detector` to the `codeplan` verbs."""
    tsub = add_group(subparsers, "tune", "choose a trained model's settings on a dev set",
                     "tune commands", "MODEL")
    add_detector_parser(tsub)
    add_unsure_parser(tsub)


def add_unsure_parser(tsub: argparse._SubParsersAction) -> None:
    """Add `unsure` to the `tune` group: the score below which a reasoner's answers count as
    unsure in the symbolic modes, chosen on dev scenes."""
    p = tsub.add_parser("unsure", help="the score below which the symbolic modes call a "
                                       "reasoner's answer unsure, chosen on dev scenes")
    p.add_argument("--reasoner", default="default", help="default, detector, ofa or a dir")
    p.add_argument("--task", default="put-block-in-bowl,put-blocks-in-matching-bowls,"
                   "put-blocks-in-mismatched-bowls,stack-blocks", help="comma-separated")
    p.add_argument("--episodes", type=positive_int, default=10, help="per task, on dev seeds")
    p.add_argument("--seed-start", type=non_negative_int, default=0,
                   help="first dev seed (default 0; the tables use 1000.. and 3000..)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_tune_unsure)


def add_detector_parser(tsub: argparse._SubParsersAction) -> None:
    """Add `detector` (old name `perception`) to the `tune` group: a detector's decoding
    thresholds, chosen on a dev set."""
    p = tsub.add_parser("detector", aliases=["perception"],
                        help="choose the detector's thresholds on a dev set")
    p.add_argument("--model", type=Path, required=True, help="detector checkpoint dir")
    p.add_argument("--data", type=Path, required=True,
                   help="a datagen output on seeds of its own (not the validation set)")
    p.add_argument("--threshold", type=_floats, default=[0.2, 0.25, 0.3],
                   help="detection thresholds to try, comma-separated")
    p.add_argument("--hidden", type=_floats_or_off, default=[None, 0.05, 0.1],
                   help="hidden-support thresholds to try, comma-separated; 'off' for none")
    p.add_argument("--stand-z", type=_floats, default=None,
                   help="heights (m) above which a table-level block sits on the stand, "
                        "comma-separated (default: the model's own)")
    p.add_argument("--write", action="store_true",
                   help="store the best setting in the model's config.json")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_tune_detector)


def _floats(value: str, off: bool = False) -> list[float | None]:
    """Comma-separated numbers (and, with `off`, the word off for None)."""
    out = []
    for v in (v.strip() for v in value.split(",")):
        if off and v == "off":
            out.append(None)
        elif v:
            try:
                out.append(float(v))
            except ValueError:
                raise argparse.ArgumentTypeError(
                    f"expected comma-separated numbers{' or off' if off else ''}, got {v!r}"
                ) from None
    return out


def _floats_or_off(value: str) -> list[float | None]:
    """argparse type: comma-separated numbers, or off (no hidden-support threshold)."""
    return _floats(value, off=True)


def _tune_unsure(args: argparse.Namespace) -> int:
    """Ask the reasoner and the oracle the symbolic modes' questions on dev scenes; print the
    threshold that best separates right from wrong answers."""
    from ravens_env.tasks import make_task
    from runtime.monitors.calibration import choose, collect

    tasks = [t.strip() for t in args.task.split(",") if t.strip()]
    for t in tasks:
        make_task(t)
    result = choose(collect(args.reasoner, tasks, args.episodes, args.seed_start))
    result |= {"reasoner": args.reasoner, "tasks": tasks, "episodes": args.episodes,
               "seed_start": args.seed_start}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print("| threshold | unsure answers | their accuracy | separated |\n|---|---|---|---|")
    for r in result["table"]:
        acc = "-" if r["accuracy_of_unsure"] is None else f"{r['accuracy_of_unsure']:.2f}"
        print(f"| {r['threshold']:.2f} | {r['unsure']} | {acc} | {r['separated']} |")
    print(f"\nchosen: {result['threshold']} ({result['answers']} answers, accuracy "
          f"{result['accuracy']:.3f}) for {args.reasoner}")
    return 0


def _tune_detector(args: argparse.Namespace) -> int:
    """Sweep the grid, print it, and name (or --write) the best setting."""
    from training.detector.tune import best, markdown, sweep, write_choice

    rows = sweep(args.model, args.data, args.threshold, args.hidden, args.stand_z)
    chosen = write_choice(args.model, rows, args.data) if args.write else best(rows)
    if args.json:
        print(json.dumps({"rows": rows, "best": chosen, "written": args.write}, indent=2))
        return 0
    print(markdown(rows))
    verb = "written to" if args.write else "best for"
    print(f"\n{verb} {args.model}: threshold {chosen['threshold']}, "
          f"hidden_threshold {chosen['hidden_threshold']}, stand_z {chosen['stand_z']}")
    return 0
