"""put-n-blocks-in-bowls (reasoning suite, reference): counting — exactly n blocks in bowls."""

from __future__ import annotations

import numpy as np

from ravens_env.scene_graph import Scene
from ravens_env.tasks.base import ObjectSpec, Task, pick_colors, pick_template, scene_specs
from ravens_env.tasks.oracle_steps import (
    blocks_in_bowls,
    clear_blocks,
    empty_bowls,
    put_in,
    stack_somewhere,
)

NUMBER_WORDS = {1: "one", 2: "two", 3: "three"}
TEMPLATES = (
    "put exactly {n_word} {noun} in {place}",
    "put {n_word} of the blocks in {place}",
    "I want exactly {n} {noun} in {place}",
)


class PutNBlocksInBowls(Task):
    """Have exactly n blocks in bowls, any blocks, any bowls.

    Task Description:
        4-5 blocks and n+1 or n+2 bowls; the instruction asks for exactly n blocks (1-3) in
        bowls, in words ("two") or digits. Which blocks and bowls does not matter. One block
        may already start in a bowl (only when n > 1), so the count must include it.

    Randomizations:
        - n: 1-3 uniform; blocks 4-5; bowls n+1 or n+2; colors distinct within a type
        - a block starting in a bowl: none when n = 1, else none or one (probability 0.5)
        - xy of every object uniform in the workspace without overlaps; yaw uniform
        - instruction template (3; "block"/"a bowl" when n = 1)

    Success Conditions:
        Exactly n blocks are *in* bowls (a block stacked on a block in a bowl is not in it).
    """

    summary = "put exactly n blocks in bowls (counting)"
    category = "reference"

    def __init__(self) -> None:
        super().__init__()
        self.n = 0

    @property
    def params(self) -> dict:
        return {"n": self.n, "n_word": NUMBER_WORDS.get(self.n, "")}

    def setup(self, rng: np.random.Generator) -> list[ObjectSpec]:
        self.n = int(rng.integers(1, 4))
        blocks = pick_colors(rng, "all", int(rng.integers(4, 6)))
        bowls = pick_colors(rng, "all", self.n + int(rng.integers(1, 3)))
        start_inside = self.n > 1 and bool(rng.random() < 0.5)
        inside = {blocks[int(rng.integers(len(blocks)))]: bowls[int(rng.integers(len(bowls)))]
                  } if start_inside else {}
        self.specs = scene_specs(rng, bowls, blocks, inside)
        words = {"noun": "block" if self.n == 1 else "blocks",
                 "place": "a bowl" if self.n == 1 else "bowls"}
        self.instruction = pick_template(rng, TEMPLATES, **self.params, **words)
        return self.specs

    @property
    def n_goal_steps(self) -> int:
        return self.n

    def success(self, scene: Scene) -> bool:
        return len(blocks_in_bowls(scene)) == self.n

    def oracle_step(self, scene: Scene) -> str | None:
        inside = blocks_in_bowls(scene)
        if len(inside) < self.n:
            out = clear_blocks(scene, avoid=inside)
            bowls = empty_bowls(scene)
            return put_in(out[0], bowls[0]) if out and bowls else None
        if len(inside) > self.n:
            movable = clear_blocks(scene, keep=lambda b: b in inside)
            return stack_somewhere(scene, movable[0], prefer=clear_blocks(scene, avoid=inside)) \
                if movable else None
        return None
