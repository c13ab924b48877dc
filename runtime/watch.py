"""`--mode monitor`: watch a pick-place while the arm moves, halt it on divergence, recover.

VoLo's physical orchestration, on this project's simulator: the action runs as motion
segments (`TabletopEnv.start`), and after each one the watcher checks it is on track:

    after the lift   the suction cup holds something (robot state, as a vacuum sensor would
                     tell); the intended block is the one lifted — in the detector's parse it
                     has left the spot where it was perceived before the action (a lifted
                     block back-projects far from its resting place; one left behind does
                     not move); the learned place is over the perceived target
    in the carry     the cup still holds the block (robot state, every CARRY_STEP of motion)

On divergence it halts between segments and chooses a recovery:

    continue  nothing diverged (no halt)
    grasp     the pick went wrong (nothing lifted, another block lifted — put back where it
              came from — or the block dropped in transport): the redo picks with the
              perception-grounded grasp (`runtime.tools`)
    place     the learned place is not over the target: the held block is carried on to the
              perceived target at once (the grounded place)
    replan    the same step halted HALTS_BEFORE_REPLAN times: the tools are not fixing it, so
              the codeplan stops and the planner is asked for a new one, with the reason
              (the controller escalates: `Controller._after_halt`)

What cannot be judged is not a divergence: a block or target the detector does not see before
the action lets the action continue unwatched in that respect.

Rewriting the instruction (VoLo's fourth recovery) is not built: the planner's recovery
codeplan plays that part here. The watcher never reads ground truth; what it chose and why is
in the trace (`halt` events, with the simulated time of the halt), and the audit scores it
against ground truth afterwards (`runtime.eval.audit`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from ravens_env.agents.oracle import parse_step
from ravens_env.types import Observation, PickPlace
from runtime.tools import PICK_TOLERANCE, PLACE_TOLERANCE, Toolbox, xy_distance

RECOVERIES = ("continue", "replan", "grasp", "place")
HALTS_BEFORE_REPLAN = 3  # halts of one step before the controller asks for a new codeplan


@dataclass(frozen=True)
class Halt:
    """Why a watched action stopped and what comes next."""

    segment: str
    sim_s: float
    reason: str
    recovery: str  # one of RECOVERIES

    def to_dict(self) -> dict:
        return {"segment": self.segment, "sim_s": round(self.sim_s, 4), "reason": self.reason,
                "recovery": self.recovery}


class MotionWatcher:
    """Runs one action under watch; `run` returns the observation after it and the halt
    (None: it ran to the end). A halted action parks holding what it held; `follow_up` says
    what to do with that block."""

    def __init__(self, toolbox: Toolbox, count_look: Callable[[], None]) -> None:
        self.toolbox = toolbox
        self._count_look = count_look  # the controller counts every parse as a reasoner call

    def run(self, env, obs: Observation, action: PickPlace, pick: str,
            instruction: str) -> tuple[Observation, Halt | None]:
        before = self._where(obs, pick)
        motion = env.start(action)
        while True:
            state = motion.step()
            if state.done:
                return motion.finish(), None
            halt = self._check(motion, state, obs, action, pick, instruction, before)
            if halt is not None:
                return motion.halt(release=False), halt

    # -- the checks -------------------------------------------------------------------------
    def _check(self, motion, state, obs: Observation, action: PickPlace, pick: str,
               instruction: str, before: tuple | None) -> Halt | None:
        def halt(reason: str, recovery: str) -> Halt:
            return Halt(state.segment, state.sim_s, reason, recovery)

        if state.segment == "carry" and state.holding is None:
            return halt("the suction cup lost the block in transport", "grasp")
        if state.segment != "lift":
            return None
        if state.holding is None:
            return halt("nothing was lifted", "grasp")
        # Not seen before the action: the lift cannot be judged, and the actor (which works
        # from its own view) may well have the block — continue. (Halting for a replan here
        # ended dev episodes in a false "done": the replan's look missed the block too.)
        now = None if before is None else self._where(motion.observe(), pick)
        if now is not None and xy_distance(before, now) < PICK_TOLERANCE:
            return halt(f"the {pick} has not moved: another block was lifted", "grasp")
        try:
            off = self.toolbox.place_error(obs, instruction, action)
        except ValueError:
            return None  # the target is not seen: nothing to judge the place against
        if off > PLACE_TOLERANCE:
            return halt(f"the place is {off * 100:.1f} cm from the perceived target", "place")
        return None

    def _where(self, obs: Observation, name: str) -> tuple | None:
        """The block's perceived position (None: not seen)."""
        self._count_look()
        scene = self.toolbox.grounded.scene_for(obs)
        return scene.get(name).position if name in scene.names() else None

    # -- after a halt -----------------------------------------------------------------
    def follow_up(self, obs: Observation, halt: Halt, action: PickPlace,
                  instruction: str) -> PickPlace | None:
        """The action that finishes a halt while the cup still holds a block (None when it
        holds none: a drop — the redo picks again): a place off target is carried on to the
        perceived target; anything else is put back where it was picked from."""
        if obs.holding is None:
            return None
        if halt.recovery == "place":
            try:
                xy, yaw = self.toolbox.grounded.place_for(obs, parse_step(instruction)[1])
                return replace(action, place=(*xy, 0.0), place_yaw=yaw)
            except ValueError:
                pass  # the target is not seen now: put the block back instead
        return replace(action, place=action.pick, place_yaw=action.pick_yaw)
