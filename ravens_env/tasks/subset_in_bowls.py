"""The shared shape of the "these blocks go in bowls, the others stay out" reasoning tasks.

Why: tidy-up, negation ("every block except the red one"), flags, warm/cool colors and
primary colors differ only in which blocks are the targets and how the instruction names
them. This abstract base (not registered) holds the scene, the success check and the oracle;
each task file draws its colors and words its instruction.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar, NamedTuple

import numpy as np

from ravens_env.scene_graph import Scene
from ravens_env.tasks.base import ObjectSpec, Task, pick_from, pick_template, scene_specs
from ravens_env.tasks.oracle_steps import (
    blocks_in_bowls,
    clear_blocks,
    empty_bowls,
    pile_top,
    put_in,
    stack_somewhere,
)


class ColorDraw(NamedTuple):
    """One episode's colors: target blocks, other blocks, and the bowls' count and palette."""

    targets: list[str]
    others: list[str]
    n_bowls: int
    bowl_pool: tuple[str, ...]


class SubsetInBowls(Task):
    """A subset of the blocks goes into bowls, one block per bowl; the others stay out.

    Task Description:
        Blocks and bowls stand on the table. The instruction picks out some of the blocks
        (by a rule each task defines); each of them must end up in a bowl, and every other
        block must not be in a bowl. A bowl holds one block: a second one on top of it is
        not *in* the bowl.

    Randomizations:
        - which and how many blocks are targets, and the other blocks: each task's `draw`
        - bowl colors: distinct, from the task's palette; the block order is shuffled
        - xy of every object uniform in the workspace without overlaps; yaw uniform
        - the instruction template, one of the task's `templates`

    Success Conditions:
        Every target block is *in* a bowl (centre within 5 cm xy of the bowl's centre, bottom
        below the rim), each in a different bowl, and no other block is in any bowl.
    """

    templates: ClassVar[tuple[str, ...]] = ()

    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []
        self._params: dict = {}

    @abstractmethod
    def draw(self, rng: np.random.Generator) -> ColorDraw:
        """This episode's colors; also sets `self._params`."""

    @property
    def params(self) -> dict:
        return dict(self._params)

    def setup(self, rng: np.random.Generator) -> list[ObjectSpec]:
        d = self.draw(rng)
        bowls = pick_from(rng, d.bowl_pool, d.n_bowls)
        blocks = d.targets + d.others
        blocks = [blocks[i] for i in rng.permutation(len(blocks))]
        self.specs = scene_specs(rng, bowls, blocks)
        self.targets = [f"{c} block" for c in d.targets]
        self.instruction = pick_template(rng, self.templates, **self._params)
        return self.specs

    @property
    def n_goal_steps(self) -> int:
        return len(self.targets)

    def success(self, scene: Scene) -> bool:
        inside = {b: scene.container_of(b) for b in blocks_in_bowls(scene)}
        return set(inside) == set(self.targets) and len(set(inside.values())) == len(inside)

    def oracle_step(self, scene: Scene) -> str | None:
        return subset_step(scene, self.targets)


def subset_step(scene: Scene, targets: list[str]) -> str | None:
    """Next step towards exactly `targets` in bowls: lift other blocks out of bowls (onto a
    block) where that covers no waiting target, put targets in empty bowls (clearing what
    covers them), and only as a last resort stack an intruder on a waiting target."""
    placed = [t for t in targets if scene.container_of(t)]
    pending = [t for t in targets if t not in placed]
    intruders = [pile_top(scene, b) for b in blocks_in_bowls(scene) if b not in targets]
    for block in intruders:
        if step := _out_of_the_way(scene, block, targets, placed):
            return step
    bowls = empty_bowls(scene)
    for target in pending:
        top = pile_top(scene, target)
        step = (_out_of_the_way(scene, top, targets, placed) if top != target
                else put_in(target, bowls[0]) if bowls else None)
        if step:
            return step
    for block in intruders:
        if step := stack_somewhere(scene, block):
            return step
    return None


def _out_of_the_way(scene: Scene, block: str, targets: list[str], placed: list[str]
                    ) -> str | None:
    """Move `block`: a target into an empty bowl (progress), any other block onto a placed
    target or a clear block off the targets, where it stays out of the bowls, else into a
    bowl the waiting targets can spare (it comes out later); None when neither is possible."""
    bowls = empty_bowls(scene)
    if block in targets and not scene.container_of(block) and bowls:
        return put_in(block, bowls[0])
    pending = [t for t in targets if t not in placed]
    off_targets = clear_blocks(scene, avoid=targets)
    step = stack_somewhere(scene, block, avoid=pending, prefer=[*placed, *off_targets])
    if step is None and not scene.container_of(block) and len(bowls) > len(pending):
        return put_in(block, bowls[0])
    return step
