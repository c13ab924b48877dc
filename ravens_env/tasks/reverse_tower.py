"""reverse-tower (reasoning suite, memory): rebuild a 3-block tower upside down."""

from __future__ import annotations

import numpy as np

from ravens_env.scene_graph import Scene
from ravens_env.tasks.base import (
    ObjectSpec,
    Task,
    pick_colors,
    pick_template,
    sample_layout,
)
from ravens_env.tasks.oracle_steps import (
    blocks_below,
    chain_length,
    chain_step,
    empty_bowls,
    park,
    pile_top,
    put_in,
)

TEMPLATES = (
    "reverse the order of the tower",
    "rebuild the tower upside down",
    "flip the stack so the top block ends up at the bottom",
)


class ReverseTower(Task):
    """Rebuild a three-block tower in the reverse order.

    Task Description:
        A tower of three blocks (bottom, middle, top) stands on the table, with two empty
        bowls and sometimes one more block. The tower must be rebuilt upside down: the middle
        block on the old top block and the old bottom block on the middle one. A block can
        only be put in a bowl, on a block or on the stand (never back on the table), so the
        old top becomes the new base inside a bowl (or wherever it may stand). Once the
        tower is taken apart, only memory says which block was at the bottom.

    Randomizations:
        - 3 tower blocks (+ one other block on the table with probability 0.5) and 2 bowls,
          colors distinct within a type (all colors); the tower's order
        - xy of the tower, the bowls and the other block uniform without overlaps; yaw
          uniform (the tower's blocks share one yaw; `ObjectSpec.on` stacks them)
        - instruction template (3)

    Success Conditions:
        `params["middle"]` rests *on* `params["top"]` and `params["bottom"]` rests *on*
        `params["middle"]` (each within 3 cm xy, faces within 1.2 cm); the old top may
        stand anywhere except on the other two.
    """

    summary = "rebuild a three-block tower upside down"
    category = "memory"

    def __init__(self) -> None:
        super().__init__()
        self.tower: list[str] = []  # bottom, middle, top at the start

    @property
    def params(self) -> dict:
        return dict(zip(("bottom", "middle", "top"), self.tower, strict=True))

    def setup(self, rng: np.random.Generator) -> list[ObjectSpec]:
        extra = int(rng.integers(0, 2))
        blocks = pick_colors(rng, "all", 3 + extra)
        bowls = pick_colors(rng, "all", 2)
        layout = sample_layout(rng, ["bowl", "bowl", "block"] + ["block"] * extra)
        self.specs = [ObjectSpec("bowl", c, (x, y), yaw)
                      for c, (x, y, yaw) in zip(bowls, layout[:2], strict=True)]
        (x, y, yaw), below = layout[2], ""
        for color in blocks[:3]:
            self.specs.append(ObjectSpec("block", color, (x, y), yaw, on=below))
            below = f"{color} block"
        self.specs += [ObjectSpec("block", c, (bx, by), byaw)
                       for c, (bx, by, byaw) in zip(blocks[3:], layout[3:], strict=True)]
        self.tower = [f"{c} block" for c in blocks[:3]]
        self.instruction = pick_template(rng, TEMPLATES)
        return self.specs

    @property
    def n_goal_steps(self) -> int:
        return 3

    def _goal(self) -> list[str]:
        return self.tower[::-1]  # new base (old top) first

    def _base_ok(self, scene: Scene, base: str) -> bool:
        return not set(blocks_below(scene, base)) & set(self.tower)

    def success(self, scene: Scene) -> bool:
        return chain_length(scene, self._goal(), self._base_ok) == 3

    def oracle_step(self, scene: Scene) -> str | None:
        goal = self._goal()
        k = chain_length(scene, goal, self._base_ok)
        if k == len(goal):
            return None
        if k > 0:
            return chain_step(scene, goal, k)
        cover = pile_top(scene, goal[0])
        if cover != goal[0]:
            return park(scene, cover, avoid=goal)
        bowls = empty_bowls(scene)
        return put_in(goal[0], bowls[0]) if bowls else None
