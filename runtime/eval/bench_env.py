"""`codeplan bench env`: wall time of reset, pick-place and rendering, and oracle success.

Pick-place time is the whole `execute()` call: arm motion, physics until everything is still,
and the observation the actor and the VQA model need (heightmap + front camera). Rendering is
also timed on its own, uncached. Episodes use seeds seed_start .. seed_start + episodes - 1.
"""

from __future__ import annotations

import platform
import time

from common.stats import summarize_times, wilson_interval
from ravens_env.agents.oracle import OracleActor
from ravens_env.cameras import render_front, render_heightmap
from ravens_env.env import TabletopEnv
from ravens_env.situations import Situations


def bench_env(task: str, episodes: int = 20, seed_start: int = 0,
              situations: Situations | str = "none", progress: bool = False,
              stepwise: bool = False) -> dict:
    """Run `episodes` oracle episodes of `task` and time every phase; `stepwise`: each
    pick-place runs as watchable motion (`env.start(...).finish()`: carry waypoints and
    physics in motion, what monitor mode pays before it looks)."""
    if episodes < 1:
        raise ValueError("--episodes must be at least 1")
    resets, picks, renders, steps_per_action, wins = [], [], [], [], 0
    with TabletopEnv(task, situations=situations) as env:
        seeds = range(seed_start, seed_start + episodes)
        for seed in _progress(seeds, progress, task):
            t0 = time.perf_counter()
            obs = env.reset(task, seed)
            resets.append(time.perf_counter() - t0)
            renders.append(_time_render(env))
            actor = OracleActor(env)
            for _ in range(env.task.max_steps):
                step = env.task.oracle_step(env.scene(visibility=False))
                if step is None:
                    break
                action = actor.act(obs, step)
                t0 = time.perf_counter()
                obs = env.start(action).finish() if stepwise else env.execute(action)
                picks.append(time.perf_counter() - t0)
                steps_per_action.append(obs.last_action.physics_steps)
            wins += env.success()
    lo, hi = wilson_interval(wins, episodes)
    return {
        "task": task, "episodes": episodes, "seeds": [seed_start, seed_start + episodes - 1],
        "situations": (situations if isinstance(situations, str) else situations.to_dict()),
        "stepwise": stepwise,
        "oracle_success": wins / episodes, "oracle_success_ci95": [round(lo, 4), round(hi, 4)],
        "reset_s": summarize_times(resets), "pick_place_s": summarize_times(picks),
        "render_s": summarize_times(renders),
        "physics_steps_per_pick_place": summarize_times(steps_per_action),
        "machine": {"python": platform.python_version(), "cpu": platform.processor() or
                    platform.machine(), "system": platform.system()},
    }


def _time_render(env: TabletopEnv) -> float:
    """Seconds for one uncached render of both cameras (heightmap + front)."""
    t0 = time.perf_counter()
    render_heightmap(env.client)
    render_front(env.client, env.front_camera)
    return time.perf_counter() - t0


def _progress(seeds: range, enabled: bool, task: str):
    if not enabled:
        return seeds
    from tqdm import tqdm

    return tqdm(seeds, desc=f"bench {task}", unit="ep")


def format_report(r: dict) -> str:
    """Human-readable table of one bench result."""
    lo, hi = r["oracle_success_ci95"]
    lines = [
        f"task {r['task']}  episodes {r['episodes']} (seeds {r['seeds'][0]}-{r['seeds'][1]})  "
        f"situations {r['situations']}",
        f"oracle success  {r['oracle_success']:.1%}  (95% CI {lo:.1%}-{hi:.1%})",
        f"{'phase':<12}{'median s':>10}{'95% CI of median':>20}{'p90 s':>10}{'n':>6}",
    ]
    for key, label in (("reset_s", "reset"), ("pick_place_s", "pick-place"),
                       ("render_s", "render")):
        s = r[key]
        ci = f"{s['median_ci95'][0]:.4f}-{s['median_ci95'][1]:.4f}"
        lines.append(f"{label:<12}{s['median']:>10.4f}{ci:>20}{s['p90']:>10.4f}{s['n']:>6}")
    return "\n".join(lines)
