"""Perception-grounded tools (VoLo's grasp and place) and when the controller switches to them.

Why: the learned actor is deterministic, so a step it got wrong once (the gray block picked
for the cyan one, a place a few centimetres off the bowl) it gets wrong on every redo, and the
only ways out were the retry budget or a new codeplan. VoLo's answer is a second tool: here
`grasp` and `place` compute the pick or the place from the *detector's* parse of the front
image (world positions by back-projection: `codeplan eval grounding`), never from ground
truth. The controller keeps the learned action and replaces the half that disagrees
with perception: the pick when it is not on the intended block, the place when it is not over
the target.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ravens_env.agents.oracle import SceneActor, parse_step
from ravens_env.dimensions import STAND_SIZE
from ravens_env.scene_graph import Scene
from ravens_env.types import Observation, PickPlace

SWITCH_AFTER = 2  # failures of one step by the learned actor before a tool takes over
PICK_TOLERANCE = 0.02  # metres: a pick further than half a block from the block misses it
PLACE_TOLERANCE = 0.02  # metres from the perceived target point: further is off target
TOOLS = ("grasp", "place")


class GroundedActor(SceneActor):
    """The scene actor on a parse of the front image (the detector's world positions)."""

    name = "grounded"
    # Perceived, the slot next to a seated block is as sure as that block (the stand's pose is
    # read from it, `vrs.detector.stand`), while the far end carries the yaw's error over
    # 10 cm, and with the yaw read modulo pi "slot 0" may be that far end (dev pyramids
    # 5101, 5102, 5111: second places 3.8-7.1 cm off). An empty stand still takes an end,
    # so that the next block has a direction to read.
    next_to_taken = True

    def __init__(self, parse: Callable[[np.ndarray], Scene]) -> None:
        self.parse = parse

    def scene_for(self, obs: Observation) -> Scene:
        return self.parse(obs.front_rgb)


@dataclass(frozen=True)
class ToolChoice:
    """The tools one step needs and the learned action with those halves replaced."""

    tools: tuple[str, ...]  # subset of TOOLS; empty: the learned action agrees with perception
    action: PickPlace
    reason: str


class Toolbox:
    """Compares a learned action with perception and swaps in the grounded halves."""

    def __init__(self, grounded: GroundedActor) -> None:
        self.grounded = grounded

    def choose(self, obs: Observation, instruction: str, learned: PickPlace | None,
               force: tuple[str, ...] = ()) -> ToolChoice:
        """The tools `learned` needs for `instruction` — the halves off perception, and those
        in `force` (a halt asked for them) — and the action with them swapped in. Grasp and
        place are grounded separately: a block that is seen can be grasped while its target
        is not (and the other way round). With no learned action (the actor could not give
        one) both are needed. ValueError when nothing that is needed can be grounded."""
        pick_name, place_text = parse_step(instruction)
        grasp = _grounded(lambda: self.grounded.grasp_for(obs, pick_name))
        place = _grounded(lambda: self.grounded.place_for(obs, place_text, pick_name))
        if learned is None:
            if grasp is None or place is None:
                raise ValueError(f"perception does not see the {pick_name} or the {place_text}")
            (xyz, pick_yaw), (xy, place_yaw) = grasp, place
            return ToolChoice(TOOLS, PickPlace(xyz, (*xy, 0.0), pick_yaw, place_yaw),
                              "the learned actor gave no action")
        pick_off = None if grasp is None else xy_distance(learned.pick, grasp[0])
        place_off = None if place is None else self.place_error(obs, instruction, learned)
        if pick_off is None and place_off is None:
            raise ValueError(f"perception sees neither the {pick_name} nor the {place_text}")
        tools = tuple(t for t, off, tol in (("grasp", pick_off, PICK_TOLERANCE),
                                            ("place", place_off, PLACE_TOLERANCE))
                      if off is not None and (off > tol or t in force))
        action = learned
        if "grasp" in tools:
            action = replace(action, pick=grasp[0], pick_yaw=grasp[1])
        if "place" in tools:
            action = replace(action, place=(*place[0], 0.0), place_yaw=place[1])
        return ToolChoice(tools, action, f"learned pick {_cm(pick_off)} and place "
                                         f"{_cm(place_off)} from perception")

    def place_error(self, obs: Observation, instruction: str, action: PickPlace) -> float:
        """Metres from `action`'s place to the nearest perceived point that does the step.
        For the stand only its centre counts: a place within the stand's half-length of it is
        on target. Why: until the board's pose was read from the image (`vrs.detector.stand`)
        its end slots came out up to 5 cm off; they are now within 5.4 mm on the dev scenes
        (`codeplan eval grounding`), yet judging a base place against them lost on dev
        pyramids (40 against 46 of 200: docs/RESULTS.md, "The board's pose, in the closed
        loop"), so the looser check stays."""
        place = parse_step(instruction)[1]
        if place == "stand":
            scene = self.grounded.scene_for(obs)
            if "stand" not in scene.names():
                raise ValueError(f"no stand in the perceived scene; objects: {scene.names()}")
            centre = scene.get("stand").position
            return max(0.0, xy_distance(action.place, centre) - STAND_SIZE[1] / 2)
        points = self.grounded.place_points(obs, place)
        return min(xy_distance(action.place, p) for p in points)


def _grounded(pose: Callable[[], tuple]) -> tuple | None:
    """A pose from perception, or None where perception does not see the object."""
    try:
        return pose()
    except (ValueError, KeyError):
        return None


def _cm(metres: float | None) -> str:
    return "not seen" if metres is None else f"{metres * 100:.1f} cm"


def xy_distance(a: tuple, b: tuple) -> float:
    return float(np.hypot(float(a[0]) - float(b[0]), float(a[1]) - float(b[1])))


def make_toolbox(detector) -> Toolbox:
    """The toolbox on a reasoner that parses images into scenes (`parse_many`: the shipped
    detector, whatever `--reasoner` answers the questions — the tools need world positions,
    which only the detector's parse gives)."""
    if not hasattr(detector, "parse_many"):
        raise ValueError(f"the grounded tools need a reasoner that parses scenes (the "
                         f"detector), not {getattr(detector, 'name', detector)!r}")
    return Toolbox(GroundedActor(lambda image: detector.parse_many([image])[0][0]))
