"""swap-blocks-in-bowls (reasoning suite, memory): exchange two blocks between their bowls."""

from __future__ import annotations

import numpy as np

from ravens_env.scene_graph import Scene
from ravens_env.tasks.base import ObjectSpec, Task, pick_colors, pick_template, scene_specs
from ravens_env.tasks.oracle_steps import assignment_step

TEMPLATES = (
    "swap the {first} and the {second}",
    "exchange the places of the {first} and the {second}",
    "switch the {first} with the {second}",
)


class SwapBlocksInBowls(Task):
    """Swap two blocks that sit in two bowls.

    Task Description:
        Two blocks each start in a bowl, a third bowl is empty, and sometimes one more block
        stands on the table. The instruction names the two blocks; each must end up in the
        bowl the other started in. A bowl holds one block, so a swap takes three moves
        through the spare bowl — and the start bowls must be remembered once they are empty.

    Randomizations:
        - 3 bowls and 2-3 blocks, colors distinct within a type (all colors)
        - which two blocks start in which two bowls (`ObjectSpec.on`); the other bowl is spare
        - the other block on the table: none or one (probability 0.5)
        - xy of every bowl and table block uniform without overlaps; yaw uniform
        - instruction template (3)

    Success Conditions:
        `params["first"]` is *in* `params["second_bowl"]` and `params["second"]` is *in*
        `params["first_bowl"]`.
    """

    summary = "swap two blocks between their bowls"
    category = "memory"

    def __init__(self) -> None:
        super().__init__()
        self.choice = {"first": "", "second": "", "first_bowl": "", "second_bowl": ""}

    @property
    def params(self) -> dict:
        return dict(self.choice)

    def setup(self, rng: np.random.Generator) -> list[ObjectSpec]:
        blocks = pick_colors(rng, "all", 2 + int(rng.integers(0, 2)))
        bowls = pick_colors(rng, "all", 3)
        b, w = rng.permutation(len(blocks)), rng.permutation(3)  # roles, not scene order
        first, second = blocks[b[0]], blocks[b[1]]
        first_bowl, second_bowl = bowls[w[0]], bowls[w[1]]
        self.specs = scene_specs(rng, bowls, blocks, {first: first_bowl, second: second_bowl})
        self.choice = {"first": f"{first} block", "second": f"{second} block",
                       "first_bowl": f"{first_bowl} bowl", "second_bowl": f"{second_bowl} bowl"}
        self.instruction = pick_template(rng, TEMPLATES, **self.choice)
        return self.specs

    @property
    def n_goal_steps(self) -> int:
        return 3

    def _goal(self) -> dict[str, str]:
        c = self.choice
        return {c["first"]: c["second_bowl"], c["second"]: c["first_bowl"]}

    def success(self, scene: Scene) -> bool:
        return all(scene.container_of(b) == bowl for b, bowl in self._goal().items())

    def oracle_step(self, scene: Scene) -> str | None:
        return assignment_step(scene, self._goal())
