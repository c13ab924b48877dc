"""`codeplan eval grounding`: how far the grounded tools' poses are from ground truth.

The perception-grounded grasp and place (`runtime.tools`) read world positions from the
detector's parse of the front image. This measures, on fresh scenes, the xy error of every
object the detector finds (blocks, bowls, the stand), how many it misses, and the error of the
places the grounded tool would choose on the stand (its yaw read off the board or the blocks
on it) — the facts behind the tools' 2 cm tolerances.
"""

from __future__ import annotations

import numpy as np

from common.stats import summarize_times
from ravens_env.agents.oracle import OracleActor
from ravens_env.env import TabletopEnv
from runtime.tools import GroundedActor


def eval_grounding(grounded: GroundedActor, tasks: list[str], episodes: int,
                   seed_start: int) -> dict:
    """Per object type: xy error (metres: median, p90, max), found / total; per task the
    stand-slot error where the task has a stand."""
    errors: dict[str, list[float]] = {}
    missed: dict[str, int] = {}
    slot_errors: list[float] = []
    with TabletopEnv() as env:
        for task in tasks:
            for seed in range(seed_start, seed_start + episodes):
                obs = env.reset(task, seed)
                truth = env.scene(visibility=False)
                seen = grounded.scene_for(obs)
                for obj in truth.objects:
                    if obj.name not in seen.names():
                        missed[obj.type] = missed.get(obj.type, 0) + 1
                        continue
                    err = np.subtract(seen.get(obj.name).position[:2], obj.position[:2])
                    errors.setdefault(obj.type, []).append(float(np.hypot(*err)))
                if "stand" in truth.names() and "stand" in seen.names():
                    slot_errors += _slot_errors(env, obs, grounded)
    return {
        "tasks": tasks, "episodes": episodes, "seeds": [seed_start, seed_start + episodes - 1],
        "xy_error_m": {t: {**_summary(e), "found": len(e),
                           "total": len(e) + missed.get(t, 0)} for t, e in errors.items()},
        "stand_slot_error_m": _summary(slot_errors) if slot_errors else None,
    }


def _summary(values: list[float]) -> dict:
    """Median (95% interval), p90, mean, n and max, in metres to 0.1 mm."""
    return {**summarize_times(values), "max": round(max(values), 4)}


def _slot_errors(env: TabletopEnv, obs, grounded: GroundedActor) -> list[float]:
    """Distance from each true free stand slot to the nearest perceived one."""
    true_slots = OracleActor(env).place_points(obs, "stand")
    seen = grounded.place_points(obs, "stand")
    return [min(float(np.hypot(t[0] - s[0], t[1] - s[1])) for s in seen) for t in true_slots]


def format_report(r: dict) -> str:
    lines = [f"grounding: {', '.join(r['tasks'])}; {r['episodes']} scenes per task, seeds "
             f"{r['seeds'][0]}-{r['seeds'][1]}", "",
             "| object | found | xy error median / p90 / max (mm) |", "|---|---|---|"]
    for kind, e in sorted(r["xy_error_m"].items()):
        lines.append(f"| {kind} | {e['found']}/{e['total']} | {1000 * e['median']:.1f} / "
                     f"{1000 * e['p90']:.1f} / {1000 * e['max']:.1f} |")
    s = r["stand_slot_error_m"]
    if s:
        lines.append(f"| free stand slot | {s['n']} | {1000 * s['median']:.1f} / "
                     f"{1000 * s['p90']:.1f} / {1000 * s['max']:.1f} |")
    return "\n".join(lines)
