"""`codeplan tasks list|show`: what the simulator can set up, without running anything.

Why: a person choosing a task id for `run`, `bench` or `eval` needs the list and a look at one
episode's scene (instruction, objects, relations, optionally the front camera image) first.
"""

from __future__ import annotations

import argparse
import json

from runtime.cli.args import add_group, non_negative_int


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add `tasks list` and `tasks show` to the `codeplan` verbs."""
    tsub = add_group(subparsers, "tasks", "list the registered tasks or show one episode's scene",
                     "tasks commands", "ACTION")
    ls = tsub.add_parser("list", help="every task id with a one-line summary")
    ls.add_argument("--json", action="store_true", help="print a JSON list")
    ls.set_defaults(handler=_tasks_list)
    show = tsub.add_parser("show", help="instruction, objects and relations of one episode")
    show.add_argument("task", help="task id (see `codeplan tasks list`)")
    show.add_argument("--seed", type=non_negative_int, default=0)
    show.add_argument("--json", action="store_true", help="print one JSON object")
    show.add_argument("--image", metavar="PNG", help="also save the front camera image here")
    show.set_defaults(handler=_tasks_show)


def _tasks_list(args: argparse.Namespace) -> int:
    from ravens_env.tasks import task_category, task_ids, task_summary

    rows = [{"id": t, "summary": task_summary(t), "category": task_category(t)}
            for t in task_ids()]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        width = max(len(r["id"]) for r in rows)
        cat = max(len(r["category"]) for r in rows)
        print("\n".join(f"{r['id']:<{width}}  {r['category'] or '-':<{cat}}  {r['summary']}"
                        for r in rows))
    return 0


def _tasks_show(args: argparse.Namespace) -> int:
    from ravens_env.env import TabletopEnv

    with TabletopEnv() as env:
        obs = env.reset(args.task, args.seed)
        scene = env.scene()
        if args.image:
            from PIL import Image

            Image.fromarray(obs.front_rgb).save(args.image)
        params, category = env.task.params, env.task.category
    data = {"task": args.task, "seed": args.seed, "instruction": obs.instruction,
            "category": category, "params": params, **scene.to_json()}
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print(f"{args.task} (seed {args.seed}): {obs.instruction}")
    print(f"  category {category or '-'}  params {json.dumps(params)}")
    for o in scene.objects:
        x, y, z = o.position
        print(f"  {o.name:<16} at ({x:.3f}, {y:.3f}, {z:.3f}) m  yaw {o.yaw:+.2f}  "
              f"box {o.pixel_box}  visible {o.visible}")
    for r in scene.relations:
        if r.relation in ("in", "on"):
            print(f"  {r.subject} {r.relation} {r.object}")
    return 0
