"""put-block-by-relation (reasoning suite, reference): the block is named by where it is."""

from __future__ import annotations

import numpy as np

from ravens_env.tasks.base import (
    LayoutError,
    ObjectSpec,
    pick_colors,
    pick_template,
    scene_specs,
)
from ravens_env.tasks.chosen_block import ChosenBlockIntoBowl

MARGIN = 0.06  # metres: the answer and every other block are this far on their sides
# relation -> (axis: 0 = x, 1 = y; sign of (block - reference) along it for the answer)
RELATIONS = {"left of": (1, -1), "right of": (1, 1), "in front of": (0, 1), "behind": (0, -1)}
TEMPLATES = (
    "put the block {relation} the {reference} in the {bowl}",
    "the block that is {relation} the {reference} goes in the {bowl}",
    "pick up the block {relation} the {reference} and put it in the {bowl}",
)
LAYOUT_TRIES = 200


def relation_answers(specs: list[ObjectSpec], relation: str, reference: str) -> list[str]:
    """Blocks that are `relation` the reference by at least MARGIN — but only when every
    other block (the reference aside) is at least MARGIN on the other side; else []."""
    axis, sign = RELATIONS[relation]
    ref = next(s for s in specs if s.name == reference).xy[axis]
    offsets = {s.name: sign * (s.xy[axis] - ref) for s in specs
               if s.type == "block" and s.name != reference}
    if any(abs(d) < MARGIN for d in offsets.values()):
        return []
    return [name for name, d in offsets.items() if d >= MARGIN]


class PutBlockByRelation(ChosenBlockIntoBowl):
    """Put the block that stands in a given relation to a reference object in a bowl.

    Task Description:
        3-4 blocks and 2-3 empty bowls. The instruction names no block color: it names the
        block by a spatial relation ("left of", "right of", "in front of", "behind", as seen
        from the front camera: +y is right, +x towards the camera) to a reference bowl or
        block, and a target bowl ("put the block left of the red bowl in the blue bowl").
        Exactly one block satisfies the relation; that block must go in the target bowl.

    Randomizations:
        - numbers of blocks (3-4) and bowls (2-3); colors distinct within a type (all colors)
        - relation, reference (any bowl or block other than the target bowl and the answer)
          and target bowl, drawn uniformly among the combinations the layout makes
          unambiguous: the answer is >= 6 cm past the reference along the relation's axis and
          every other block >= 6 cm on the other side (layouts are redrawn until one exists)
        - xy of every object uniform in the workspace without overlaps; yaw uniform
        - instruction template (3)

    Success Conditions:
        The answer block (`params["block"]`) is *in* the target bowl (`params["bowl"]`).
    """

    summary = "put the block named by a spatial relation in a bowl"
    category = "reference"

    def __init__(self) -> None:
        super().__init__("relation", "reference")

    def setup(self, rng: np.random.Generator) -> list[ObjectSpec]:
        blocks = pick_colors(rng, "all", int(rng.integers(3, 5)))
        bowls = pick_colors(rng, "all", int(rng.integers(2, 4)))
        relation = list(RELATIONS)[int(rng.integers(len(RELATIONS)))]
        for _ in range(LAYOUT_TRIES):
            specs = scene_specs(rng, bowls, blocks)
            options = self._options(specs, relation)
            if options:
                break
        else:
            raise LayoutError(f"no layout makes a block uniquely {relation!r} another object")
        block, reference, bowl = options[int(rng.integers(len(options)))]
        self.specs = specs
        self.choice = {"block": block, "relation": relation, "reference": reference,
                       "bowl": bowl}
        self.instruction = pick_template(rng, TEMPLATES, **self.choice)
        return self.specs

    @staticmethod
    def _options(specs: list[ObjectSpec], relation: str) -> list[tuple[str, str, str]]:
        """(answer, reference, target bowl) triples that are unambiguous in this layout."""
        bowls = [s.name for s in specs if s.type == "bowl"]
        out = []
        for ref in (s.name for s in specs):
            answers = relation_answers(specs, relation, ref)
            if len(answers) == 1:
                out += [(answers[0], ref, bowl) for bowl in bowls if bowl != ref]
        return out
