"""The data that crosses the simulator's seam: actions, action results, observations, and
the objects the env creates (shared by `env.py` and `situation_effects.py`, so that neither
has to import the other for its types)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ravens_env.tasks import ObjectSpec


@dataclass(frozen=True)
class PickPlace:
    """One suction pick-and-place in world coordinates (metres, radians), Ravens' action.

    `pick` is where the tip goes down (x, y; z is a hint — the tip descends until contact, as
    Ravens' suction does); `place` is where the tip brings the held object (x, y; the object is
    lowered until it touches what is below). Yaws rotate the object by place_yaw - pick_yaw.
    """

    pick: tuple[float, float, float]
    place: tuple[float, float, float]
    pick_yaw: float = 0.0
    place_yaw: float = 0.0

    def problems(self) -> list[str]:
        """Why this action cannot be executed as given (empty when well formed)."""
        out = []
        for label, value in (("pick", self.pick), ("place", self.place)):
            if len(value) != 3:
                out.append(f"{label} must be (x, y, z), got {len(value)} numbers")
            elif not all(math.isfinite(float(v)) for v in value):
                out.append(f"{label} has a non-finite coordinate {tuple(value)}")
        for label, value in (("pick_yaw", self.pick_yaw), ("place_yaw", self.place_yaw)):
            if not math.isfinite(float(value)):
                out.append(f"{label} is not finite ({value})")
        return out

    def to_dict(self) -> dict:
        return {"pick": list(self.pick), "place": list(self.place),
                "pick_yaw": self.pick_yaw, "place_yaw": self.place_yaw}


@dataclass
class ActionResult:
    """What happened when a PickPlace ran: recorded, never raised, so an episode can go on."""

    ok: bool
    reason: str = ""
    picked: str | None = None  # object name
    situations: list[str] = field(default_factory=list)  # injected outcomes that fired
    physics_steps: int = 0
    motion_s: float = 0.0  # simulated seconds the arm moved (`ravens_env.motion.TIP_SPEED`)
    halted: str | None = None  # the segment after which a watcher halted it, if one did
    lost_s: float | None = None  # simulated time the block fell off the cup in transport
    # ground truth, for the audit only: the objects other than the picked one that the action
    # moved more than DISPLACED_M (struck by the arm or the carried block, or an injected knock)
    displaced: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        d = {"ok": self.ok, "reason": self.reason, "picked": self.picked,
             "situations": list(self.situations), "physics_steps": self.physics_steps,
             "motion_s": self.motion_s}
        return d | ({"halted": self.halted} if self.halted else {}) | (
            {"lost_s": self.lost_s} if self.lost_s is not None else {}) | (
            {"displaced": list(self.displaced)} if self.displaced else {})


@dataclass
class Observation:
    """What the system under test may see: images, the instruction, the last action's result."""

    color: np.ndarray  # (320, 160, 3) uint8 top-down heightmap colors, row = y, col = x
    height: np.ndarray  # (320, 160) float32 metres above the table
    front_rgb: np.ndarray  # (H, W, 3) uint8 front camera, the VQA input
    front_depth: np.ndarray  # (H, W) float32 metres along the view axis
    instruction: str
    step: int
    last_action: ActionResult | None = None
    holding: str | None = None  # robot state: the block the suction cup still holds, if any


@dataclass
class SimObject:
    """An object the env created: its spec and PyBullet body id."""

    spec: ObjectSpec
    body: int

    @property
    def name(self) -> str:
        return self.spec.name
