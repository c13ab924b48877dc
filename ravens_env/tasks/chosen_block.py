"""The shared shape of the reference tasks: one block, named by where it is, into one bowl.

Why: put-block-by-relation and put-ordinal-block-in-bowl differ only in how the block is
picked out (a relation to another object, a place in the left-right row) and worded; the
goal, its check and the oracle are the same. This abstract base is not registered.
"""

from __future__ import annotations

from ravens_env.scene_graph import Scene
from ravens_env.tasks.base import Task
from ravens_env.tasks.oracle_steps import assignment_step


class ChosenBlockIntoBowl(Task):
    """`self.choice` holds the episode's params, among them "block" (the answer) and "bowl"."""

    def __init__(self, *names: str) -> None:
        super().__init__()
        self.choice = dict.fromkeys(("block", *names, "bowl"), "")

    @property
    def params(self) -> dict:
        return dict(self.choice)

    @property
    def n_goal_steps(self) -> int:
        return 1

    def success(self, scene: Scene) -> bool:
        return scene.container_of(self.choice["block"]) == self.choice["bowl"]

    def oracle_step(self, scene: Scene) -> str | None:
        return assignment_step(scene, {self.choice["block"]: self.choice["bowl"]})
