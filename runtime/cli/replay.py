"""`codeplan replay`: re-run a recorded episode from its trace, and say whether it matches.

Why a command: a trace is only evidence if it reproduces. Plain replay feeds the recorded
primitive results back to the recorded codeplans (no simulator); `--resimulate` runs them in a
fresh simulator and compares the outcome. Exit status 0: identical; 1: diverged or different
(the one command where 1 means "ran, and the answer is no"); 2: no trace there; 4: the run
stopped early (killed or crashed: the trace has no `episode_end`), and what was recorded
replays identically up to where it stopped (with --resimulate: there is nothing to compare).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

STOPPED_EARLY = 4  # exit status: the trace ends without episode_end


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add `replay` to the `codeplan` verbs."""
    replay = subparsers.add_parser("replay", help="re-run a recorded episode from its trace")
    replay.add_argument("trace", type=Path, help="run directory or trace.jsonl")
    replay.add_argument("--resimulate", action="store_true",
                        help="run the recorded codeplans in a fresh simulator and compare")
    replay.add_argument("--runs-dir", type=Path, default=Path("runs"))
    replay.add_argument("--json", action="store_true")
    replay.set_defaults(handler=_replay)


def _replay(args: argparse.Namespace) -> int:
    if args.resimulate:
        return _resimulate(args)
    from runtime.replay import ReplayDivergence, replay_trace

    try:
        report = replay_trace(args.trace)
    except ReplayDivergence as e:
        print(f"codeplan: replay diverged: {e}{_early_note(args.trace)}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"same": True, **report.to_dict()}))
    elif report.stopped_early:
        print(f"the run stopped early: {report.stopped_early}; replayed {report.plans} "
              f"codeplan(s), {report.calls} primitive calls up to there: identical")
    else:
        print(f"replayed {report.plans} codeplan(s), {report.calls} primitive calls: identical")
    return STOPPED_EARLY if report.stopped_early else 0


def _early_note(path: Path) -> str:
    from runtime.replay import stopped_early
    from runtime.trace import read_trace

    early = stopped_early(read_trace(path)[1])
    return f" (and the run stopped early: {early})" if early else ""


def _resimulate(args: argparse.Namespace) -> int:
    from runtime.replay import StoppedEarly, resimulate

    try:
        result, recorded = resimulate(args.trace, args.runs_dir)
    except StoppedEarly as e:
        print(json.dumps({"same": None, "stopped_early": str(e)}) if args.json else
              f"codeplan: {e}", file=sys.stdout if args.json else sys.stderr)
        return STOPPED_EARLY
    keys = ("success", "failure_reason", "counts")
    diffs = {k: (recorded[k], getattr(result, k)) for k in keys
             if recorded[k] != getattr(result, k)}
    out = {"same": not diffs, "differences": diffs, "run_dir": result.run_dir}
    print(json.dumps(out) if args.json else
          ("resimulated: same outcome" if not diffs else f"resimulated: DIFFERENT {diffs}")
          + f" ({result.run_dir})")
    return 0 if not diffs else 1
