"""rainbow-order-tower (reasoning suite, world-knowledge): stack in the rainbow's order."""

from __future__ import annotations

import numpy as np

from ravens_env.colors import RAINBOW
from ravens_env.scene_graph import TABLE, Scene
from ravens_env.tasks.base import ObjectSpec, Task, pick_from, pick_template, scene_specs
from ravens_env.tasks.oracle_steps import chain_length, chain_step

# The rainbow's order as our colors name it (indigo and violet read as purple). Other colors
# (pink, cyan, brown, white, gray) have no place in it and never appear.
TEMPLATES = (
    "stack the blocks in rainbow order from the bottom up",
    "build a tower with the colors in rainbow order, bottom to top",
    "stack the blocks so their colors follow the rainbow, starting at the bottom",
)


def _on_table(scene: Scene, block: str) -> bool:
    return scene.support_of(block) == TABLE


class RainbowOrderTower(Task):
    """Stack three blocks into one tower in rainbow order, bottom to top.

    Task Description:
        Three blocks of rainbow colors stand on the table (no bowls). They must form one
        tower whose colors follow the rainbow (red, orange, yellow, green, blue, purple)
        from the bottom up; knowing the rainbow's order tells which block is the base.

    Randomizations:
        - three distinct colors from the six rainbow colors (others never appear)
        - xy of every block uniform in the workspace without overlaps; yaw uniform
        - instruction template (3)

    Success Conditions:
        The block earliest in the rainbow stands on the table, the next rests *on* it and
        the last *on* that one (each within 3 cm xy, faces within 1.2 cm).
    """

    summary = "stack three blocks in rainbow order (world knowledge)"
    category = "world-knowledge"

    def __init__(self) -> None:
        super().__init__()
        self.colors: list[str] = []  # bottom to top

    @property
    def params(self) -> dict:
        return {"colors": list(self.colors)}

    def setup(self, rng: np.random.Generator) -> list[ObjectSpec]:
        colors = pick_from(rng, RAINBOW, 3)
        self.specs = scene_specs(rng, [], colors)
        self.colors = sorted(colors, key=RAINBOW.index)
        self.instruction = pick_template(rng, TEMPLATES)
        return self.specs

    @property
    def n_goal_steps(self) -> int:
        return 2

    def _chain(self) -> list[str]:
        return [f"{c} block" for c in self.colors]

    def success(self, scene: Scene) -> bool:
        return chain_length(scene, self._chain(), _on_table) == 3

    def oracle_step(self, scene: Scene) -> str | None:
        k = chain_length(scene, self._chain(), _on_table)
        return chain_step(scene, self._chain(), k, bowls=False) if 0 < k < 3 else None
