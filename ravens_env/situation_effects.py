"""How each situation changes the world (the probabilities live in `situations.py`).

Effects move objects by teleporting them to a sampled spot just above whatever is there and
letting physics settle them, which is what a knock or a spill leaves behind, without the
chaotic contact dynamics that would make the outcome depend on tiny numerical differences.
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np

from ravens_env.assets import BLOCK_SIZE
from ravens_env.bullet import pb
from ravens_env.geometry import BOUNDS, yaw_to_quat
from ravens_env.scene_graph import IN_RADIUS
from ravens_env.types import SimObject

EDGE_MARGIN = 0.03  # metres kept inside the workspace by every effect
PARK = (5.0, 5.0, 0.5)  # metres: out of the way while measuring the surface below a spot


class EffectsEnv(Protocol):
    """What the effects need of an env (`TabletopEnv` has it). A protocol rather than an
    import of env.py, which imports this module: the two files stay out of an import cycle."""

    client: int
    objects: list[SimObject]

    def support_height(self, lo: tuple, hi: tuple) -> float: ...


class SituationEffects:
    """Applies situations to one env, drawing every detail from its own seeded generator."""

    def __init__(self, env: EffectsEnv, rng: np.random.Generator) -> None:
        self.env, self.rng = env, rng

    def missed(self, x: float, y: float) -> tuple[float, float]:
        """A place 7-12 cm off target, kept inside the workspace."""
        return self._offset(x, y, self.rng.uniform(0.07, 0.12))

    def nearby(self, x: float, y: float) -> tuple[float, float]:
        """A spot 3-6 cm from (x, y), kept inside the workspace: where a block that slipped
        from the suction cup lands (DKPROMPT's "drops nearby")."""
        return self._offset(x, y, self.rng.uniform(0.03, 0.06))

    def after_place(self, placed: SimObject, place_xy: tuple[float, float],
                    fired: list[str]) -> list[str]:
        """Apply knock / tip / edge when they fired and apply; returns those that happened."""
        happened = []
        for kind, effect in (("knock", self.knock), ("tip", self.tip), ("edge", self.edge)):
            if kind in fired and effect(placed, place_xy):
                happened.append(kind)
        return happened

    def knock(self, placed: SimObject, place_xy: tuple[float, float]) -> bool:
        """The block nearest the place (other than the one placed) slides 6-10 cm away."""
        others = [o for o in self._blocks() if o is not placed]
        if not others:
            return False
        victim = min(others, key=lambda o: math.dist(self._xy(o), place_xy))
        x, y = self._offset(*self._xy(victim), self.rng.uniform(0.06, 0.10))
        self.set_down(victim, x, y)
        return True

    def tip(self, placed: SimObject, place_xy: tuple[float, float]) -> bool:
        """A bowl tips: what it holds lands 10-13 cm to one side, the bowl slides 2 cm back."""
        bowls = [o for o in self.env.objects if o.spec.type == "bowl"]
        if not bowls:
            return False
        full = [b for b in bowls if self._contents(b)]
        pool = full or bowls
        bowl = pool[int(self.rng.integers(len(pool)))]
        theta = self.rng.uniform(-math.pi, math.pi)
        bx, by = self._xy(bowl)
        for k, block in enumerate(self._contents(bowl)):
            r = 0.10 + 0.03 * k
            self.set_down(block, *self._clip(bx + r * math.cos(theta), by + r * math.sin(theta)))
        nx, ny = self._clip(bx - 0.02 * math.cos(theta), by - 0.02 * math.sin(theta))
        pb.resetBasePositionAndOrientation(bowl.body, (nx, ny, 0.0), yaw_to_quat(theta),
                                           physicsClientId=self.env.client)
        return True

    def edge(self, placed: SimObject, place_xy: tuple[float, float]) -> bool:
        """A random block ends up 2.5-4.5 cm (centre) from the nearest workspace side."""
        blocks = self._blocks()
        if not blocks:
            return False
        block = blocks[int(self.rng.integers(len(blocks)))]
        x, y = self._xy(block)
        gap = self.rng.uniform(0.025, 0.045)
        sides = {"x-": x - BOUNDS[0, 0], "x+": BOUNDS[0, 1] - x,
                 "y-": y - BOUNDS[1, 0], "y+": BOUNDS[1, 1] - y}
        side = min(sides, key=sides.get)
        x = {"x-": BOUNDS[0, 0] + gap, "x+": BOUNDS[0, 1] - gap}.get(side, x)
        y = {"y-": BOUNDS[1, 0] + gap, "y+": BOUNDS[1, 1] - gap}.get(side, y)
        self.set_down(block, x, y)
        return True

    # -- helpers -----------------------------------------------------------------------------
    def _blocks(self) -> list[SimObject]:
        return [o for o in self.env.objects if o.spec.type == "block"]

    def _xy(self, obj: SimObject) -> tuple[float, float]:
        pos, _ = pb.getBasePositionAndOrientation(obj.body, physicsClientId=self.env.client)
        return (pos[0], pos[1])

    def _contents(self, bowl: SimObject) -> list[SimObject]:
        c = self.env.client
        bpos, _ = pb.getBasePositionAndOrientation(bowl.body, physicsClientId=c)
        out = []
        for block in self._blocks():
            pos, _ = pb.getBasePositionAndOrientation(block.body, physicsClientId=c)
            if math.dist(pos[:2], bpos[:2]) <= IN_RADIUS and pos[2] < bpos[2] + 0.08:
                out.append(block)
        return out

    def _offset(self, x: float, y: float, distance: float) -> tuple[float, float]:
        theta = self.rng.uniform(-math.pi, math.pi)
        return self._clip(x + distance * math.cos(theta), y + distance * math.sin(theta))

    @staticmethod
    def _clip(x: float, y: float) -> tuple[float, float]:
        return (float(np.clip(x, BOUNDS[0, 0] + EDGE_MARGIN, BOUNDS[0, 1] - EDGE_MARGIN)),
                float(np.clip(y, BOUNDS[1, 0] + EDGE_MARGIN, BOUNDS[1, 1] - EDGE_MARGIN)))

    def set_down(self, obj: SimObject, x: float, y: float) -> None:
        """Teleport a block upright just above the surface at (x, y), random yaw."""
        c = self.env.client
        pb.resetBasePositionAndOrientation(obj.body, PARK, (0, 0, 0, 1), physicsClientId=c)
        h = BLOCK_SIZE * math.sqrt(2) / 2  # footprint half-width at any yaw
        support = self.env.support_height((x - h, y - h, 1.0), (x + h, y + h, 1.0))
        z = support + BLOCK_SIZE / 2 + 0.002
        yaw = self.rng.uniform(-math.pi, math.pi)
        pb.resetBasePositionAndOrientation(obj.body, (x, y, z), yaw_to_quat(yaw),
                                           physicsClientId=c)
        pb.resetBaseVelocity(obj.body, (0, 0, 0), (0, 0, 0), physicsClientId=c)
