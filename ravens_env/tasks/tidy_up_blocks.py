"""tidy-up-blocks (reasoning suite, common-sense): "tidy up" means every block in a bowl."""

from __future__ import annotations

import numpy as np

from ravens_env.colors import ALL_COLORS
from ravens_env.tasks.base import pick_from
from ravens_env.tasks.subset_in_bowls import ColorDraw, SubsetInBowls


class TidyUpBlocks(SubsetInBowls):
    """Tidy up: put every block away in a bowl.

    Task Description:
        2-4 blocks on the table and as many bowls (sometimes one more). The instruction says
        only "tidy up", "put the blocks away" and the like; common sense reads it as every
        block put away in a bowl, one block per bowl.

    Randomizations:
        - blocks: 2-4, colors distinct (all colors); bowls: as many, or one more
          (probability 0.5), colors distinct (all colors)
        - xy of every object uniform in the workspace without overlaps; yaw uniform
        - instruction template (4)

    Success Conditions:
        Every block is *in* a bowl, each in a different bowl.
    """

    summary = "tidy up the table: every block in a bowl (common sense)"
    category = "common-sense"
    templates = (
        "tidy up the table",
        "put the blocks away",
        "clean up the blocks",
        "clear the blocks off the table",
    )

    def draw(self, rng: np.random.Generator) -> ColorDraw:
        colors = pick_from(rng, ALL_COLORS, int(rng.integers(2, 5)))
        self._params = {}
        return ColorDraw(colors, [], len(colors) + int(rng.integers(0, 2)), ALL_COLORS)
