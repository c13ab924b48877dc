"""empty-the-bowl (reasoning suite, common-sense): take the block out, somewhere sensible."""

from __future__ import annotations

import numpy as np

from ravens_env.geometry import in_workspace
from ravens_env.scene_graph import Scene
from ravens_env.tasks.base import ObjectSpec, Task, pick_colors, pick_template, scene_specs
from ravens_env.tasks.oracle_steps import empty_bowls, pile_above, pile_top, put_in, stack_somewhere

TEMPLATES = (
    "empty the {bowl}",
    "I need the {bowl} empty",
    "take the block out of the {bowl}",
)


class EmptyTheBowl(Task):
    """Empty the named bowl.

    Task Description:
        2-3 bowls and 2-3 blocks; one block starts in the named bowl, the other bowls are
        empty and the other blocks stand on the table. The bowl must end up empty. There is
        no "put it on the table" action: the block goes in another bowl or on another block.

    Randomizations:
        - bowls: 2-3, blocks: 2-3, colors distinct within a type (all colors)
        - the named bowl and the block in it (`ObjectSpec.on`)
        - xy of every bowl and table block uniform without overlaps; yaw uniform
        - instruction template (3)

    Success Conditions:
        No block is *in* the named bowl, and every block is still over the workspace (none
        was pushed off the table).
    """

    summary = "empty the named bowl (common sense)"
    category = "common-sense"

    def __init__(self) -> None:
        super().__init__()
        self.choice = {"bowl": "", "block": ""}

    @property
    def params(self) -> dict:
        return dict(self.choice)

    def setup(self, rng: np.random.Generator) -> list[ObjectSpec]:
        bowls = pick_colors(rng, "all", int(rng.integers(2, 4)))
        blocks = pick_colors(rng, "all", int(rng.integers(2, 4)))
        bowl, block = bowls[int(rng.integers(len(bowls)))], blocks[int(rng.integers(len(blocks)))]
        self.specs = scene_specs(rng, bowls, blocks, {block: bowl})
        self.choice = {"bowl": f"{bowl} bowl", "block": f"{block} block"}
        self.instruction = pick_template(rng, TEMPLATES, **self.choice)
        return self.specs

    @property
    def n_goal_steps(self) -> int:
        return 1

    def success(self, scene: Scene) -> bool:
        on_table = all(in_workspace((*b.position[:2], 0.0)) for b in scene.of_type("block"))
        return on_table and not scene.related("in", self.choice["bowl"])

    def oracle_step(self, scene: Scene) -> str | None:
        inside = scene.related("in", self.choice["bowl"])
        if not inside:
            return None
        top = pile_top(scene, inside[0])
        bowls = empty_bowls(scene, exclude=[self.choice["bowl"]])
        if bowls:
            return put_in(top, bowls[0])
        return stack_somewhere(scene, top, avoid=pile_above(scene, inside[0]))
