"""put-blocks-in-mismatched-bowls (the seed paper's "different color" task)."""

from __future__ import annotations

import numpy as np

from ravens_env.scene_graph import Scene
from ravens_env.tasks.base import ObjectSpec, Task, pick_colors, sample_layout


class PutBlocksInMismatchedBowls(Task):
    """Put every block in a bowl of a different color, one block per bowl.

    Task Description:
        Blocks and bowls share the same set of colors. Every block must end up inside a bowl
        whose color differs from its own; a bowl holds one block (a second would stack on the
        first and not be *in* the bowl).

    Randomizations:
        - number of block/bowl pairs: 3 or 4
        - colors: distinct, drawn from CLIPort's color split (`colors`, default "all")
        - xy of every object uniform in the workspace without overlaps; block yaw uniform

    Success Conditions:
        Each block is *in* some bowl (centre within 5 cm xy, below the rim) whose color is not
        the block's color.
    """

    summary = "put every block in a bowl of a different color"

    def __init__(self, colors: str = "all", pairs: tuple[int, int] = (3, 4)) -> None:
        super().__init__()
        self.colors, self.pairs = colors, pairs

    def setup(self, rng: np.random.Generator) -> list[ObjectSpec]:
        n = int(rng.integers(self.pairs[0], self.pairs[1] + 1))
        colors = pick_colors(rng, self.colors, n)
        layout = sample_layout(rng, ["bowl"] * n + ["block"] * n)
        self.specs = [ObjectSpec("bowl", c, (x, y), yaw)
                      for c, (x, y, yaw) in zip(colors, layout[:n], strict=True)]
        self.specs += [ObjectSpec("block", c, (x, y), yaw)
                       for c, (x, y, yaw) in zip(colors, layout[n:], strict=True)]
        self.instruction = "put the blocks in bowls of a different color"
        return self.specs

    @staticmethod
    def _ok(scene: Scene, block: str) -> bool:
        bowl = scene.container_of(block)
        return bowl is not None and scene.get(bowl).color != scene.get(block).color

    def success(self, scene: Scene) -> bool:
        return all(self._ok(scene, b) for b in self.blocks(scene))

    def oracle_step(self, scene: Scene) -> str | None:
        pending = [b for b in self.blocks(scene) if not self._ok(scene, b)]
        if not pending:
            return None
        block = pending[0]
        color = scene.get(block).color
        empty = [o.name for o in scene.of_type("bowl") if not scene.related("in", o.name)]
        for bowl in empty:
            if scene.get(bowl).color != color:
                return f"put the {block} in the {bowl}"
        if not empty:
            return None  # more blocks than bowls: no step can help
        # Only the block's own-color bowl is free: move a placed block into it first.
        for other in self.blocks(scene):
            if other != block and scene.container_of(other) is not None:
                return f"put the {other} in the {empty[0]}"
        return None
