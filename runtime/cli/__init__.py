"""`codeplan` console script: one subcommand per job.

Exit codes: 0 the job ran (whatever the task outcome), 2 bad input (unknown task, bad option),
3 the sandbox stopped a codeplan. Errors are one line on stderr that names the problem.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from runtime.cli.actor import add_eval_actor_parser, add_train_actor_parser
from runtime.cli.args import CliError
from runtime.cli.args import non_negative_int as _non_negative
from runtime.cli.args import positive_int as _positive
from runtime.cli.datagen import add_datagen_parser
from runtime.cli.eval_closed_loop import add_closed_loop_parser
from runtime.cli.results import add_results_parser
from runtime.cli.run import add_run_parser
from runtime.cli.sandbox import add_parser as add_sandbox_parser
from runtime.cli.train_ofa import add_train_vqa_parser
from runtime.cli.vqa import (
    add_bench_vqa_parser,
    add_eval_vqa_parser,
    add_train_perception_parser,
    add_tune_perception_parser,
)
from runtime.cli.vrs import add_ask_parser, add_serve_parser
from runtime.planners.base import PlannerError
from runtime.run_config import RunError
from runtime.trace import TraceFormatError


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None) or getattr(args, "func", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except (CliError, RunError, TraceFormatError, PlannerError) as e:
        print(f"codeplan: error: {e}", file=sys.stderr)
        return 2
    except (KeyError, ValueError) as e:
        print(f"codeplan: error: {e.args[0] if e.args else e}", file=sys.stderr)
        return 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="codeplan", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    for add in _COMMANDS:
        add(sub)
    return parser


# -- codeplan tasks ... --------------------------------------------------------------------
def _add_tasks(sub) -> None:
    tasks = sub.add_parser("tasks", help="list the registered tasks or show one episode's scene")
    tsub = tasks.add_subparsers(title="tasks commands", metavar="ACTION")
    ls = tsub.add_parser("list", help="every task id with a one-line summary")
    ls.add_argument("--json", action="store_true", help="print a JSON list")
    ls.set_defaults(handler=_tasks_list)
    show = tsub.add_parser("show", help="instruction, objects and relations of one episode")
    show.add_argument("task", help="task id (see `codeplan tasks list`)")
    show.add_argument("--seed", type=_non_negative, default=0)
    show.add_argument("--json", action="store_true", help="print one JSON object")
    show.add_argument("--image", metavar="PNG", help="also save the front camera image here")
    show.set_defaults(handler=_tasks_show)
    tasks.set_defaults(handler=lambda a: tasks.print_help() or 2)


def _tasks_list(args) -> int:
    from ravens_env.tasks import task_ids, task_summary

    rows = [{"id": t, "summary": task_summary(t)} for t in task_ids()]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        width = max(len(r["id"]) for r in rows)
        print("\n".join(f"{r['id']:<{width}}  {r['summary']}" for r in rows))
    return 0


def _tasks_show(args) -> int:
    from ravens_env.env import TabletopEnv

    with TabletopEnv() as env:
        obs = env.reset(args.task, args.seed)
        scene = env.scene()
        if args.image:
            from PIL import Image

            Image.fromarray(obs.front_rgb).save(args.image)
    data = {"task": args.task, "seed": args.seed, "instruction": obs.instruction,
            **scene.to_json()}
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print(f"{args.task} (seed {args.seed}): {obs.instruction}")
    for o in scene.objects:
        x, y, z = o.position
        print(f"  {o.name:<16} at ({x:.3f}, {y:.3f}, {z:.3f}) m  yaw {o.yaw:+.2f}  "
              f"box {o.pixel_box}  visible {o.visible}")
    for r in scene.relations:
        if r.relation in ("in", "on"):
            print(f"  {r.subject} {r.relation} {r.object}")
    return 0


# -- codeplan bench ... --------------------------------------------------------------------
def _add_bench(sub) -> None:
    bench = sub.add_parser("bench", help="benchmarks that print figures")
    bsub = bench.add_subparsers(title="bench commands", metavar="TARGET")
    env = bsub.add_parser("env", help="simulator speed (reset, pick-place, render), oracle success")
    env.add_argument("--task", default="put-blocks-in-matching-bowls",
                     help="task id, or 'all' for every registered task")
    env.add_argument("--episodes", type=_positive, default=20)
    env.add_argument("--seed-start", type=_non_negative, default=0)
    env.add_argument("--situations", default="none",
                     help="preset (none, dkprompt, hard) or 'drop=0.2,knock=0.1'")
    env.add_argument("--json", action="store_true", help="print one JSON object")
    env.set_defaults(handler=_bench_env)
    sb = bsub.add_parser("sandbox", help="cost of a codeplan run and of one proxied call")
    sb.add_argument("--runs", type=_positive, default=200)
    sb.add_argument("--calls", type=_positive, default=2000)
    sb.add_argument("--json", action="store_true", help="print one JSON object")
    sb.set_defaults(handler=_bench_sandbox)
    add_bench_vqa_parser(bsub)
    bench.set_defaults(handler=lambda a: bench.print_help() or 2)


def _bench_env(args) -> int:
    from ravens_env.situations import parse_situations
    from ravens_env.tasks import make_task, task_ids
    from runtime.eval.bench_env import bench_env, format_report

    parse_situations(args.situations)  # fail fast on a bad preset
    tasks = task_ids() if args.task == "all" else [args.task]
    for t in tasks:
        make_task(t)  # fail fast on an unknown id
    results = [bench_env(t, args.episodes, args.seed_start, args.situations,
                         progress=not args.json) for t in tasks]
    if args.json:
        print(json.dumps(results[0] if len(results) == 1 else {"tasks": results}, indent=2))
    else:
        print("\n\n".join(format_report(r) for r in results))
    return 0


def _bench_sandbox(args) -> int:
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


def _add_eval(sub) -> None:
    ev = sub.add_parser("eval", help="evaluations that print rates with 95%% intervals")
    esub = ev.add_subparsers(title="eval commands", metavar="TARGET")
    add_closed_loop_parser(esub)
    add_eval_actor_parser(esub)
    add_eval_vqa_parser(esub)
    ev.set_defaults(handler=lambda a: ev.print_help() or 2)


def _add_train(sub) -> None:
    train = sub.add_parser("train", help="train models (the CLIPort actor, the VQA models)")
    tsub = train.add_subparsers(title="train commands", metavar="MODEL")
    add_train_actor_parser(tsub)
    add_train_perception_parser(tsub)
    add_train_vqa_parser(tsub)
    train.set_defaults(handler=lambda a: train.print_help() or 2)


def _add_tune(sub) -> None:
    tune = sub.add_parser("tune", help="choose a trained model's settings on a dev set")
    tsub = tune.add_subparsers(title="tune commands", metavar="MODEL")
    add_tune_perception_parser(tsub)
    tune.set_defaults(handler=lambda a: tune.print_help() or 2)


_COMMANDS: list[Callable] = [add_run_parser, _add_tasks, _add_bench, _add_eval,
                             _add_train, _add_tune, add_datagen_parser, add_sandbox_parser,
                             add_serve_parser, add_ask_parser, add_results_parser]

if __name__ == "__main__":
    sys.exit(main())
