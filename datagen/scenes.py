"""Scene states for the VQA data, sampled by running the simulator's own tasks.

Why run episodes instead of placing objects: the controller asks about the states pick-places
really leave — blocks resting in bowls at an angle, towers, a pyramid half built, blocks
knocked or spilled by situations, a block that landed beside its bowl. Each state is: reset a
task of the family (`TabletopEnv.reset`), maybe let its oracle finish it, then a random number
of pick-places (`moves`), some of them the task's own next step; with "hard" situations in a
share of episodes; finally the family's color rule recolors the objects (`palette`).

Determinism: state `index` of a shard is a pure function of (family, shard seed, index). Its
random stream is `default_rng([shard_seed, index, 0])` and its env seeds are derived from the
same numbers, and every reset rebuilds the whole world, so reusing one env per worker for
many states changes nothing (tested).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from datagen.families import Family
from datagen.moves import Move, choose_move, perform, weighted_choice
from datagen.palette import RECOLORED, ColorKey, plan_colors, recolor_scene, rename_text
from ravens_env.scene_graph import Scene
from ravens_env.situations import PRESETS

MAX_SHARD = 4096  # images per shard at most (env seeds leave room for this many)
MAX_ATTEMPTS = 16  # episodes tried per state until the color rule (and clutter) fits


@dataclass
class SampledState:
    """One state: how it was made and its ground truth (names after recoloring)."""

    family: str
    index: int  # within the shard
    shard_seed: int
    task: str
    env_seed: int
    situations: str  # preset name: "none" | "hard"
    instruction: str  # the task's instruction, recolored
    moves: list[str] = field(default_factory=list)  # "kind: put the ... " in order, recolored
    fired: list[str] = field(default_factory=list)  # situations that happened
    mapping: dict[ColorKey, str] = field(default_factory=dict)  # (type, old color) -> new
    scene: Scene | None = None

    def paint(self) -> dict[int, tuple[str, str]]:
        """Body id -> (color, shade) the renderer must give each recolored object."""
        return {o.body_id: (o.color, o.shade) for o in self.scene.objects if o.type in RECOLORED}

    def to_json(self) -> dict:
        return {"family": self.family, "task": self.task, "env_seed": self.env_seed,
                "shard_seed": self.shard_seed, "state_index": self.index,
                "situations": self.situations, "instruction": self.instruction,
                "moves": list(self.moves), "situations_fired": list(self.fired),
                "colors": {f"{c} {k}": new for (k, c), new in sorted(self.mapping.items())}}


def env_seed(shard_seed: int, index: int, attempt: int) -> int:
    """The simulator seed of one attempt: distinct for every (shard seed, index, attempt)."""
    if not 0 <= index < MAX_SHARD:
        raise ValueError(f"state index must be in [0, {MAX_SHARD}), got {index}")
    return (shard_seed * MAX_SHARD + index) * MAX_ATTEMPTS + attempt


def sample_state(env, fam: Family, shard_seed: int, index: int) -> SampledState:
    """Reset `env` (a TabletopEnv, reused) to a fresh state of `fam`; see the module doc."""
    rng = np.random.default_rng([shard_seed, index, 0])
    state = _reset(env, fam, shard_seed, index, rng)
    preset = "hard" if rng.random() < fam.hard_p else "none"
    env.situations = PRESETS[preset]
    state.situations = preset
    _run_moves(env, fam, rng, state)
    state.scene = recolor_scene(env.scene(visibility=False), state.mapping)
    state.moves = [rename_text(m, state.mapping) for m in state.moves]
    state.instruction = rename_text(env.task.instruction, state.mapping)
    return state


def _reset(env, fam: Family, shard_seed: int, index: int, rng: np.random.Generator
           ) -> SampledState:
    for attempt in range(MAX_ATTEMPTS):
        task = weighted_choice(fam.tasks, rng)
        seed = env_seed(shard_seed, index, attempt)
        env.reset(task, seed)
        objects = env.scene(visibility=False).objects
        mapping = plan_colors(objects, fam.colors, rng)
        if mapping is not None and len(objects) >= fam.min_objects:
            return SampledState(fam.name, index, shard_seed, task, seed, "none", "",
                                mapping=mapping)
    raise RuntimeError(f"{fam.name}: no episode in {MAX_ATTEMPTS} attempts fits the color "
                       f"rule {fam.colors.name!r} with {fam.min_objects}+ objects (state "
                       f"{index} of shard {shard_seed})")


def _run_moves(env, fam: Family, rng: np.random.Generator, state: SampledState) -> None:
    obs = env.observe()
    if rng.random() < fam.complete_p:
        for _ in range(env.task.max_steps):
            step = env.task.oracle_step(env.scene(visibility=False))
            if step is None:
                break
            obs = _do(env, obs, Move("oracle", "", "", step), rng, state)
    for _ in range(int(rng.integers(fam.actions[0], fam.actions[1] + 1))):
        scene = env.scene(visibility=False)
        step = env.task.oracle_step(scene) if rng.random() < fam.oracle_p else None
        move = (Move("oracle", "", "", step) if step
                else choose_move(scene, fam.action_kinds, fam.own_bowl_p, rng))
        if move is not None:
            obs = _do(env, obs, move, rng, state)


def _do(env, obs, move: Move, rng: np.random.Generator, state: SampledState):
    obs = perform(env, obs, move, rng)
    result = obs.last_action
    outcome = "" if result.ok else f" (failed: {result.reason})"
    state.moves.append(f"{move.kind}: {move.text}{outcome}")
    state.fired.extend(result.situations)
    return obs
