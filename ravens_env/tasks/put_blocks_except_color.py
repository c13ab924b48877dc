"""put-blocks-except-color (reasoning suite, reference): negation — all blocks but one."""

from __future__ import annotations

import numpy as np

from ravens_env.colors import ALL_COLORS
from ravens_env.tasks.base import pick_from
from ravens_env.tasks.subset_in_bowls import ColorDraw, SubsetInBowls


class PutBlocksExceptColor(SubsetInBowls):
    """Put every block in a bowl except the one of the excluded color.

    Task Description:
        3-4 blocks of distinct colors and enough bowls for all but one of them (sometimes
        one spare). The instruction excludes one block by color ("every block except the red
        block", "the blocks that are not red"); every other block must go in a bowl, one per
        bowl, and the excluded block must stay out of the bowls.

    Randomizations:
        - blocks: 3-4, colors distinct from all colors; the excluded one uniform among them
        - bowls: blocks - 1, plus one spare with probability 0.5; colors distinct (all colors)
        - xy of every object uniform in the workspace without overlaps; yaw uniform
        - instruction template (3)

    Success Conditions:
        Every block but the excluded one is *in* a bowl, each in a different bowl, and the
        excluded block is in no bowl.
    """

    summary = "put every block except the one of a named color in bowls (negation)"
    category = "reference"
    templates = (
        "put every block except the {excluded} in a bowl",
        "put all the blocks but the {excluded_color} one in bowls",
        "put the blocks that are not {excluded_color} in bowls",
    )

    def draw(self, rng: np.random.Generator) -> ColorDraw:
        colors = pick_from(rng, ALL_COLORS, int(rng.integers(3, 5)))
        excluded = colors[int(rng.integers(len(colors)))]
        self._params = {"excluded": f"{excluded} block", "excluded_color": excluded}
        targets = [c for c in colors if c != excluded]
        return ColorDraw(targets, [excluded], len(targets) + int(rng.integers(0, 2)), ALL_COLORS)
