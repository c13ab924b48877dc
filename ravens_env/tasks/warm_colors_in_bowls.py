"""warm-colors-in-bowls (reasoning suite, world-knowledge): warm or cool colored blocks."""

from __future__ import annotations

import numpy as np

from ravens_env.colors import COOL, WARM
from ravens_env.tasks.base import pick_from
from ravens_env.tasks.subset_in_bowls import ColorDraw, SubsetInBowls

# Color temperature as a color wheel splits it. Pink, brown, white and gray are borderline
# (pink can read warm, white and gray neutral, brown warm or earth) and never appear.
# (warm blocks, cool blocks): one or two of each, at least three blocks in all
MIXES = ((1, 2), (2, 1), (2, 2))


class WarmColorsInBowls(SubsetInBowls):
    """Put the warm (or the cool) colored blocks in bowls.

    Task Description:
        Blocks of warm colors (red, orange, yellow) and cool colors (blue, green, purple,
        cyan) stand on the table with one bowl more than there are target blocks. The
        instruction asks for the "warm" or the "cool" colored blocks; knowing color
        temperature tells which go in bowls. Pink, brown, white and gray are borderline and
        never used, on blocks or bowls.

    Randomizations:
        - temperature: warm or cool (probability 0.5)
        - block mix (warm, cool): (1, 2), (2, 1) or (2, 2), colors distinct within each set
        - bowls: target count + 1, colors distinct from the warm and cool colors
        - xy of every object uniform in the workspace without overlaps; yaw uniform
        - instruction template (3)

    Success Conditions:
        Every block of the asked temperature is *in* a bowl, each in a different bowl, and
        no other block is in a bowl.
    """

    summary = "put the warm (or cool) colored blocks in bowls (world knowledge)"
    category = "world-knowledge"
    templates = (
        "put the {temperature} colored blocks in bowls",
        "put every block with a {temperature} color in a bowl",
        "only the {temperature} colored blocks go in bowls",
    )

    def draw(self, rng: np.random.Generator) -> ColorDraw:
        temperature = "warm" if rng.random() < 0.5 else "cool"
        n_warm, n_cool = MIXES[int(rng.integers(len(MIXES)))]
        warm, cool = pick_from(rng, WARM, n_warm), pick_from(rng, COOL, n_cool)
        targets, others = (warm, cool) if temperature == "warm" else (cool, warm)
        self._params = {"temperature": temperature}
        return ColorDraw(targets, others, len(targets) + 1, WARM + COOL)
