"""stack-block-pyramid: six blocks into a 3-2-1 pyramid on a stand (Ravens' task)."""

from __future__ import annotations

import math

import numpy as np

from ravens_env.dimensions import BLOCK_SIZE, STAND_SIZE
from ravens_env.scene_graph import Scene, SceneObject
from ravens_env.tasks.base import ObjectSpec, Task, pick_colors, sample_layout

SLOT_SPACING = 0.05  # metres between neighbouring slot centres in a row (Ravens uses 5 cm)
SLOT_XY_TOL = 0.02  # metres
SLOT_Z_TOL = 0.015  # metres
# (local y, layer) of the six slots: bottom row left to right, middle row, top.
SLOT_LAYOUT = ((-1.0, 0), (0.0, 0), (1.0, 0), (-0.5, 1), (0.5, 1), (0.0, 2))
SUPPORTS = {3: (0, 1), 4: (1, 2), 5: (3, 4)}  # slot -> the two slots it rests on


def stand_slots(stand: SceneObject) -> list[tuple[float, float, float]]:
    """World centres (metres) of the six block slots on a stand, in filling order."""
    c, s = math.cos(stand.yaw), math.sin(stand.yaw)
    top = stand.position[2] + STAND_SIZE[2] / 2
    slots = []
    for local_y, layer in SLOT_LAYOUT:
        dy = local_y * SLOT_SPACING
        slots.append((stand.position[0] - s * dy, stand.position[1] + c * dy,
                      top + BLOCK_SIZE / 2 + layer * BLOCK_SIZE))
    return slots


def slot_occupant(scene: Scene, slot: tuple[float, float, float]) -> str | None:
    for block in scene.of_type("block"):
        p = block.position
        if math.dist(p[:2], slot[:2]) <= SLOT_XY_TOL and abs(p[2] - slot[2]) <= SLOT_Z_TOL:
            return block.name
    return None


class StackBlockPyramid(Task):
    """Build a 3-2-1 pyramid of six blocks on the stand.

    Task Description:
        Six blocks and a flat stand are on the table. Three blocks go side by side on the
        stand, two on top of them straddling the gaps, one on top (Ravens' stack-block-pyramid).
        Any block may fill any slot.

    Randomizations:
        - block colors: six distinct colors from the split (`colors`, default "all")
        - xy and yaw of the stand and of every block, uniform without overlaps

    Success Conditions:
        Every one of the six slots (see `stand_slots`, 5 cm apart in a row, one block height
        per layer) holds a block whose centre is within 2 cm (xy) and 1.5 cm (z) of it.
    """

    summary = "build a 3-2-1 pyramid of six blocks on the stand"

    def __init__(self, colors: str = "all") -> None:
        super().__init__()
        self.colors = colors

    def setup(self, rng: np.random.Generator) -> list[ObjectSpec]:
        colors = pick_colors(rng, self.colors, 6)
        layout = sample_layout(rng, ["stand"] + ["block"] * 6)
        x, y, yaw = layout[0]
        self.specs = [ObjectSpec("stand", "brown", (x, y), yaw)]
        self.specs += [ObjectSpec("block", c, (bx, by), byaw)
                       for c, (bx, by, byaw) in zip(colors, layout[1:], strict=True)]
        self.instruction = "stack all the blocks in a 3-2-1 pyramid on the stand"
        return self.specs

    def _occupants(self, scene: Scene) -> list[str | None]:
        return [slot_occupant(scene, s) for s in stand_slots(scene.get("stand"))]

    def success(self, scene: Scene) -> bool:
        return all(self._occupants(scene))

    def oracle_step(self, scene: Scene) -> str | None:
        occupants = self._occupants(scene)
        used = {o for o in occupants if o}
        free = [b for b in self.blocks(scene) if b not in used and not scene.related("on", b)]
        for slot, occupant in enumerate(occupants):
            if occupant or not free:
                continue
            if slot not in SUPPORTS:
                return f"put the {free[0]} on the stand"
            below = [occupants[i] for i in SUPPORTS[slot]]
            if all(below):
                return f"put the {free[0]} on the {below[0]} and the {below[1]}"
        return None
