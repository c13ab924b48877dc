"""`codeplan eval oracle`: how often the scripted oracle solves each task, with 95% intervals.

Why: a task is only a fair benchmark when its ground truth is reachable. The oracle (the
task's own `oracle_step` driving `OracleActor`, no situations) bounds what any system can do;
the reasoning suite's bar is >= 99 of 100 seeds per task, and this is the figure that shows it.
"""

from __future__ import annotations

import sys

from common.stats import wilson_interval
from ravens_env.agents.oracle import run_oracle_episode
from ravens_env.env import TabletopEnv
from ravens_env.tasks import make_task


def oracle_check(tasks: list[str], episodes: int, seed_start: int = 0,
                 progress: bool = False) -> dict:
    """Run `episodes` oracle episodes (seeds seed_start..) of every task, each limited to its
    `max_steps`; {'tasks': {id: {successes, episodes, success_rate, ci95, category, failed}}}."""
    if episodes < 1:
        raise ValueError("--episodes must be at least 1")
    for task in tasks:
        make_task(task)  # an unknown id fails before any episode runs
    seeds = range(seed_start, seed_start + episodes)
    out = {}
    with TabletopEnv() as env:
        for task in tasks:
            failed = [s for s in seeds if not run_oracle_episode(env, task, s)["success"]]
            out[task] = _row(task, episodes - len(failed), episodes, failed)
            if progress:
                print(f"{task}: {out[task]['successes']}/{episodes}", file=sys.stderr)
    return {"tasks": out, "seeds": [seed_start, seed_start + episodes - 1],
            "situations": "none"}


def _row(task: str, successes: int, episodes: int, failed: list[int]) -> dict:
    lo, hi = wilson_interval(successes, episodes)
    return {"successes": successes, "episodes": episodes,
            "success_rate": round(successes / episodes, 4), "ci95": [round(lo, 4), round(hi, 4)],
            "category": make_task(task).category, "failed_seeds": failed}


def format_oracle_check(result: dict) -> str:
    """One line per task: category, successes/episodes, rate and its 95% Wilson interval."""
    rows = result["tasks"]
    width = max(len(t) for t in rows)
    lines = [f"oracle success, seeds {result['seeds'][0]}-{result['seeds'][1]}, no situations"]
    for task, r in rows.items():
        lo, hi = r["ci95"]
        failed = f"  failed seeds {r['failed_seeds']}" if r["failed_seeds"] else ""
        lines.append(f"{task:<{width}}  {r['category'] or '-':<15}  {r['successes']:>4}/"
                     f"{r['episodes']:<4}  {100 * r['success_rate']:5.1f}%  "
                     f"[{100 * lo:5.1f}, {100 * hi:5.1f}]{failed}")
    return "\n".join(lines)
