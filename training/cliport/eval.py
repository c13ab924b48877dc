"""Evaluate a trained CLIPort actor in the simulator, step by step, against ground truth.

For every step the task's oracle would take ("put the red block in the blue bowl"), the actor
acts instead of the oracle; the step succeeds when the relation it asked for (`in` a bowl, `on`
a block or the stand, on both blocks of a pyramid pair) then holds in the ground-truth scene.
An episode succeeds when the task's own success check holds at the end. Episode success gets a
95% Wilson interval. Seeds start at 10000 so that they never meet the demo seeds (0, 1, ...).

Every step is also classified (`step_outcome`): held, wrong object, wrong place, nothing moved.
Why: a failed "put the gray block in the cyan bowl" may be a grounding error (the brown block
moved) or a placing error, and the remedies differ; the counts come with every evaluation.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from tqdm import tqdm

from common.executor import Executor, imap_unordered
from common.stats import wilson_interval
from ravens_env.agents.oracle import parse_step, step_holds
from ravens_env.cliport.actor import CliportActor
from ravens_env.env import TabletopEnv
from ravens_env.scene_graph import Scene

__all__ = ["EVAL_SEED_START", "OUTCOMES", "eval_actor", "format_eval", "run_actor_episode",
           "step_holds", "step_outcome"]

EVAL_SEED_START = 10_000
OUTCOMES = ("held", "wrong object", "wrong place", "nothing moved")
MOVED_M = 0.01  # an object whose centre moved less than this (metres, in xy) did not move


def step_outcome(before: Scene, after: Scene, step: str) -> str:
    """What one actor step did, from ground truth before and after (one of OUTCOMES): the
    object that moved furthest is taken as the one the actor carried."""
    if step_holds(after, step):
        return "held"
    moves = {o.name: _xy_distance(o.position, after.get(o.name).position)
             for o in before.objects if o.name in after.names()}
    moved = max(moves, key=moves.get, default=None)
    if moved is None or moves[moved] < MOVED_M:
        return "nothing moved"
    return "wrong place" if moved == parse_step(step)[0] else "wrong object"


def _xy_distance(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5


def run_actor_episode(env: TabletopEnv, actor: CliportActor, task: str, seed: int) -> dict:
    """One episode driven by the actor on the oracle's steps: {'success', 'steps', 'held',
    'outcomes', 'act_ms'}; a step that did not hold is asked again (as the task's oracle
    would), until the task's `max_steps` run out."""
    obs = env.reset(task, seed)
    outcomes, act_ms = [], []
    for _ in range(env.task.max_steps):
        scene = env.scene(visibility=False)
        step = env.task.oracle_step(scene)
        if step is None:
            break
        start = time.perf_counter()
        action = actor.act(obs, step, known_objects=scene.names())
        act_ms.append(round(1000 * (time.perf_counter() - start), 2))
        obs = env.execute(action)
        outcomes.append(step_outcome(scene, env.scene(visibility=False), step))
    return {"seed": seed, "success": env.success(), "steps": len(outcomes),
            "held": outcomes.count("held"), "outcomes": outcomes, "act_ms": act_ms}


def eval_actor(checkpoint: str | Path, task: str, episodes: int,
               seed_start: int = EVAL_SEED_START, device: str = "cpu",
               progress: bool = True, executor: Executor | None = None) -> dict:
    """Success rate (95% Wilson interval) and per-step success of the actor on `task`, its
    episodes run where `executor` says (default: here, one after another); each worker loads
    the actor and opens the simulator once."""
    if episodes < 1:
        raise ValueError(f"--episodes must be at least 1, got {episodes}")
    executor = executor or Executor()
    if executor.parallel:  # a bad checkpoint fails here, as itself, before any worker starts
        CliportActor(checkpoint, device=device)
    seeds = list(range(seed_start, seed_start + episodes))
    by_seed = {}
    try:
        with tqdm(total=episodes, desc=f"eval {task}", disable=not progress, unit="ep") as bar:
            # spawn: the driver has loaded the actor (torch) above, and a fork of a process
            # whose OpenMP threads ran can hang in the child
            for i, run in imap_unordered(_actor_episode, seeds, executor, setup=_open_worker,
                                         setup_args=(str(checkpoint), device, task),
                                         mp_context="spawn"):
                by_seed[seeds[i]] = run
                bar.update()
    finally:
        if not executor.parallel:
            _close_worker()
    runs = [by_seed[s] for s in seeds]
    wins = sum(r["success"] for r in runs)
    steps = sum(r["steps"] for r in runs)
    held = sum(r["held"] for r in runs)
    lo, hi = wilson_interval(wins, episodes)
    step_lo, step_hi = wilson_interval(held, steps) if steps else (0.0, 1.0)
    act_ms = sorted(ms for r in runs for ms in r["act_ms"])
    counts = Counter(o for r in runs for o in r["outcomes"])
    first = sum(bool(r["outcomes"]) and r["outcomes"][0] == "held" for r in runs)
    first_lo, first_hi = wilson_interval(first, episodes)
    return {"task": task, "checkpoint": str(checkpoint), "success_rate": wins / episodes,
            "ci95": [round(lo, 4), round(hi, 4)], "episodes": episodes, "steps": steps,
            "step_success_rate": held / steps if steps else 0.0,
            "step_ci95": [round(step_lo, 4), round(step_hi, 4)],
            "first_step_success_rate": first / episodes,
            "first_step_ci95": [round(first_lo, 4), round(first_hi, 4)],
            "step_outcomes": {o: counts[o] for o in OUTCOMES},
            "act_ms_p50": act_ms[len(act_ms) // 2] if act_ms else None,
            "device": device, "seed_start": seed_start, "runs": runs}


_WORKER: dict = {}  # this process's actor and simulator (loaded once, used for every episode)


def _open_worker(checkpoint: str, device: str, task: str) -> None:
    _WORKER.update(actor=CliportActor(checkpoint, device=device), env=TabletopEnv(task),
                   task=task)


def _close_worker() -> None:
    if "env" in _WORKER:
        _WORKER.pop("env").close()
    _WORKER.clear()


def _actor_episode(seed: int) -> dict:
    return run_actor_episode(_WORKER["env"], _WORKER["actor"], _WORKER["task"], seed)


def format_eval(result: dict) -> str:
    """Three lines for a person: episode success with its interval, per-step success, and what
    the steps did."""
    lo, hi = result["ci95"]
    wins = round(result["success_rate"] * result["episodes"])
    return (f"{result['task']}: {wins}/{result['episodes']} episodes succeeded = "
            f"{100 * result['success_rate']:.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f}%)\n"
            f"steps: {result['steps']}, step success {100 * result['step_success_rate']:.1f}% "
            f"(95% CI {100 * result['step_ci95'][0]:.1f}-{100 * result['step_ci95'][1]:.1f}%), "
            f"p50 action time {result['act_ms_p50']} ms on {result['device']}\n"
            f"first steps held: {100 * result['first_step_success_rate']:.1f}%; step outcomes: "
            + ", ".join(f"{o} {n}" for o, n in result["step_outcomes"].items()))
