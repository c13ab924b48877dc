"""Oracle demonstrations for the CLIPort actor: one compressed `.npz` file per episode.

Each step records what the actor will see and what it must learn: the step in words (the
task's own oracle step, the same words the controller sends), the heightmap before the action
(uint8 color, float16 height), and the oracle's PickPlace as labels — pick and place pixels and
the yaw change (the rotation bin is derived from it at training time, so one demo set serves
any `n_rotations`). The file format, and reading it without PyBullet, is
`datagen.cliport_demo_files`.

Episodes use seeds seed_start .. seed_start + n - 1, so a demo set is reproducible from its
command line; writes are atomic (temp file + rename) and existing episodes are skipped, so an
interrupted run is finished by running the same command again.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from common.executor import Executor, imap_unordered
from datagen.cliport_demo_files import DEMO_FORMAT, episode_path, load_episode, write_episode
from ravens_env.agents.oracle import OracleActor
from ravens_env.cliport.actions import action_to_labels
from ravens_env.env import TabletopEnv

__all__ = ["DEMO_FORMAT", "episode_path", "generate_demos", "load_episode", "record_episode",
           "write_episode"]

N_ROTATIONS = 36  # only for the bin stored in the metadata (for people reading a file)


def record_episode(env: TabletopEnv, task: str, seed: int) -> dict[str, np.ndarray]:
    """Run the scripted oracle for one episode; return the arrays of its demo file.

    color (T, 320, 160, 3) uint8; height (T, 320, 160) float16 metres; pick, place (T, 2)
    int16 (row, col); yaw_change (T,) float32 radians; meta: JSON in a 0-d unicode array.
    """
    obs = env.reset(task, seed)
    actor = OracleActor(env)
    colors, heights, steps = [], [], []
    for _ in range(env.task.max_steps):
        step = env.task.oracle_step(env.scene(visibility=False))
        if step is None:
            break
        action = actor.act(obs, step)
        colors.append(obs.color)
        heights.append(obs.height.astype(np.float16))
        labels = action_to_labels(action, N_ROTATIONS)
        obs = env.execute(action)
        steps.append({"instruction": step, "action": action.to_dict(), **labels,
                      "yaw_change": action.place_yaw - action.pick_yaw,
                      "ok": obs.last_action.ok, "situations": obs.last_action.situations})
    meta = {"format": DEMO_FORMAT, "task": task, "seed": seed,
            "instruction": env.task.instruction, "success": env.success(),
            "objects": env.scene(visibility=False).names(), "steps": steps}
    shape = env.observe().height.shape
    return {
        "color": np.asarray(colors, np.uint8).reshape(-1, *shape, 3),
        "height": np.asarray(heights, np.float16).reshape(-1, *shape),
        "pick": np.asarray([s["pick"] for s in steps], np.int16).reshape(-1, 2),
        "place": np.asarray([s["place"] for s in steps], np.int16).reshape(-1, 2),
        "yaw_change": np.asarray([s["yaw_change"] for s in steps], np.float32),
        "meta": np.array(json.dumps(meta)),
    }


def generate_demos(task: str, n: int, out: str | Path, seed_start: int = 0,
                   progress: bool = True, executor: Executor | None = None) -> dict:
    """Record episodes seed_start .. seed_start + n - 1 of `task` into `out`, skipping those
    already there, where `executor` says (default: here, one after another; each worker opens
    its simulator once). Returns a summary: made/skipped seeds, steps, seconds, episodes per
    minute. A file is the same bytes whichever worker wrote it: an episode depends on its
    seed alone."""
    if n < 1:
        raise ValueError(f"--n must be at least 1, got {n}")
    if seed_start < 0:
        raise ValueError(f"--seed-start must be >= 0, got {seed_start}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    seeds = range(seed_start, seed_start + n)
    skipped = [s for s in seeds if episode_path(out, task, s).exists()]
    todo = [s for s in seeds if s not in set(skipped)]
    executor = executor or Executor()
    made: dict[int, tuple[int, bool]] = {}
    start = time.perf_counter()
    try:
        with tqdm(total=n, initial=len(skipped), desc=f"demos {task}", disable=not progress,
                  unit="ep") as bar:
            for i, result in imap_unordered(_demo, [(task, s, str(out)) for s in todo],
                                            executor, setup=_open_env, setup_args=(task,)):
                made[todo[i]] = result
                bar.update()
    finally:
        if not executor.parallel:
            _close_env()
    seconds = time.perf_counter() - start
    return {"task": task, "out": str(out), "made": sorted(made), "skipped": skipped,
            "steps": sum(steps for steps, _ in made.values()),
            "oracle_failures": sum(not ok for _, ok in made.values()),
            "seconds": round(seconds, 3),
            "episodes_per_min": round(60.0 * len(made) / seconds, 1) if made else 0.0,
            "executor": executor.describe()}


_ENV: list[TabletopEnv] = []  # this process's simulator (opened once, used for every episode)


def _open_env(task: str) -> None:
    _close_env()
    _ENV.append(TabletopEnv(task))


def _close_env() -> None:
    while _ENV:
        _ENV.pop().close()


def _demo(job: tuple[str, int, str]) -> tuple[int, bool]:
    """Record and write one episode; (steps, oracle succeeded)."""
    task, seed, out = job
    arrays = record_episode(_ENV[0], task, seed)
    write_episode(episode_path(out, task, seed), arrays)
    return len(arrays["pick"]), bool(json.loads(str(arrays["meta"]))["success"])
