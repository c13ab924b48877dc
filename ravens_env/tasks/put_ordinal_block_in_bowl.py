"""put-ordinal-block-in-bowl (reasoning suite, reference): "the second block from the left"."""

from __future__ import annotations

import itertools

import numpy as np

from ravens_env.tasks.base import (
    LayoutError,
    ObjectSpec,
    pick_colors,
    pick_template,
    scene_specs,
)
from ravens_env.tasks.chosen_block import ChosenBlockIntoBowl

MARGIN = 0.06  # metres: every two blocks are at least this far apart along y
# ordinal -> index into the blocks sorted left to right (by y: +y is right)
ORDINALS = {"leftmost": 0, "rightmost": -1, "second from the left": 1,
            "second from the right": -2}
TEMPLATES = (
    "put the {ordinal} block in the {bowl}",
    "the {ordinal} block goes in the {bowl}",
    "pick up the {ordinal} block and put it in the {bowl}",
)
LAYOUT_TRIES = 200


def left_to_right(specs: list[ObjectSpec]) -> list[str]:
    """Block names sorted by y, left (smaller y) first."""
    return [s.name for s in sorted((s for s in specs if s.type == "block"),
                                   key=lambda s: s.xy[1])]


def y_gaps_ok(specs: list[ObjectSpec]) -> bool:
    """Every two blocks are at least MARGIN apart along y."""
    ys = [s.xy[1] for s in specs if s.type == "block"]
    return all(abs(a - b) >= MARGIN for a, b in itertools.combinations(ys, 2))


class PutOrdinalBlockInBowl(ChosenBlockIntoBowl):
    """Put the block at a given left-to-right rank in the named bowl.

    Task Description:
        3-4 blocks and 2-3 empty bowls. The instruction names the block by its rank from the
        left or right as seen from the front camera (+y is right): "leftmost", "rightmost",
        "second from the left" or "second from the right", and names a target bowl. That
        block must go in the bowl.

    Randomizations:
        - numbers of blocks (3-4) and bowls (2-3); colors distinct within a type (all colors)
        - ordinal (4 choices) and target bowl, uniform
        - xy of every object uniform in the workspace without overlaps, redrawn until every
          two blocks are >= 6 cm apart along y (so the ranking is never a near tie)
        - instruction template (3)

    Success Conditions:
        The answer block (`params["block"]`, fixed at reset) is *in* the target bowl.
    """

    summary = "put the leftmost / rightmost / second block in a bowl"
    category = "reference"

    def __init__(self) -> None:
        super().__init__("ordinal")

    def setup(self, rng: np.random.Generator) -> list[ObjectSpec]:
        blocks = pick_colors(rng, "all", int(rng.integers(3, 5)))
        bowls = pick_colors(rng, "all", int(rng.integers(2, 4)))
        ordinal = list(ORDINALS)[int(rng.integers(len(ORDINALS)))]
        bowl = f"{bowls[int(rng.integers(len(bowls)))]} bowl"
        for _ in range(LAYOUT_TRIES):
            self.specs = scene_specs(rng, bowls, blocks)
            if y_gaps_ok(self.specs):
                break
        else:
            raise LayoutError("no layout with every two blocks 6 cm apart along y")
        block = left_to_right(self.specs)[ORDINALS[ordinal]]
        self.choice = {"block": block, "ordinal": ordinal, "bowl": bowl}
        self.instruction = pick_template(rng, TEMPLATES, **self.choice)
        return self.specs
