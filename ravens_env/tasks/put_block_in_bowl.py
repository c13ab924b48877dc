"""put-block-in-bowl with CLIPort's seen / unseen color splits."""

from __future__ import annotations

import numpy as np

from ravens_env.scene_graph import Scene
from ravens_env.tasks.base import ObjectSpec, Task, pick_colors, sample_layout


class PutBlockInBowl(Task):
    """Put the named block in the named bowl, among distractors.

    Task Description:
        One block of the pick color and one bowl of the place color, plus distractor blocks
        and bowls of other colors. The instruction names both colors ("put the red block in the
        blue bowl"), as CLIPort's put-block-in-bowl.

    Randomizations:
        - pick and place colors: two different colors from the split (`colors`: "seen",
          "unseen" or "all" — CLIPort's seen/unseen split)
        - 1-3 distractor blocks (colors other than the pick color) and 1-2 distractor bowls
          (colors other than the place color), all colors distinct within a type
        - xy of every object uniform in the workspace without overlaps; block yaw uniform

    Success Conditions:
        The target block is *in* the target bowl (centre within 5 cm xy of the bowl centre and
        its bottom below the rim).
    """

    summary = "put the named block in the named bowl, with distractors"

    def __init__(self, colors: str = "all") -> None:
        super().__init__()
        self.colors = colors
        self.target: tuple[str, str] = ("", "")

    def setup(self, rng: np.random.Generator) -> list[ObjectSpec]:
        pick, place = pick_colors(rng, self.colors, 2)
        n_blocks = int(rng.integers(1, 4))
        n_bowls = int(rng.integers(1, 3))
        block_colors = [pick, *pick_colors(rng, self.colors, n_blocks, exclude=(pick,))]
        bowl_colors = [place, *pick_colors(rng, self.colors, n_bowls, exclude=(place,))]
        layout = sample_layout(rng, ["bowl"] * len(bowl_colors) + ["block"] * len(block_colors))
        kinds = [("bowl", c) for c in bowl_colors] + [("block", c) for c in block_colors]
        self.specs = [ObjectSpec(k, c, (x, y), yaw)
                      for (k, c), (x, y, yaw) in zip(kinds, layout, strict=True)]
        self.target = (f"{pick} block", f"{place} bowl")
        self.instruction = f"put the {pick} block in the {place} bowl"
        return self.specs

    @property
    def params(self) -> dict:
        return {"pick": self.target[0], "place": self.target[1]}

    @property
    def n_goal_steps(self) -> int:
        return 1

    def success(self, scene: Scene) -> bool:
        return scene.container_of(self.target[0]) == self.target[1]

    def oracle_step(self, scene: Scene) -> str | None:
        return None if self.success(scene) else self.instruction


class PutBlockInBowlSeen(PutBlockInBowl):
    __doc__ = PutBlockInBowl.__doc__
    summary = "put-block-in-bowl with CLIPort's seen (training) colors"

    def __init__(self) -> None:
        super().__init__(colors="seen")


class PutBlockInBowlUnseen(PutBlockInBowl):
    __doc__ = PutBlockInBowl.__doc__
    summary = "put-block-in-bowl with CLIPort's unseen (evaluation) colors"

    def __init__(self) -> None:
        super().__init__(colors="unseen")
