"""A pick-place as motion segments that can be watched and halted (`TabletopEnv.start`).

Why: VoLo's point is that an agent should look *while* an action runs and stop it as soon as
belief and scene diverge (a block dropped in transport, the wrong block lifted, a place that
is not above its target). `TabletopEnv.execute` runs a pick-place in one call; `start`
returns a `Motion` that advances it one segment at a time:

    approach  above the pick point          carry    at the safe height, in waypoints
    descend   to the block (suction seals)  lower    onto what is below the place
    lift      back to the safe height       release  let go and rise      home   park

Between segments the caller may render (`observe`), read the robot's state (`poll`) and
`halt`. Time is simulated: the tip moves at TIP_SPEED, and a stepwise motion steps physics for
each segment's duration (so a dropped block falls while the arm moves on); the same seed and
the same calls give the same halted state. The blocking path steps no physics in motion and
splits no carry, so its trajectories are those of a one-call pick-place — unless natural
failures are on (`Situations.natural`), which need physics in motion on every path.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from ravens_env.bullet import pb
from ravens_env.types import ActionResult, Observation

SEGMENTS = ("approach", "descend", "lift", "carry", "lower", "release", "home")
TIP_SPEED = 0.5  # m/s: the tip's nominal speed, which turns path length into simulated time
CARRY_STEP = 0.05  # metres between carry waypoints of a stepwise motion (0.1 s at TIP_SPEED)
TIMESTEP = 1.0 / 240.0  # seconds per physics step (the env's rate)

Segments = Generator[str, None, ActionResult]


def carry_waypoints(distance: float, step: float = CARRY_STEP) -> int:
    """How many waypoints a carry of `distance` metres takes, `step` apart (at least one)."""
    return max(1, math.ceil(distance / step - 1e-9))


@dataclass
class MotionLog:
    """What a running pick-place has done so far (read when it is halted)."""

    happened: list[str] = field(default_factory=list)  # situations that fired so far
    picked: str | None = None  # the block the cup sealed on (it may have lost it since)


@dataclass(frozen=True)
class MotionState:
    """Where a motion stands: the segment it last finished, simulated time and tip path so
    far, and the robot's own state (what the suction cup holds) — no ground truth."""

    segment: str | None  # None before the first segment
    sim_s: float
    path_m: float
    holding: str | None
    done: bool
    halted: bool

    def to_dict(self) -> dict:
        return {"segment": self.segment, "sim_s": round(self.sim_s, 4),
                "path_m": round(self.path_m, 4), "holding": self.holding, "done": self.done,
                "halted": self.halted}


class Motion:
    """One pick-place in progress (`TabletopEnv.start`): `step`, `poll`, `observe`, `halt`,
    `finish`. Once done or halted, `result` is the ActionResult and the env has run the
    task's after-step hook, as after `execute`."""

    def __init__(self, env: Any, segments: Segments, physics: bool, safe_z: float) -> None:
        # env: the TabletopEnv that started it (not imported: it imports this module);
        # physics: step physics while the arm moves (stepwise, or natural failures on)
        self.env, self._segments, self.physics = env, segments, physics
        self.safe_z = safe_z  # metres: the tip's transport height, where a halt parks it
        self.result: ActionResult | None = None
        self._segment: str | None = None
        self._sim_s = self._path_m = 0.0
        self._physics_steps = 0
        self._halted = False
        self._lost_s: float | None = None  # simulated time the block was lost in transport

    # -- watching ---------------------------------------------------------------------------
    def poll(self) -> MotionState:
        return MotionState(self._segment, self._sim_s, self._path_m, self.env._held_name(),
                           self.result is not None, self._halted)

    def observe(self) -> Observation:
        """The cameras now (mid-motion when not done)."""
        return self.env.observe()

    # -- driving ----------------------------------------------------------------------------
    def step(self) -> MotionState:
        """Do the next segment (nothing once done)."""
        if self.result is not None:
            return self.poll()
        before, held = self.env.arm.tip_target, self.env.arm.held
        try:
            self._segment = next(self._segments)
        except StopIteration as stop:
            self._end(stop.value)
            return self.poll()
        metres = math.dist(before, self.env.arm.tip_target)
        self._path_m += metres
        self._sim_s += metres / TIP_SPEED
        if held is not None and self.env.arm.held is None and self._segment == "carry":
            self._lost_s = self._sim_s  # the cup let go in transport: when (for the audit)
        if self.physics and (held is not None or self.env.arm.held is not None):
            # only while the cup holds a block does the arm move anything: the empty arm
            # has no collision shapes and resting objects stay at rest (a dropped block
            # falls during the settle, or when a watcher halts)
            self._run_physics(metres / TIP_SPEED)
        self.env._version += 1  # the world moved: renders must not come from the cache
        return self.poll()

    def finish(self) -> Observation:
        """Run the remaining segments; the observation after the action."""
        while self.result is None:
            self.step()
        return self.env.observe()

    def halt(self, release: bool = False) -> Observation:
        """Stop between segments. The arm rises straight up to the safe height and parks
        there, still holding what it holds (`release=False`: the next action places it, as
        after a place that did not let go) or letting it fall where it is (`release=True`).
        The result says where it stopped (`halted`) and what had happened so far."""
        if self.result is not None:
            return self.env.observe()
        self._segments.close()
        arm = self.env.arm
        log = self.env._motion_log
        picked = log.picked or self.env._held_name()
        if release and arm.held is not None:
            arm.release()
        x, y, z = arm.tip_target
        if z < self.safe_z:
            arm.move_to(x, y, self.safe_z, arm.tip_yaw)
            self._path_m += self.safe_z - z
            self._sim_s += (self.safe_z - z) / TIP_SPEED
        self._halted = True
        self._end(ActionResult(True, picked=picked, situations=list(log.happened),
                               physics_steps=self.env.settle(), halted=self._segment or "start"))
        return self.env.observe()

    # -- internals --------------------------------------------------------------------------
    def _run_physics(self, seconds: float) -> None:
        for _ in range(round(seconds / TIMESTEP)):
            pb.stepSimulation(physicsClientId=self.env.client)
        self._physics_steps += round(seconds / TIMESTEP)

    def _end(self, result: ActionResult) -> None:
        result.physics_steps += self._physics_steps
        result.motion_s = round(self._sim_s, 4)
        result.lost_s = None if self._lost_s is None else round(self._lost_s, 4)
        self.result = result
        self.env._end_action(result)
