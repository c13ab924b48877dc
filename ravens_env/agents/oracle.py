"""The scripted oracle: turns a step in words into a PickPlace from ground truth.

It reads the simulator's scene graph, so it is an upper bound, not a system under test. It
understands the step phrasings the tasks and the closed-loop controller produce:
    put the <block> in the <bowl>          put the <block> on the <block>
    put the <block> on the stand           put the <block> on the <block> and the <block>
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from ravens_env.geometry import BOUNDS
from ravens_env.scene_graph import Scene
from ravens_env.tasks.stack_block_pyramid import slot_occupant, stand_slots
from ravens_env.types import Observation, PickPlace

if TYPE_CHECKING:
    from ravens_env.env import TabletopEnv

_STEP = re.compile(r"^\s*(?:put|place|move)\s+(?:the\s+)?(?P<pick>.+?)\s+"
                   r"(?:in|into|on|onto|on top of)\s+(?:the\s+)?(?P<place>.+?)\s*\.?\s*$",
                   re.IGNORECASE)


class UnknownObjectError(ValueError):
    """The step names an object that is not in the scene."""


class SceneActor:
    """Actor seam (`act(obs, instruction) -> PickPlace`) computed from a scene graph: the
    pick at the block's top, the place over the target (a free stand slot, the middle of two
    blocks). Whose scene it reads decides what it is: the simulator's ground truth (the
    oracle) or a reasoner's parse of the camera image (`runtime.tools`, a tool the controller
    switches to)."""

    name = "scene"
    # Which free base slot of the stand comes first: slot order, or the one next to a taken
    # slot (the grounded tools: see there).
    next_to_taken = False

    def occupant(self, scene: Scene, slot: tuple[float, float, float]) -> str | None:
        """The block in a stand slot of `scene`, or None (ground truth: the block there)."""
        return slot_occupant(scene, slot)

    def scene_for(self, obs: Observation) -> Scene:
        raise NotImplementedError

    def act(self, obs: Observation, instruction: str) -> PickPlace:
        pick_name, place_text = parse_step(instruction)
        pick_xyz, pick_yaw = self.grasp_for(obs, pick_name)
        place_xy, place_yaw = self.place_for(obs, place_text, pick_name)
        return PickPlace(pick=pick_xyz, place=(place_xy[0], place_xy[1], 0.0),
                         pick_yaw=pick_yaw, place_yaw=place_yaw)

    def grasp_for(self, obs: Observation, name: str) -> tuple[tuple[float, float, float], float]:
        """(xyz, yaw) of the suction point on the block `name`'s top face."""
        pick = _lookup(self.scene_for(obs), name)
        return (*_reachable_top(pick.position[:2]), pick.top), pick.yaw

    def place_for(self, obs: Observation, place_text: str, pick: str | None = None
                  ) -> tuple[tuple[float, float], float]:
        """(xy, yaw) of the place for `place_text` ('blue bowl', 'stand', 'a block and b
        block'), without looking up a block to pick; `pick`, when given, is the block the
        step moves (on the stand it keeps its own slot, see `_place_target`)."""
        return self._place_target(self.scene_for(obs), place_text, pick)

    def place_points(self, obs: Observation, place_text: str, pick: str | None = None
                     ) -> list[tuple[float, float]]:
        """Every xy where a place would do the step: the free base slots of the stand (any
        of them is right) and the one `pick` already fills, else the one target point."""
        scene = self.scene_for(obs)
        if place_text == "stand":
            return [(s[0], s[1]) for s in _free_slots(scene, pick, occupant=self.occupant)] or \
                [self._place_target(scene, place_text, pick)[0]]
        return [self._place_target(scene, place_text, pick)[0]]

    def _place_target(self, scene: Scene, text: str, pick: str | None = None
                      ) -> tuple[tuple[float, float], float]:
        """For the stand: the slot `pick` already fills, else the first free base slot. Why
        its own slot first: a controller that misreads a base block as off the stand redoes
        its step, and with its own slot counted as taken the block went to another slot or
        onto the middle one (all three were full), wrecking a row that was right (dev
        pyramids 5000-5019 with no injected failures: 4 of 20 built)."""
        if text == "stand":
            stand = _lookup(scene, "stand")
            free = _free_slots(scene, pick, self.next_to_taken, self.occupant)
            slot = free[0] if free else stand_slots(stand)[1]
            return (slot[0], slot[1]), stand.yaw
        names = [n.strip() for n in re.split(r"\s+and\s+(?:the\s+)?", text)]
        targets = [_lookup(scene, n) for n in names]
        xy = np.mean([t.position[:2] for t in targets], axis=0)
        yaw = targets[0].yaw if targets[0].type == "block" else 0.0
        if len(targets) > 1 and "stand" in scene.names():
            yaw = scene.get("stand").yaw
        return (float(xy[0]), float(xy[1])), yaw


class OracleActor(SceneActor):
    """The scene actor on the env's ground truth."""

    name = "oracle"

    def __init__(self, env: TabletopEnv) -> None:
        self.env = env

    def scene_for(self, obs: Observation) -> Scene:
        return self.env.scene(visibility=False)


def _free_slots(scene: Scene, pick: str | None = None, next_to_taken: bool = False,
                occupant=slot_occupant) -> list:
    """The stand's base slots that hold no block (`occupant(scene, slot)` is None), the one
    `pick` fills first, then in slot order or (`next_to_taken`) nearest a taken slot first
    (slot order among equals)."""
    stand = _lookup(scene, "stand")
    occupants = [(i, s, occupant(scene, s)) for i, s in enumerate(stand_slots(stand)[:3])]
    own = [s for _, s, o in occupants if pick is not None and o == pick]
    free = [(i, s) for i, s, o in occupants if o is None]
    taken = [i for i, _, o in occupants if o is not None]
    if next_to_taken and taken:
        free.sort(key=lambda f: min(abs(f[0] - t) for t in taken))  # a stable sort
    return own + [s for _, s in free]


def _reachable_top(xy: tuple[float, float]) -> tuple[float, float]:
    """A suction point on the block's top face inside the workspace: a block that slid partly
    over the edge is picked near its inner side (within 1.5 cm of its centre)."""
    lo, hi = BOUNDS[:2, 0] + 1e-3, BOUNDS[:2, 1] - 1e-3
    clamped = np.clip(xy, lo, hi)
    if np.linalg.norm(clamped - np.asarray(xy)) <= 0.015:
        return float(clamped[0]), float(clamped[1])
    return float(xy[0]), float(xy[1])


def parse_step(instruction: str) -> tuple[str, str]:
    """'put the red block in the blue bowl' -> ('red block', 'blue bowl')."""
    m = _STEP.match(instruction)
    if not m:
        raise ValueError(f"cannot read step {instruction!r}: expected 'put the <object> in|on "
                         "the <object>'")
    return m.group("pick").lower(), m.group("place").lower()


def step_holds(scene: Scene, instruction: str) -> bool:
    """Does the relation a step asks for hold in `scene`? ('in' for bowls, 'on' otherwise.)
    Ground truth for evaluation and traces, never for the system under test's decisions."""
    pick, place = parse_step(instruction)
    targets = [t.strip() for t in re.split(r"\s+and\s+(?:the\s+)?", place)]
    if pick not in scene.names() or any(t not in scene.names() for t in targets):
        return False
    return all(scene.holds(pick, "in" if scene.get(t).type == "bowl" else "on", t)
               for t in targets)


def _lookup(scene: Scene, name: str):
    try:
        return scene.get(name)
    except KeyError:
        raise UnknownObjectError(
            f"no {name!r} in the scene; objects: {', '.join(scene.names())}"
        ) from None


def run_oracle_episode(env: TabletopEnv, task: str, seed: int, max_steps: int | None = None
                       ) -> dict:
    """Reset, then let the task's oracle steps drive the oracle actor until done or out of steps.

    Returns {'success', 'steps', 'situations'}. Ground truth decides success, as always.
    """
    obs = env.reset(task, seed)
    actor = OracleActor(env)
    limit = max_steps if max_steps is not None else env.task.max_steps
    fired: list[str] = []
    for _ in range(limit):
        step = env.task.oracle_step(env.scene(visibility=False))
        if step is None:
            break
        obs = env.execute(actor.act(obs, step))
        fired += obs.last_action.situations
    return {"success": env.success(), "steps": env.steps, "situations": fired}
