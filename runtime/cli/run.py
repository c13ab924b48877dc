"""`codeplan run`: plan and run one instruction in the closed loop, print what happened.

With no arguments it runs the embedded defaults: the canonical instruction of
put-blocks-in-matching-bowls, seed 0, progress mode, offline planner, the shipped learned
reasoner (it answers from the front camera image) and the shipped CLIPort-style actor.
(`RunConfig`'s own default actor stays the scripted oracle, for library use and fast tests.)
A run writes runs/<id>/ (trace.jsonl, report.html, frames/), which `codeplan replay` reads.
The episode budget (`--max-episode-s`, `--max-episode-calls`) bounds the whole episode; a
report that cannot be written is named on stderr and the result is still printed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from runtime.cli.args import add_stack_options, planner_options
from runtime.controller import MODES
from runtime.run_config import RunConfig, RunError, RunResult


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add `run` to the `codeplan` verbs."""
    run = subparsers.add_parser("run", help="plan and run an instruction in the closed loop")
    run.add_argument("instruction", nargs="?", help="what to do (default: the task's own)")
    run.add_argument("--task", default=RunConfig.task, help="task id (scene and scoring)")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--mode", choices=MODES, default=RunConfig.mode)
    add_stack_options(run, planners=("offline", "llm", "openai", "file", "react", "mcts"))
    run.add_argument("--plan-file", help="codeplan file for --planner file")
    run.add_argument("--situations", default="none", help="none, dkprompt, hard or drop=0.2,...")
    run.add_argument("--runs-dir", type=Path, default=Path("runs"))
    run.add_argument("--max-plans", type=int, default=RunConfig.max_plans,
                     help="codeplans per episode (default 5; 21 in the DKPROMPT modes and their "
                          "baselines, where a replan stands for a redo)")
    run.add_argument("--max-episode-s", type=float, default=RunConfig.max_episode_s,
                     metavar="S", help="seconds of execution for the whole episode: codeplans, "
                     "primitives, perception; planner time not counted (default %(default)g)")
    run.add_argument("--max-episode-calls", type=int, default=RunConfig.max_episode_calls,
                     metavar="N", help="primitive calls for the whole episode, all codeplans "
                     "(default %(default)d)")
    run.add_argument("--json", action="store_true", help="print one JSON object")
    run.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from runtime.runner import run_episode

    if args.seed < 0:
        raise RunError(f"--seed must be >= 0, got {args.seed}")
    config = RunConfig(
        instruction=args.instruction, task=args.task, seed=args.seed, mode=args.mode,
        planner=args.planner, planner_options=planner_options(args), reasoner=args.reasoner,
        actor=args.actor, situations=args.situations, runs_dir=args.runs_dir,
        max_plans=args.max_plans, max_episode_s=args.max_episode_s,
        max_episode_calls=args.max_episode_calls, tool_switch=args.tool_switch,
        preconditions=args.preconditions,
    )
    result = run_episode(config)
    if result.report_error:
        print(f"codeplan: warning: {result.report_error}", file=sys.stderr)
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
