"""primary-colors-in-bowls (reasoning suite, world-knowledge): the painter's primaries."""

from __future__ import annotations

import numpy as np

from ravens_env.colors import ALL_COLORS, PRIMARY
from ravens_env.tasks.base import pick_from
from ravens_env.tasks.subset_in_bowls import ColorDraw, SubsetInBowls

# The painter's (RYB) primaries. Green is a primary of light (RGB), so a reader could call it
# primary too: it never appears, on blocks or bowls. Every other color is secondary or mixed.
NON_PRIMARY = ("orange", "purple", "pink", "brown", "cyan", "white", "gray")


class PrimaryColorsInBowls(SubsetInBowls):
    """Put the blocks of primary colors in bowls.

    Task Description:
        1-3 blocks of the painter's primary colors (red, yellow, blue) and 1-2 of other
        colors (orange, purple, pink, brown, cyan, white, gray) stand on the table, with one
        bowl more than there are primary blocks. Knowing the primaries tells which blocks go
        in bowls. Green never appears (it is a primary of light, RGB), on blocks or bowls.

    Randomizations:
        - primary blocks: 1-3, other blocks: 1-2, colors distinct
        - bowls: primary count + 1, colors distinct from all colors but green
        - xy of every object uniform in the workspace without overlaps; yaw uniform
        - instruction template (3)

    Success Conditions:
        Every primary-colored block is *in* a bowl, each in a different bowl, and no other
        block is in a bowl.
    """

    summary = "put the blocks of primary colors in bowls (world knowledge)"
    category = "world-knowledge"
    templates = (
        "put the blocks of primary colors in bowls",
        "put every primary colored block in a bowl",
        "only the blocks in primary colors go in bowls",
    )

    def draw(self, rng: np.random.Generator) -> ColorDraw:
        primaries = pick_from(rng, PRIMARY, int(rng.integers(1, 4)))
        others = pick_from(rng, NON_PRIMARY, int(rng.integers(1, 3)))
        self._params = {}
        bowl_pool = tuple(c for c in ALL_COLORS if c != "green")
        return ColorDraw(primaries, others, len(primaries) + 1, bowl_pool)
