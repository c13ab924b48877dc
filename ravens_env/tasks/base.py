"""What every task shares: object specs, layout sampling, and the Task interface.

A task samples a scene (objects, colors, poses) from a seeded generator, states its canonical
instruction, scores success from the ground-truth scene graph, and tells the scripted oracle
the next step in words ("put the red block in the blue bowl") — the same words the closed-loop
controller sends to a learned actor.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ravens_env.colors import colors_for_split
from ravens_env.dimensions import BLOCK_SIZE, BOWL_RADIUS, STAND_SIZE
from ravens_env.geometry import BOUNDS
from ravens_env.scene_graph import Scene

FOOTPRINT = {  # metres: radius of the circle an object needs on the table
    "block": BLOCK_SIZE * math.sqrt(2) / 2,
    "bowl": BOWL_RADIUS,
    "stand": math.hypot(*STAND_SIZE[:2]) / 2,
}
LAYOUT_GAP = 0.015  # metres of free space kept between sampled footprints
LAYOUT_MARGIN = 0.03  # metres kept free inside the workspace edge


@dataclass(frozen=True)
class ObjectSpec:
    """An object to create at reset; `xy` in metres, `yaw` in radians.

    `on` names an object earlier in the spec list that this one starts in or on (a block in a
    bowl, a block on a block): the env then takes the xy of that object and computes the start
    height from it; physics settles everything as usual.
    """

    type: str
    color: str
    xy: tuple[float, float]
    yaw: float = 0.0
    shade: str = ""
    on: str = ""

    @property
    def name(self) -> str:
        return "stand" if self.type == "stand" else f"{self.color} {self.type}"


class LayoutError(RuntimeError):
    """No collision-free layout was found (too many or too large objects)."""


def sample_layout(rng: np.random.Generator, kinds: list[str], tries: int = 2000) -> list[tuple]:
    """Non-overlapping (x, y, yaw) for each kind, uniform inside the workspace.

    Rejection sampling with a fixed number of draws per object keeps it deterministic per seed.
    """
    placed: list[tuple[float, float, float, float]] = []  # x, y, yaw, radius
    for kind in kinds:
        r = FOOTPRINT[kind]
        lo = BOUNDS[:2, 0] + LAYOUT_MARGIN + r
        hi = BOUNDS[:2, 1] - LAYOUT_MARGIN - r
        for _ in range(tries):
            x, y = rng.uniform(lo, hi)
            if all(math.hypot(x - px, y - py) >= r + pr + LAYOUT_GAP for px, py, _, pr in placed):
                break
        else:
            raise LayoutError(f"could not place a {kind} after {tries} tries")
        placed.append((float(x), float(y), float(rng.uniform(-math.pi, math.pi)), r))
    return [(x, y, yaw) for x, y, yaw, _ in placed]


def draw_spot(rng: np.random.Generator, specs: list[ObjectSpec], clearance: float,
              tries: int = 2000) -> tuple[float, float]:
    """A table point (metres) whose distance to the edge of every object's footprint is at
    least `clearance`, and where a block fits inside the workspace margin."""
    lo = BOUNDS[:2, 0] + LAYOUT_MARGIN + FOOTPRINT["block"]
    hi = BOUNDS[:2, 1] - LAYOUT_MARGIN - FOOTPRINT["block"]
    for _ in range(tries):
        x, y = rng.uniform(lo, hi)
        if all(math.hypot(x - s.xy[0], y - s.xy[1]) >= FOOTPRINT[s.type] + clearance
               for s in specs):
            return (float(x), float(y))
    raise LayoutError(f"no spot {clearance} m clear of every object after {tries} tries")


def scene_specs(rng: np.random.Generator, bowls: list[str], blocks: list[str],
                inside: dict[str, str] | None = None) -> list[ObjectSpec]:
    """Specs of bowls and blocks (by color), bowls first. A block color that `inside` maps to
    a bowl color starts in that bowl; the rest get non-overlapping table spots."""
    inside = inside or {}
    table = [c for c in blocks if c not in inside]
    layout = sample_layout(rng, ["bowl"] * len(bowls) + ["block"] * len(table))
    specs = [ObjectSpec("bowl", c, (x, y), yaw)
             for c, (x, y, yaw) in zip(bowls, layout[:len(bowls)], strict=True)]
    where = {s.color: s.xy for s in specs}
    spots = iter(layout[len(bowls):])
    for color in blocks:
        if color in inside:
            bowl = inside[color]
            yaw = float(rng.uniform(-math.pi, math.pi))
            specs.append(ObjectSpec("block", color, where[bowl], yaw, on=f"{bowl} bowl"))
        else:
            x, y, yaw = next(spots)
            specs.append(ObjectSpec("block", color, (x, y), yaw))
    return specs


def pick_colors(rng: np.random.Generator, split: str, n: int, exclude=()) -> list[str]:
    """`n` distinct colors from a split, in random order."""
    pool = [c for c in colors_for_split(split) if c not in exclude]
    if n > len(pool):
        raise ValueError(f"split {split!r} has only {len(pool)} colors, {n} needed")
    return [pool[i] for i in rng.permutation(len(pool))[:n]]


def pick_from(rng: np.random.Generator, pool: tuple[str, ...] | list[str], n: int,
              exclude=()) -> list[str]:
    """`n` distinct items of `pool` (not in `exclude`), in random order."""
    items = [c for c in pool if c not in exclude]
    if n > len(items):
        raise ValueError(f"only {len(items)} of {list(pool)} are left, {n} needed")
    return [items[i] for i in rng.permutation(len(items))[:n]]


def pick_template(rng: np.random.Generator, templates: tuple[str, ...], **values) -> str:
    """One of a task's instruction templates, drawn per seed, filled with `values`."""
    return templates[int(rng.integers(len(templates)))].format(**values)


class Task(ABC):
    """One tabletop task. Subclasses hold one episode's choices after `setup`.

    Subclass docstrings have the sections Task Description, Randomizations and Success
    Conditions (a test checks it), in the style of ManiSkill task files.
    """

    task_id: ClassVar[str]
    summary: ClassVar[str]
    category: ClassVar[str] = ""  # "" or one of the reasoning suite's CATEGORIES

    def __init__(self) -> None:
        self.instruction = ""
        self.specs: list[ObjectSpec] = []

    @abstractmethod
    def setup(self, rng: np.random.Generator) -> list[ObjectSpec]:
        """Sample this episode's objects; set `self.instruction`."""

    @abstractmethod
    def success(self, scene: Scene) -> bool:
        """True when the goal holds in the ground-truth scene."""

    @abstractmethod
    def oracle_step(self, scene: Scene) -> str | None:
        """The next step in words for the scripted oracle, or None when nothing is left."""

    @property
    def params(self) -> dict:
        """This episode's drawn values (JSON-able) that the instruction and success depend on;
        parsers and corpora are written against these names."""
        return {}

    def after_step(self, scene: Scene, step: int) -> list[tuple[str, tuple[float, float]]]:
        """Called by the env at the end of every `execute` — once the pick-place has settled,
        or at once when the action was refused — with `step` = env.steps (1 first).

        A task records the history its success needs here, and returns blocks the world moves
        on its own: (block name, table xy in metres) pairs, each set down just above whatever
        is at that xy (the env records a "disturbance" situation). Default: nothing.
        """
        return []

    @property
    def n_goal_steps(self) -> int:
        """Pick-places an error-free oracle needs; episode limits scale with it."""
        return sum(1 for s in self.specs if s.type == "block")

    @property
    def max_steps(self) -> int:
        """Oracle/actor step budget per episode: room to redo every goal step once, plus 2."""
        return 2 * self.n_goal_steps + 2

    def blocks(self, scene: Scene) -> list[str]:
        return [o.name for o in scene.of_type("block")]
