"""Random pick-places that turn a task's start scene into the states the VQA model must read.

Why these kinds: the controller's questions are about blocks in bowls, on blocks and on the
stand, and the hard cases are blocks that are *almost* there (beside a bowl, half behind
another object). Each kind makes one of them on purpose:

  in      put a free block in a bowl (its own-color bowl with probability `own_bowl_p`)
  on      put a free block on another block (stacks, towers)
  stand   put a free block on the stand (pyramid scenes)
  near    set a free block down beside a bowl (10-13 cm from its centre) or a block (6-8 cm):
          near, not in or on
  behind  set a free block down just behind an object as seen from the front camera
          (smaller x), so one partly hides the other
  spot    set a free block down anywhere in the workspace

A *free* block has nothing resting on it, so the suction takes the block that was meant.
`in`, `on` and `stand` go through the oracle actor in words; the others build the PickPlace from
ground truth (the oracle understands only named targets).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ravens_env.agents.oracle import OracleActor
from ravens_env.geometry import BOUNDS
from ravens_env.scene_graph import Scene, SceneObject
from ravens_env.types import Observation, PickPlace

ACTION_KINDS = ("in", "on", "stand", "near", "behind", "spot")
PLACE_MARGIN = 0.04  # metres kept inside the workspace edge by near / behind / spot
NEAR_BOWL = (0.10, 0.13)  # metres from a bowl's centre: outside its 6.2 cm rim
NEAR_BLOCK = (0.06, 0.08)  # metres between block centres: beside, not on
BEHIND = {"block": (0.045, 0.06), "bowl": (0.075, 0.09), "stand": (0.06, 0.08)}  # metres in -x


@dataclass(frozen=True)
class Move:
    """One pick-place: its kind, the block picked, the target (object name or "") and words."""

    kind: str
    pick: str
    target: str
    text: str


def weighted_choice(weights: dict[str, float], rng: np.random.Generator) -> str:
    """A key drawn with probability proportional to its weight (keys in insertion order)."""
    keys = [k for k, w in weights.items() if w > 0]
    p = np.array([weights[k] for k in keys], dtype=float)
    return keys[int(rng.choice(len(keys), p=p / p.sum()))]


def choose_move(scene: Scene, kinds: dict[str, float], own_bowl_p: float,
                rng: np.random.Generator) -> Move | None:
    """A random move of an available kind, or None when no block is free to pick."""
    blocks = scene.of_type("block")
    free = [b for b in blocks if not scene.related("above", b.name)]
    if not free:
        return None
    block = free[int(rng.integers(len(free)))]
    others = [o for o in scene.objects if o.name != block.name]
    targets = {
        "in": scene.of_type("bowl"),
        "on": [b for b in blocks if b.name != block.name],
        "stand": scene.of_type("stand"),
        "near": scene.of_type("bowl") or [b for b in blocks if b.name != block.name],
        "behind": others,
        "spot": [block],
    }
    kind = weighted_choice({k: w for k, w in kinds.items() if targets.get(k)}, rng)
    pool = targets[kind]
    target = pool[int(rng.integers(len(pool)))]
    if kind == "in" and rng.random() < own_bowl_p:
        own = [b for b in pool if b.color == block.color]
        target = own[0] if own else target
    if kind == "spot":
        return Move(kind, block.name, "", f"put the {block.name} somewhere")
    prep = "in" if kind == "in" else ("on" if kind in ("on", "stand") else kind)
    return Move(kind, block.name, target.name, f"put the {block.name} {prep} the {target.name}")


def perform(env, obs: Observation, move: Move, rng: np.random.Generator) -> Observation:
    """Execute `move` in `env` (a TabletopEnv); the observation after it."""
    if move.kind in ("in", "on", "stand", "oracle"):
        return env.execute(OracleActor(env).act(obs, move.text))
    scene = env.scene(visibility=False)
    block = scene.get(move.pick)
    xy = _place_xy(scene, move, rng)
    action = PickPlace(pick=(block.position[0], block.position[1], block.top),
                       place=(xy[0], xy[1], 0.0), pick_yaw=block.yaw,
                       place_yaw=float(rng.uniform(-math.pi, math.pi)))
    return env.execute(action)


def _place_xy(scene: Scene, move: Move, rng: np.random.Generator) -> tuple[float, float]:
    lo, hi = BOUNDS[:2, 0] + PLACE_MARGIN, BOUNDS[:2, 1] - PLACE_MARGIN
    if move.kind == "spot":
        x, y = rng.uniform(lo, hi)
    elif move.kind == "near":
        target = scene.get(move.target)
        x, y = _around(target, NEAR_BOWL if target.type == "bowl" else NEAR_BLOCK, rng)
    else:  # behind: further from the camera (-x), about the same y
        target = scene.get(move.target)
        x = target.position[0] - rng.uniform(*BEHIND[target.type])
        y = target.position[1] + rng.uniform(-0.015, 0.015)
    return float(np.clip(x, lo[0], hi[0])), float(np.clip(y, lo[1], hi[1]))


def _around(target: SceneObject, distance: tuple[float, float], rng: np.random.Generator
            ) -> tuple[float, float]:
    r, theta = rng.uniform(*distance), rng.uniform(-math.pi, math.pi)
    return target.position[0] + r * math.cos(theta), target.position[1] + r * math.sin(theta)
