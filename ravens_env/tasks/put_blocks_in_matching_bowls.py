"""put-blocks-in-matching-bowls (the seed paper's first task)."""

from __future__ import annotations

import numpy as np

from ravens_env.scene_graph import Scene
from ravens_env.tasks.base import ObjectSpec, Task, pick_colors, sample_layout


class PutBlocksInMatchingBowls(Task):
    """Put every block in the bowl of its own color.

    Task Description:
        Blocks and bowls stand on the table, one bowl for each block color. Every block must
        end up inside the bowl that has its color.

    Randomizations:
        - number of block/bowl pairs: 3 or 4
        - colors: distinct, drawn from CLIPort's color split (`colors`, default "all")
        - xy of every object uniform in the workspace without overlaps; block yaw uniform
        - `shade="dark"` (the darker variant) renders blocks darker than their bowls

    Success Conditions:
        Each block is *in* its matching bowl: block centre within 5 cm (xy) of the bowl
        centre and its bottom below the rim (see `scene_graph.IN_RADIUS`).
    """

    summary = "put every block in the bowl of the same color"
    shade = ""
    excluded_colors: tuple[str, ...] = ()
    canonical = "put the blocks in the bowls with matching colors"

    def __init__(self, colors: str = "all", pairs: tuple[int, int] = (3, 4)) -> None:
        super().__init__()
        self.colors, self.pairs = colors, pairs

    def setup(self, rng: np.random.Generator) -> list[ObjectSpec]:
        n = int(rng.integers(self.pairs[0], self.pairs[1] + 1))
        colors = pick_colors(rng, self.colors, n, exclude=self.excluded_colors)
        layout = sample_layout(rng, ["bowl"] * n + ["block"] * n)
        bowls = [ObjectSpec("bowl", c, (x, y), yaw)
                 for c, (x, y, yaw) in zip(colors, layout[:n], strict=True)]
        blocks = [ObjectSpec("block", c, (x, y), yaw, self.shade)
                  for c, (x, y, yaw) in zip(colors, layout[n:], strict=True)]
        self.specs = bowls + blocks
        self.instruction = self.canonical
        return self.specs

    def _target(self, block: str) -> str:
        return block.replace(" block", " bowl")

    def success(self, scene: Scene) -> bool:
        return all(scene.container_of(b) == self._target(b) for b in self.blocks(scene))

    def oracle_step(self, scene: Scene) -> str | None:
        for block in self.blocks(scene):
            if scene.container_of(block) != self._target(block):
                return f"put the {block} in the {self._target(block)}"
        return None
