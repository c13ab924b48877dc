"""`codeplan run` and `codeplan replay`: the closed-loop job and its replay.

`codeplan run` with no arguments runs the embedded defaults: the canonical instruction of
put-blocks-in-matching-bowls, seed 0, progress mode, offline planner, the shipped learned
reasoner (it answers from the front camera image) and the shipped CLIPort-style actor.
(`RunConfig`'s own default actor stays the scripted oracle, for library use and fast tests.)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from runtime.controller import MODES
from runtime.run_config import RunConfig, RunError, RunResult


def add_run_parser(sub: argparse._SubParsersAction) -> None:
    run = sub.add_parser("run", help="plan and run an instruction in the closed loop")
    run.add_argument("instruction", nargs="?", help="what to do (default: the task's own)")
    run.add_argument("--task", default=RunConfig.task, help="task id (scene and scoring)")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--mode", choices=MODES, default=RunConfig.mode)
    run.add_argument("--planner", choices=("offline", "openai", "file"), default="offline")
    run.add_argument("--plan-file", help="codeplan file for --planner file")
    run.add_argument("--model", default=os.environ.get("CODEPLAN_MODEL", "gpt-4o-mini"),
                     help="model for --planner openai")
    run.add_argument("--base-url", help="OpenAI-compatible server, e.g. http://localhost:8000/v1")
    run.add_argument("--reasoner", default=RunConfig.reasoner,
                     help="default (the shipped learned reasoner), ns, ofa, oracle, a "
                          "checkpoint dir, or http://HOST:PORT of `codeplan serve vrs`")
    run.add_argument("--actor", default="cliport",
                     help="cliport (the shipped learned actor, default), oracle (scripted "
                          "ground truth: an upper bound), or a CLIPort checkpoint dir")
    run.add_argument("--situations", default="none", help="none, dkprompt, hard or drop=0.2,...")
    run.add_argument("--runs-dir", type=Path, default=Path("runs"))
    run.add_argument("--max-plans", type=int, default=RunConfig.max_plans)
    run.add_argument("--json", action="store_true", help="print one JSON object")
    run.set_defaults(handler=_run)

    replay = sub.add_parser("replay", help="re-run a recorded episode from its trace")
    replay.add_argument("trace", type=Path, help="run directory or trace.jsonl")
    replay.add_argument("--resimulate", action="store_true",
                        help="run the recorded codeplans in a fresh simulator and compare")
    replay.add_argument("--runs-dir", type=Path, default=Path("runs"))
    replay.add_argument("--json", action="store_true")
    replay.set_defaults(handler=_replay)


def _planner_options(args: argparse.Namespace) -> dict:
    if args.planner == "file":
        if not args.plan_file:
            raise RunError("--planner file needs --plan-file PATH")
        return {"path": args.plan_file}
    if args.planner == "openai":
        return {"model": args.model, "base_url": args.base_url}
    return {}


def _run(args: argparse.Namespace) -> int:
    from runtime.runner import run_episode

    if args.seed < 0:
        raise RunError(f"--seed must be >= 0, got {args.seed}")
    config = RunConfig(
        instruction=args.instruction, task=args.task, seed=args.seed, mode=args.mode,
        planner=args.planner, planner_options=_planner_options(args), reasoner=args.reasoner,
        actor=args.actor, situations=args.situations, runs_dir=args.runs_dir,
        max_plans=args.max_plans,
    )
    result = run_episode(config)
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(format_summary(result))
    return 0


def format_summary(r: RunResult) -> str:
    """A readable account of a run: plan, actions, checks, result."""
    c = r.counts
    lines = [
        f"instruction: {r.instruction}",
        f"task {r.task}  seed {r.seed}  mode {r.mode}  planner {r.planner}  "
        f"reasoner {r.reasoner}  actor {r.actor}  situations {r.situations}",
        "",
        "codeplan:" if len(r.plans) == 1 else f"codeplans ({len(r.plans)}):",
    ]
    for i, source in enumerate(r.plans):
        if len(r.plans) > 1:
            lines.append(f"--- attempt {i}")
        lines += ["  " + line for line in source.rstrip().splitlines()]
    lines += ["", "actions and checks:", *_timeline(Path(r.run_dir))]
    lines += [
        "",
        f"actions {c['actions']} (failed {c['failed_actions']})  retries {c['retries']}  "
        f"replans {c['replans']}  questions {c['questions']} in {c['reasoner_calls']} "
        f"reasoner calls  wall {r.wall_s:.2f} s",
        "result: " + ("SUCCESS" if r.success else f"FAILURE ({r.failure_reason})")
        + "  [ground truth]",
        f"run directory: {r.run_dir}  (report.html, trace.jsonl, frames/)",
    ]
    return "\n".join(lines)


def _timeline(run_dir: Path) -> list[str]:
    """One line per action, failed check, redo and replan, read back from the trace."""
    from runtime.trace import read_trace

    out = []
    for e in read_trace(run_dir)[1]:
        if e["type"] == "action":
            res = e.get("result") or {}
            note = e.get("error") or ("" if res.get("ok") else res.get("reason", ""))
            out.append(f"  {e['instruction']}" + (f"  [failed: {note}]" if note else ""))
        elif e["type"] == "questions":
            out += [f"    check: {q} -> {a}" for q, a, _ in e["qa"]
                    if q.startswith("is the ") and a != "yes"]
        elif e["type"] == "retry":
            out.append(f"    redo: {e['claim']} (retry {e['retries']})")
        elif e["type"] == "replan":
            out.append(f"  new codeplan: {e['feedback']}")
    return out or ["  (none)"]


def _replay(args: argparse.Namespace) -> int:
    from runtime.replay import ReplayDivergence, replay_trace, resimulate

    if args.resimulate:
        result, recorded = resimulate(args.trace, args.runs_dir)
        keys = ("success", "failure_reason", "counts")
        diffs = {k: (recorded[k], getattr(result, k)) for k in keys
                 if recorded[k] != getattr(result, k)}
        out = {"same": not diffs, "differences": diffs, "run_dir": result.run_dir}
        print(json.dumps(out) if args.json else
              ("resimulated: same outcome" if not diffs else f"resimulated: DIFFERENT {diffs}")
              + f" ({result.run_dir})")
        return 0 if not diffs else 1
    try:
        report = replay_trace(args.trace)
    except ReplayDivergence as e:
        print(f"codeplan: replay diverged: {e}", file=sys.stderr)
        return 1
    print(json.dumps({"same": True, **report.to_dict()}) if args.json else
          f"replayed {report.plans} codeplan(s), {report.calls} primitive calls: identical")
    return 0
