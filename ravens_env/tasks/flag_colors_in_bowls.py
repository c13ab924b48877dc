"""flag-colors-in-bowls (reasoning suite, world-knowledge): the colors of a national flag."""

from __future__ import annotations

import numpy as np

from ravens_env.colors import ALL_COLORS, FLAGS
from ravens_env.tasks.base import pick_from
from ravens_env.tasks.subset_in_bowls import ColorDraw, SubsetInBowls


class FlagColorsInBowls(SubsetInBowls):
    """Put the blocks in the colors of a named country's flag in bowls.

    Task Description:
        The blocks are the flag's colors plus one or two distractors of other colors; there
        is one bowl more than the flag has colors. The instruction names the country or its
        adjective ("the French flag"); knowing the flag's colors tells which blocks go in
        bowls. Flags (all of whose stripe colors exist here): France, Italy, Ireland, India
        (saffron read as orange; the navy wheel is left out), Romania, Netherlands, Ukraine,
        Poland.

    Randomizations:
        - the country, uniform over the eight flags
        - distractor blocks: 1-2, colors not in the flag (all colors otherwise)
        - bowls: the flag's color count + 1, colors distinct (all colors)
        - xy of every object uniform in the workspace without overlaps; yaw uniform
        - instruction template (3)

    Success Conditions:
        Every flag-colored block is *in* a bowl, each in a different bowl, and no other
        block is in a bowl.
    """

    summary = "put the blocks in the colors of a country's flag in bowls (world knowledge)"
    category = "world-knowledge"
    templates = (
        "put the blocks in the colors of the {adjective} flag in bowls",
        "put the blocks that make up the flag of {country} in bowls",
        "put the {country} flag colored blocks in bowls",
    )

    def draw(self, rng: np.random.Generator) -> ColorDraw:
        country = sorted(FLAGS)[int(rng.integers(len(FLAGS)))]
        adjective, colors = FLAGS[country]
        self._params = {"country": country, "adjective": adjective, "flag_colors": list(colors)}
        others = pick_from(rng, ALL_COLORS, int(rng.integers(1, 3)), exclude=colors)
        return ColorDraw(list(colors), others, len(colors) + 1, ALL_COLORS)
