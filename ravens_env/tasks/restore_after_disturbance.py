"""restore-after-disturbance (reasoning suite, memory): undo a change and a disturbance."""

from __future__ import annotations

import numpy as np

from ravens_env.scene_graph import Scene
from ravens_env.tasks.base import (
    ObjectSpec,
    Task,
    draw_spot,
    pick_colors,
    pick_template,
    scene_specs,
)
from ravens_env.tasks.oracle_steps import assignment_step

SPOT_CLEARANCE = 0.08  # metres between the disturbance's spot and every object's footprint
DISTURB_AFTER = 1  # the step after which the disturbance moves a block
TEMPLATES = (
    "put the {moved} in the {spare}, then put every block back where it started",
    "move the {moved} into the {spare} and afterwards restore the initial arrangement",
    "put the {moved} in the {spare}; then return all the blocks to the bowls they started in",
)


class RestoreAfterDisturbance(Task):
    """Move a block into the spare bowl, then restore the start — after a disturbance.

    Task Description:
        Three blocks each start in a bowl of their own; two more bowls are empty, one of them
        the named spare. The instruction asks to put one block in the spare bowl and then to
        put every block back in the bowl it started in. After the first executed pick-place
        (whatever it did) another block is moved out of its bowl onto the table, as if
        someone bumped it (`after_step`; the env records the situation "disturbance"). Only
        memory of the start says where it belongs.

    Randomizations:
        - 5 bowls and 3 blocks, colors distinct within a type (all colors)
        - which bowl each block starts in (`ObjectSpec.on`), the moved block, the spare
          bowl (one of the two empty ones) and the disturbed block (not the moved one)
        - the table spot the disturbed block lands on: >= 8 cm from every object's
          footprint at the start
        - xy of every bowl uniform without overlaps; yaw uniform
        - instruction template (3)

    Success Conditions:
        The moved block was *in* the spare bowl after some step (recorded by `after_step`),
        and every block is *in* the bowl it started in.
    """

    summary = "put a block in the spare bowl, then restore the start after a disturbance"
    category = "memory"

    def __init__(self) -> None:
        super().__init__()
        self.choice = {"moved": "", "spare": "", "disturbed": ""}
        self.start: dict[str, str] = {}  # block -> the bowl it started in
        self.spot = (0.0, 0.0)
        self.was_in_spare = False

    @property
    def params(self) -> dict:
        return dict(self.choice)

    def setup(self, rng: np.random.Generator) -> list[ObjectSpec]:
        blocks = pick_colors(rng, "all", 3)
        bowls = pick_colors(rng, "all", 5)
        order = rng.permutation(5)  # bowls by role: three start bowls, then the two empty
        homes = [bowls[i] for i in order[:3]]
        self.specs = scene_specs(rng, bowls, blocks, dict(zip(blocks, homes, strict=True)))
        self.start = {f"{b} block": f"{w} bowl" for b, w in zip(blocks, homes, strict=True)}
        self.spot = draw_spot(rng, self.specs, SPOT_CLEARANCE)
        roles = rng.permutation(3)
        self.choice = {"moved": f"{blocks[roles[0]]} block",
                       "spare": f"{bowls[order[3 + int(rng.integers(2))]]} bowl",
                       "disturbed": f"{blocks[roles[1]]} block"}
        self.instruction = pick_template(rng, TEMPLATES, **self.choice)
        return self.specs

    @property
    def n_goal_steps(self) -> int:
        return 3

    def after_step(self, scene: Scene, step: int) -> list[tuple[str, tuple[float, float]]]:
        if scene.container_of(self.choice["moved"]) == self.choice["spare"]:
            self.was_in_spare = True
        return [(self.choice["disturbed"], self.spot)] if step == DISTURB_AFTER else []

    def _restored(self, scene: Scene) -> bool:
        return all(scene.container_of(b) == bowl for b, bowl in self.start.items())

    def success(self, scene: Scene) -> bool:
        return self.was_in_spare and self._restored(scene)

    def oracle_step(self, scene: Scene) -> str | None:
        if not self.was_in_spare:
            return assignment_step(scene, {self.choice["moved"]: self.choice["spare"]})
        return assignment_step(scene, self.start)
