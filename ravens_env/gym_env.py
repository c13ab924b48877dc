"""A Gymnasium view of the simulator, for code that expects `gymnasium.Env`.

The action is Ravens' pick-place flattened to 8 numbers (pick x, y, z, yaw, place x, y, z, yaw;
metres and radians); the reward is 1 on the step that completes the task (ground truth); an
episode is truncated after the task's step budget. Every registered task is available as
`gymnasium.make("codeplan/<task-id>-v0", situations="dkprompt")`.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ravens_env.cameras import TOP_CAMERA_HEIGHT
from ravens_env.env import TabletopEnv
from ravens_env.geometry import BOUNDS, HEIGHTMAP_SHAPE
from ravens_env.tasks import task_ids
from ravens_env.types import Observation, PickPlace


class TabletopGymEnv(gym.Env):
    """`gymnasium.Env` over `TabletopEnv`; `info` carries the instruction and action result."""

    metadata = {"render_modes": ["rgb_array"]}  # noqa: RUF012 (Gymnasium's own convention)

    def __init__(self, task: str, situations: str = "none", render_mode: str | None = None):
        self.task, self.render_mode = task, render_mode
        self.sim = TabletopEnv(task, situations=situations)
        h, w = self.sim.front_camera.height, self.sim.front_camera.width
        self.observation_space = spaces.Dict({
            "color": spaces.Box(0, 255, (*HEIGHTMAP_SHAPE, 3), np.uint8),
            "height": spaces.Box(0.0, TOP_CAMERA_HEIGHT, HEIGHTMAP_SHAPE, np.float32),
            "front_rgb": spaces.Box(0, 255, (h, w, 3), np.uint8),
        })
        # (8,) pick x, y, z, yaw, place x, y, z, yaw within the workspace (metres, radians)
        lo = [*BOUNDS[:, 0], -np.pi]
        hi = [*BOUNDS[:, 1], np.pi]
        self.action_space = spaces.Box(np.array(lo + lo), np.array(hi + hi), dtype=np.float64)
        self._last: Observation | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None
              ) -> tuple[dict, dict]:
        super().reset(seed=seed)
        episode_seed = seed if seed is not None else int(self.np_random.integers(2**31))
        self._last = self.sim.reset(self.task, episode_seed)
        return self._obs(), {"instruction": self._last.instruction, "seed": episode_seed}

    def step(self, action: np.ndarray) -> tuple[dict, float, bool, bool, dict[str, Any]]:
        a = np.asarray(action, dtype=float).reshape(8)
        self._last = self.sim.execute(PickPlace(tuple(a[0:3]), tuple(a[4:7]), a[3], a[7]))
        done = self.sim.success()
        truncated = not done and self.sim.steps >= self.sim.task.max_steps
        info = {"instruction": self._last.instruction,
                "action": self._last.last_action.to_dict()}
        return self._obs(), float(done), done, truncated, info

    def render(self) -> np.ndarray | None:
        return self._last.front_rgb if self._last is not None else None

    def close(self) -> None:
        self.sim.close()

    def _obs(self) -> dict[str, np.ndarray]:
        o = self._last
        return {"color": o.color, "height": o.height, "front_rgb": o.front_rgb}


def register_all() -> None:
    """Register `codeplan/<task>-v0` for every task (idempotent)."""
    for task in task_ids():
        env_id = f"codeplan/{task}-v0"
        if env_id not in gym.registry:
            gym.register(env_id, entry_point=TabletopGymEnv, kwargs={"task": task})
