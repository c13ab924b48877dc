"""one-block-per-bowl (reasoning suite, common-sense): fill every bowl, one block each."""

from __future__ import annotations

import numpy as np

from ravens_env.scene_graph import Scene
from ravens_env.tasks.base import ObjectSpec, Task, pick_colors, pick_template, scene_specs
from ravens_env.tasks.oracle_steps import blocks_in_bowls, clear_blocks, empty_bowls, put_in

TEMPLATES = (
    "give each bowl exactly one block",
    "make sure every bowl has a block in it",
    "put one block in each bowl",
)


class OneBlockPerBowl(Task):
    """Give every bowl exactly one block; the blocks left over stay out.

    Task Description:
        2-3 bowls and one or two more blocks than bowls; one bowl may already hold a block.
        Every bowl must end up holding exactly one block. Which block goes where does not
        matter; common sense says a bowl that already has one is done, and the blocks left
        over are not forced anywhere (a block on a block in a bowl is not *in* it).

    Randomizations:
        - bowls: 2-3; blocks: bowls + 1 or + 2; colors distinct within a type (all colors)
        - a block starting in a bowl (`ObjectSpec.on`): none or one (probability 0.5)
        - xy of every bowl and table block uniform without overlaps; yaw uniform
        - instruction template (3)

    Success Conditions:
        Every bowl has exactly one block *in* it.
    """

    summary = "give each bowl exactly one block (common sense)"
    category = "common-sense"

    def setup(self, rng: np.random.Generator) -> list[ObjectSpec]:
        n_bowls = int(rng.integers(2, 4))
        bowls = pick_colors(rng, "all", n_bowls)
        blocks = pick_colors(rng, "all", n_bowls + int(rng.integers(1, 3)))
        inside = {blocks[int(rng.integers(len(blocks)))]: bowls[int(rng.integers(n_bowls))]
                  } if rng.random() < 0.5 else {}
        self.specs = scene_specs(rng, bowls, blocks, inside)
        self.instruction = pick_template(rng, TEMPLATES)
        return self.specs

    @property
    def n_goal_steps(self) -> int:
        return sum(1 for s in self.specs if s.type == "bowl")

    def success(self, scene: Scene) -> bool:
        return all(len(scene.related("in", b.name)) == 1 for b in scene.of_type("bowl"))

    def oracle_step(self, scene: Scene) -> str | None:
        bowls = empty_bowls(scene)
        free = clear_blocks(scene, avoid=blocks_in_bowls(scene))
        return put_in(free[0], bowls[0]) if bowls and free else None
