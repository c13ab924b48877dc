"""CLI of the visual reasoning models' jobs: `codeplan train perception`, `codeplan eval vqa`,
`codeplan bench vqa`. Kept out of cli.py so that each job's options sit beside its handler."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from datetime import date
from pathlib import Path

from runtime.cli.args import positive_int
from runtime.eval.vqa_suites import SUITES as SUITE_NAMES


def _paths(value: str) -> list[Path]:
    return [Path(p) for p in value.split(",") if p.strip()]


def add_train_perception_parser(tsub) -> None:
    """`codeplan train perception`: the neuro-symbolic reasoner's object detector."""
    p = tsub.add_parser("perception", help="train the neuro-symbolic reasoner's detector")
    p.add_argument("--data", type=_paths, required=True,
                   help="datagen output dir(s), comma-separated (scenes + images are used)")
    p.add_argument("--val", type=_paths, default=[], help="held-out datagen output dir(s)")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--steps", type=positive_int, default=6000)
    p.add_argument("--batch-size", type=positive_int, default=16)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--warmup", type=positive_int, default=200)
    p.add_argument("--checkpoint-every", type=positive_int, default=500)
    p.add_argument("--eval-every", type=positive_int, default=500)
    p.add_argument("--limit", type=positive_int, default=None, help="images per split")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--resume", action="store_true", help="continue the run in --out")
    p.add_argument("--init", type=Path, default=None,
                   help="start from this detector checkpoint (e.g. checkpoints/detector-tiny)")
    p.add_argument("--levels", type=positive_int, default=None,
                   help="add a support-level head with this many classes (4: table to 3 up)")
    p.add_argument("--level-heat", action="store_true",
                   help="with --levels: one block heatmap per support level instead of level "
                        "logits (stacked blocks no longer share one heatmap's peaks)")
    p.add_argument("--mix", default=None, metavar="SPLIT=W,...",
                   help="draw images by split weight, e.g. block_stack=3,block_bowl=1,... "
                        "(unnamed splits are left out; default: every image alike)")
    p.add_argument("--threads", type=positive_int, default=None,
                   help="torch CPU threads (default: torch's choice)")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(handler=_train_perception)


def _train_perception(args) -> int:
    import torch

    from training.detector.train import TrainDetectorSpec, train_detector

    if args.threads:
        torch.set_num_threads(args.threads)
    spec = TrainDetectorSpec(
        data=args.data, val=args.val, out=args.out, steps=args.steps, batch_size=args.batch_size,
        lr=args.lr, warmup=args.warmup, checkpoint_every=args.checkpoint_every,
        eval_every=args.eval_every, limit=args.limit, seed=args.seed, resume=args.resume,
        init=args.init, levels=args.levels, level_heat=args.level_heat,
        mix=args.mix, progress=not args.no_progress)
    print(json.dumps(train_detector(spec), indent=2))
    return 0


def add_tune_perception_parser(tsub) -> None:
    """`codeplan tune perception`: decoding thresholds of a detector, chosen on a dev set."""
    p = tsub.add_parser("perception", help="choose the ns detector's thresholds on a dev set")
    p.add_argument("--model", type=Path, required=True, help="ns-vqa checkpoint dir")
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
    p.set_defaults(handler=_tune_perception)


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
    return _floats(value, off=True)


def _tune_perception(args) -> int:
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


def add_eval_vqa_parser(esub) -> None:
    """`codeplan eval vqa`: Table 1 (accuracy per split) for one or more reasoners."""
    p = esub.add_parser("vqa", help="VQA accuracy per split and answer type (Table 1)")
    p.add_argument("--suite", default=None, choices=sorted(SUITE_NAMES),
                   help="a named benchmark (its data, made if missing, its models and the "
                        "paper's numbers beside ours); writes results/<suite>/<date>/")
    p.add_argument("--model", default=None,
                   help="checkpoint dir(s) or shipped names (default, ns, ofa), comma-separated "
                        "(default: default, or the suite's)")
    p.add_argument("--data", type=Path, default=None,
                   help="a `codeplan datagen vqa` output (held-out seeds; default data/vqa-val)")
    p.add_argument("--splits", default=None, help="comma-separated (default: all in the data)")
    p.add_argument("--out", type=Path, default=None,
                   help="output dir (default results/vqa, or results/<suite>/<date>)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object ({'accuracy': {split: ...}} for one model)")
    p.set_defaults(handler=_eval_vqa)


def _eval_vqa(args) -> int:
    from runtime.eval.vqa import format_markdown, write_outputs
    from vrs.loading import load_reasoner
    from vrs.scoring import evaluate, load_vqa_data

    suite = _suite_settings(args)
    splits = [s.strip() for s in args.splits.split(",")] if args.splits else None
    data = load_vqa_data(args.data, splits)
    specs = [m.strip() for m in args.model.split(",") if m.strip()]
    checks = [_held_out(spec, args.data) for spec in specs]
    reasoners = [load_reasoner(spec) for spec in specs]
    results = [evaluate(r, data, progress=not args.json) | {"held_out": c}
               for r, c in zip(reasoners, checks, strict=True)]
    command = "codeplan " + shlex.join(sys.argv[1:])
    reference = suite.reference if suite else {}
    write_outputs(results, args.out, command, reference)
    light = [{k: v for k, v in r.items() if k != "records"} | {"data": str(args.data)}
             for r in results]
    if args.json:
        print(json.dumps(light[0] if len(light) == 1 else {"results": light}, indent=2))
    else:
        print(format_markdown(results, reference))
        print(f"written to {args.out}/ (results.json, table.md, table.csv, answers.jsonl)")
    return 0


def _held_out(spec: str, data: Path) -> dict:
    """The held-out check of `data` against the checkpoint's training and tuning dirs; its
    warnings go to stderr so a --json reader still gets one clean object on stdout."""
    from runtime.eval.held_out import describe_overlaps, held_out_report
    from vrs.loading import resolve_checkpoint

    report = held_out_report(resolve_checkpoint(spec), data)
    for line in describe_overlaps(data, spec, report):
        print(line, file=sys.stderr)
    return report


def _suite_settings(args):  # -> VqaSuite | None; fills args' unset options from the suite
    """Resolve --suite: its data (made if missing), models, splits and dated output dir."""
    from runtime.eval.vqa_suites import get_suite, prepare_data

    if args.suite is None:
        args.model = args.model or "default"
        args.data = args.data or Path("data/vqa-val")
        args.out = args.out or Path("results/vqa")
        return None
    suite = get_suite(args.suite)
    args.model = args.model or ",".join(suite.models)
    args.splits = args.splits or ",".join(suite.splits)
    args.out = args.out or Path("results") / suite.name / date.today().isoformat()
    if args.data is None:
        args.data = prepare_data(suite, progress=not args.json)
    return suite


def add_bench_vqa_parser(bsub) -> None:
    """`codeplan bench vqa`: per-question latency at batch 1 and batched throughput."""
    p = bsub.add_parser("vqa", help="reasoner latency (p50/p90 per question) and throughput")
    p.add_argument("--model", default="default", help="checkpoint dir or shipped name")
    p.add_argument("--data", type=Path, default=Path("data/vqa-val"))
    p.add_argument("--questions", type=positive_int, default=200)
    p.add_argument("--batch-images", type=positive_int, default=16)
    p.add_argument("--threads", type=positive_int, default=None, help="torch threads")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_bench_vqa)


def _bench_vqa(args) -> int:
    import torch

    from runtime.eval.bench_vqa import bench_vqa
    from vrs.loading import load_reasoner
    from vrs.scoring import load_vqa_data

    if args.threads:
        torch.set_num_threads(args.threads)
    r = bench_vqa(load_reasoner(args.model), load_vqa_data(args.data), args.questions,
                  args.batch_images)
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    for key, label in (("latency_ms", "new image, 1 question"),
                       ("same_image_latency_ms", "same image, next question")):
        s = r[key]
        print(f"{label:<28} p50 {s['p50']:.2f} ms  p90 {s['p90']:.2f} ms  ({s['n']} calls)")
    print(f"{'batched throughput':<28} {r['throughput_qps']:.0f} questions/s "
          f"({r['images_per_batch']} images per call)")
    return 0
