"""`codeplan eval closed-loop`: success rate by task and validation mode, with 95% intervals.

Every (task, mode, seed) episode is an independent `run_episode` with its own trace under
`<out>/runs/`, so any episode can be re-run from its seed or replayed from its trace. Episodes
use seeds seed_start .. seed_start + episodes - 1 for every mode (paired comparison).
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from runtime.run_config import RunConfig
from runtime.stats import wilson_interval


@dataclass
class EvalSpec:
    tasks: list[str]
    modes: list[str]
    episodes: int = 50
    seed_start: int = 1000  # test seeds, disjoint from the 0-based seeds used while developing
    situations: str = "dkprompt"
    actor: str = "oracle"
    reasoner: str = "default"
    planner: str = "offline"
    workers: int = 1
    out_dir: Path = Path("results/closed-loop")


def _episode(args: tuple[str, str, int, EvalSpec]) -> dict:
    task, mode, seed, spec = args
    from runtime.runner import run_episode

    config = RunConfig(task=task, seed=seed, mode=mode, planner=spec.planner,
                       reasoner=spec.reasoner, actor=spec.actor, situations=spec.situations,
                       runs_dir=spec.out_dir / "runs", report=False)
    r = run_episode(config)
    return {"task": task, "mode": mode, "seed": seed, "success": r.success,
            "failure_reason": r.failure_reason, "wall_s": r.wall_s, "run_dir": r.run_dir,
            **{k: r.counts[k] for k in ("actions", "retries", "replans", "questions",
                                        "reasoner_calls", "planner_calls")}}


def run_eval(spec: EvalSpec, progress: bool = True) -> dict:
    """Run every episode (in `spec.workers` processes) and aggregate."""
    jobs = [(t, m, s, spec) for t in spec.tasks for m in spec.modes
            for s in range(spec.seed_start, spec.seed_start + spec.episodes)]
    spec.out_dir.mkdir(parents=True, exist_ok=True)
    episodes = list(_map(jobs, spec.workers, progress))
    with (spec.out_dir / "episodes.jsonl").open("w") as f:
        f.writelines(json.dumps(e) + "\n" for e in episodes)
    return aggregate(spec, episodes)


def _map(jobs: list, workers: int, progress: bool):
    from tqdm import tqdm

    bar = tqdm(total=len(jobs), unit="ep", disable=not progress, desc="closed-loop")
    if workers <= 1:
        for job in jobs:
            yield _episode(job)
            bar.update()
    else:
        with ProcessPoolExecutor(max_workers=min(workers, os.cpu_count() or 1)) as pool:
            for out in pool.map(_episode, jobs):
                yield out
                bar.update()
    bar.close()


def aggregate(spec: EvalSpec, episodes: list[dict]) -> dict:
    rate: dict = {}
    ci: dict = {}
    calls: dict = {}
    wall: dict = {}
    for task in spec.tasks:
        for mode in spec.modes:
            eps = [e for e in episodes if e["task"] == task and e["mode"] == mode]
            wins = sum(e["success"] for e in eps)
            rate.setdefault(task, {})[mode] = wins / len(eps)
            ci.setdefault(task, {})[mode] = [round(v, 4) for v in wilson_interval(wins, len(eps))]
            calls.setdefault(task, {})[mode] = sum(e["questions"] for e in eps) / len(eps)
            wall.setdefault(task, {})[mode] = sum(e["wall_s"] for e in eps) / len(eps)
    return {"success_rate": rate, "ci95": ci, "questions_per_episode": calls,
            "wall_s_per_episode": wall, "episodes": spec.episodes,
            "seeds": [spec.seed_start, spec.seed_start + spec.episodes - 1],
            "situations": spec.situations, "actor": spec.actor, "reasoner": spec.reasoner,
            "planner": spec.planner, "out_dir": str(spec.out_dir)}


def format_table(result: dict) -> str:
    """Markdown table: one row per task, one column per mode, rate and 95% interval."""
    modes = list(next(iter(result["success_rate"].values())))
    lines = [f"| task | {' | '.join(modes)} |", "|---|" + "---|" * len(modes)]
    for task, by_mode in result["success_rate"].items():
        cells = [f"{by_mode[m]:.0%} [{result['ci95'][task][m][0]:.0%}, "
                 f"{result['ci95'][task][m][1]:.0%}]" for m in modes]
        lines.append(f"| {task} | {' | '.join(cells)} |")
    lines.append(f"\n{result['episodes']} episodes per cell, seeds {result['seeds'][0]}-"
                 f"{result['seeds'][1]}, situations {result['situations']}, actor "
                 f"{result['actor']}, reasoner {result['reasoner']}, planner {result['planner']}")
    q = result["questions_per_episode"]
    lines.append("questions per episode: " + "; ".join(
        f"{t}: " + ", ".join(f"{m} {v:.1f}" for m, v in by.items()) for t, by in q.items()))
    return "\n".join(lines)
