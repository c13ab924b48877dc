"""put-darker-blocks-in-matching-bowls (the seed paper's darker-shade variant)."""

from __future__ import annotations

from ravens_env.tasks.put_blocks_in_matching_bowls import PutBlocksInMatchingBowls


class PutDarkerBlocksInMatchingBowls(PutBlocksInMatchingBowls):
    """Put every darker-shaded block in the bowl of its (lighter) color.

    Task Description:
        As put-blocks-in-matching-bowls, but each block is a darker shade of its bowl's color
        (RGB scaled by `colors.DARK_FACTOR`), so color matching must look past brightness.

    Randomizations:
        - number of block/bowl pairs: 3 or 4
        - colors: distinct, from the chosen split without white and gray (whose darker shades
          would be the same gray)
        - xy of every object uniform in the workspace without overlaps; block yaw uniform

    Success Conditions:
        Each block is *in* the bowl of its color name (centre within 5 cm xy, below the rim).
    """

    summary = "put every darker block in the bowl of its color"
    shade = "dark"
    excluded_colors = ("white", "gray")
    canonical = "put the darker blocks in the bowls with matching colors"
