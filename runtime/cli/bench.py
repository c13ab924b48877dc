"""`codeplan bench env|sandbox|vqa|service`: how fast the simulator, the sandbox, a reasoner
and the reasoning service (with more worker processes) are.

Why one verb: each prints figures (medians with intervals, p90, throughput) rather than rates,
so a change that slows a part down shows side by side with the figures from before.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from runtime.cli.args import add_group, non_negative_int, positive_int


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add `bench env`, `bench sandbox` and `bench vqa` to the `codeplan` verbs."""
    bsub = add_group(subparsers, "bench", "benchmarks that print figures", "bench commands",
                     "TARGET")
    add_env_parser(bsub)
    add_sandbox_parser(bsub)
    add_vqa_parser(bsub)
    add_service_parser(bsub)


def add_env_parser(bsub: argparse._SubParsersAction) -> None:
    """Add `env` to the `bench` group: simulator speed and the oracle's success."""
    env = bsub.add_parser("env", help="simulator speed (reset, pick-place, render), oracle success")
    env.add_argument("--task", default="put-blocks-in-matching-bowls",
                     help="task id, or 'all' for every registered task")
    env.add_argument("--episodes", type=positive_int, default=20)
    env.add_argument("--seed-start", type=non_negative_int, default=0)
    env.add_argument("--situations", default="none",
                     help="preset (none, dkprompt, hard) or 'drop=0.2,knock=0.1'")
    env.add_argument("--stepwise", action="store_true",
                     help="run each pick-place as watchable motion segments (env.start)")
    env.add_argument("--json", action="store_true", help="print one JSON object")
    env.set_defaults(handler=_bench_env)


def add_sandbox_parser(bsub: argparse._SubParsersAction) -> None:
    """Add `sandbox` to the `bench` group: the cost of a codeplan run and of one call."""
    sb = bsub.add_parser("sandbox", help="cost of a codeplan run and of one proxied call")
    sb.add_argument("--runs", type=positive_int, default=200)
    sb.add_argument("--calls", type=positive_int, default=2000)
    sb.add_argument("--json", action="store_true", help="print one JSON object")
    sb.set_defaults(handler=_bench_sandbox)


def add_vqa_parser(bsub: argparse._SubParsersAction) -> None:
    """Add `vqa` to the `bench` group: per-question latency at batch 1, batched throughput."""
    p = bsub.add_parser("vqa", help="reasoner latency (p50/p90 per question) and throughput")
    p.add_argument("--model", default="default", help="checkpoint dir or shipped name")
    p.add_argument("--data", type=Path, default=Path("data/vqa-val"))
    p.add_argument("--questions", type=positive_int, default=200)
    p.add_argument("--batch-images", type=positive_int, default=16)
    p.add_argument("--threads", type=positive_int, default=None, help="torch threads")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_bench_vqa)


def add_service_parser(bsub: argparse._SubParsersAction) -> None:
    """Add `service` to the `bench` group: `serve vrs` throughput by worker processes."""
    p = bsub.add_parser("service", help="`serve vrs` throughput and latency with 1, 2, ... "
                                        "worker processes under concurrent clients")
    p.add_argument("--model", default="default", help="checkpoint dir or shipped name")
    p.add_argument("--workers", default="1,2", help="worker counts to compare (default 1,2)")
    p.add_argument("--clients", type=positive_int, default=8, help="concurrent clients")
    p.add_argument("--requests", type=positive_int, default=200,
                   help="requests per worker count, the first --warmup untimed (default 200)")
    p.add_argument("--warmup", type=non_negative_int, default=16)
    p.add_argument("--questions", type=positive_int, default=4, help="questions per request")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_bench_service)


def _bench_service(args: argparse.Namespace) -> int:
    """Start the service with each worker count in turn and load it; print the table."""
    from runtime.cli.args import CliError
    from runtime.eval.bench_service import bench_service, format_service

    try:
        workers = tuple(int(w) for w in args.workers.split(",") if w.strip())
    except ValueError:
        raise CliError(f"--workers must be comma-separated integers, got {args.workers!r}") \
            from None
    if not workers or min(workers) < 1:
        raise CliError(f"--workers must name counts >= 1, got {args.workers!r}")
    result = bench_service(args.model, workers, args.clients, args.requests, args.warmup,
                           questions=args.questions)
    print(json.dumps(result, indent=2) if args.json else format_service(result))
    return 0


def _bench_env(args: argparse.Namespace) -> int:
    """Time reset, pick-place and render per task; the oracle's success says the scenes work."""
    from ravens_env.situations import parse_situations
    from ravens_env.tasks import make_task, task_ids
    from runtime.eval.bench_env import bench_env, format_report

    parse_situations(args.situations)  # fail fast on a bad preset
    tasks = task_ids() if args.task == "all" else [args.task]
    for t in tasks:
        make_task(t)  # fail fast on an unknown id
    results = [bench_env(t, args.episodes, args.seed_start, args.situations,
                         progress=not args.json, stepwise=args.stepwise) for t in tasks]
    if args.json:
        print(json.dumps(results[0] if len(results) == 1 else {"tasks": results}, indent=2))
    else:
        print("\n\n".join(format_report(r) for r in results))
    return 0


def _bench_sandbox(args: argparse.Namespace) -> int:
    """Time a trivial and a typical codeplan run, and one proxied primitive call."""
    from runtime.eval.bench_sandbox import bench_sandbox

    r = bench_sandbox(args.runs, args.calls)
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    for key, label in (("trivial_run_ms", "trivial codeplan"),
                       ("typical_run_ms", "typical codeplan (5 calls)")):
        s = r[key]
        print(f"{label:<28} median {s['median']:.3f} ms  95% CI {s['median_ci95'][0]:.3f}-"
              f"{s['median_ci95'][1]:.3f}  p90 {s['p90']:.3f}  ({s['n']} runs)")
    print(f"{'one proxied call':<28} {r['per_call_us']:.1f} us  (loops of {r['calls']} calls)")
    return 0


def _bench_vqa(args: argparse.Namespace) -> int:
    """Time a reasoner on held-out questions: a new image, the same image, a batch."""
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
