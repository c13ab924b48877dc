"""stack-blocks: every block into one tower, optionally on a named base block."""

from __future__ import annotations

import numpy as np

from ravens_env.scene_graph import TABLE, Scene
from ravens_env.tasks.base import ObjectSpec, Task, pick_colors, sample_layout


def tower_from(scene: Scene, base: str) -> list[str]:
    """Blocks resting one on another upwards from `base` (which must stand on the table)."""
    if scene.support_of(base) != TABLE:
        return []
    tower = [base]
    while True:
        above = [s for s in scene.related("on", tower[-1]) if scene.get(s).type == "block"]
        if not above:
            return tower
        tower.append(above[0])


class StackBlocks(Task):
    """Stack all the blocks into a single tower.

    Task Description:
        3-5 blocks stand on the table. They must all end up in one tower. Half of the episodes
        name the base block ("stack all the blocks on the red block"), which must be at the
        bottom; otherwise any block may be the base.

    Randomizations:
        - number of blocks: 3-5; colors distinct from the split (`colors`, default "all")
        - whether a base block is named (probability 0.5) and which one
        - xy of every block uniform in the workspace without overlaps; yaw uniform

    Success Conditions:
        One block stands on the table and every other block rests on the one below it in a
        single chain (each within 3 cm xy of the block below, face to face within 1.2 cm);
        with a named base, that chain starts at the named block.
    """

    summary = "stack all the blocks in one tower (optionally on a named block)"

    def __init__(self, colors: str = "all", blocks: tuple[int, int] = (3, 5)) -> None:
        super().__init__()
        self.colors, self.n_blocks = colors, blocks
        self.base: str | None = None

    def setup(self, rng: np.random.Generator) -> list[ObjectSpec]:
        n = int(rng.integers(self.n_blocks[0], self.n_blocks[1] + 1))
        colors = pick_colors(rng, self.colors, n)
        layout = sample_layout(rng, ["block"] * n)
        self.specs = [ObjectSpec("block", c, (x, y), yaw)
                      for c, (x, y, yaw) in zip(colors, layout, strict=True)]
        named = bool(rng.random() < 0.5)
        self.base = f"{colors[int(rng.integers(n))]} block" if named else None
        self.instruction = (f"stack all the blocks on the {self.base}" if self.base
                            else "stack all the blocks")
        return self.specs

    @property
    def params(self) -> dict:
        return {"base": self.base}

    @property
    def n_goal_steps(self) -> int:
        return len(self.specs) - 1

    def _tower(self, scene: Scene) -> list[str]:
        if self.base:
            return tower_from(scene, self.base)
        towers = [tower_from(scene, b) for b in self.blocks(scene)]
        return max(towers, key=len)  # the tallest tower is the one to build on

    def success(self, scene: Scene) -> bool:
        return len(self._tower(scene)) == len(self.blocks(scene))

    def oracle_step(self, scene: Scene) -> str | None:
        tower = self._tower(scene)
        if len(tower) == len(self.blocks(scene)):
            return None
        top = tower[-1] if tower else self.base
        # Move only blocks with nothing on them; the suction reaches the top of any pile.
        free = [b for b in self.blocks(scene)
                if b not in tower and b != top and not scene.related("on", b)]
        return f"put the {free[0]} on the {top}" if free and top else None
