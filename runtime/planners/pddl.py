"""The tabletop as a classical planning problem, solved by Fast Downward via unified-planning.

Why a symbolic planner: the offline planner must order moves correctly from any perceived
state (a block sitting on the block to be moved, a bowl already taken, a half-built pyramid)
and skip goals that already hold, which is what a planner does and a template does not.

The model:

    objects   blocks, bowls, the table (and the stand when it is only a surface); for the
              pyramid six stand slots, 0-2 bottom row, 3-4 middle row, 5 top
    fluents   at(block, loc)    the block rests in/on loc
              clear(loc)        nothing rests in/on loc (a bowl holds one block)
              fixed(loc)        a block placed in a pyramid slot: never moved or built on again
              ok(block)         the block rests somewhere the goal accepts
              good(block, loc)  static: the goal accepts the block in/on loc
    put_good(b, src, dst)       dst a clear bowl or a clear, unfixed block with good(b, dst)
    put_other(b, src, dst)      the same where not good(b, dst): making room, clears ok(b)
    put_slot_<i>(b, src)        slot i clear and every slot it needs filled: the bottom row
                                fills in order (the actor's "on the stand" takes the next free
                                slot), the middle row needs the slots below it, the top the
                                middle row

`good` is how goals that name no particular place stay the planner's choice without
quantifiers: "a bowl of a different color" is good(b, w) for every such bowl, "on some block"
(every block but the base, for a single tower) is good(b, c) for every block c. The goal is
then ok(b) for each goal block, a plain conjunction, so the optimal A* + LM-cut search
(`fast-downward-opt`) applies: plans are as short as possible, so that a recovery plan does
only what is left and moves nothing twice.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from unified_planning.engines import PlanGenerationResultStatus as Status
from unified_planning.exceptions import UPException
from unified_planning.shortcuts import (
    BoolType,
    Equals,
    Fluent,
    InstantaneousAction,
    Not,
    Object,
    OneshotPlanner,
    Problem,
    UserType,
    get_environment,
)

from runtime.planners.base import PlannerError
from runtime.planners.instruction_parser import Goal
from runtime.planners.scene_state import STAND, TABLE, SceneState, color_of, kind_of

# slot -> slots filled before it: the bottom row in order (the actor's "on the stand" takes the
# next free slot), a middle slot after the row below (3 before 4: plans read left to right),
# the top after the middle row.
SLOT_NEEDS = {0: (), 1: (0,), 2: (0, 1), 3: (0, 1, 2), 4: (1, 2, 3), 5: (3, 4)}
SUPPORTS = {3: (0, 1), 4: (1, 2), 5: (3, 4)}  # upper slot -> the two slots it rests on
FD_DIR_PREFIX = "codeplan-fd-"  # + the owner pid + "-": `_sweep_orphans` reads the pid
SEARCH = "astar(lmcut())"  # optimal: the shortest plan, hence no needless moves
SOLVED = (Status.SOLVED_SATISFICING, Status.SOLVED_OPTIMALLY)
UNSOLVABLE = (Status.UNSOLVABLE_PROVEN, Status.UNSOLVABLE_INCOMPLETELY)


@dataclass(frozen=True)
class Step:
    """One put_first_on_second call. `slot` is the pyramid slot it fills, if any; `room` marks
    a move that only makes room (the block is not where the goal wants it yet)."""

    pick: str
    place: str
    slot: int | None = None
    room: bool = False


@dataclass
class Solution:
    """The plan, the time it took, and what the model assumed (for the codeplan's comments)."""

    steps: list[Step]
    solve_s: float  # seconds: PDDL writing, the Fast Downward subprocess, plan parsing
    base: str | None = None  # stack-all: the bottom block
    slots: dict[int, str] | None = None  # pyramid: the slots already filled, as perceived
    row_known: bool = True  # pyramid: False when the bottom row's middle block is a guess


def solve(goal: Goal, state: SceneState, time_limit_s: float = 20.0) -> Solution:
    """Plan the put actions that reach `goal` from `state`; PlannerError when there are none.

    Fast Downward runs as a subprocess in its own session; on timeout unified-planning kills
    its whole process group (`os.killpg`), and FD's own search limit is set as a second guard.
    """
    model = _Model(goal, state)
    get_environment().credits_stream = None  # the engine credits banner would pollute stdout
    params = {"fast_downward_search_config": SEARCH,
              "fast_downward_search_time_limit": f"{max(1, int(time_limit_s))}s"}
    started = time.perf_counter()
    try:
        with _private_cwd(), OneshotPlanner(name="fast-downward", params=params) as planner:
            result = planner.solve(model.problem, timeout=time_limit_s)
    except UPException as e:  # e.g. up-fast-downward missing or its binary broken
        raise PlannerError(f"Fast Downward is not usable: {type(e).__name__}: {e}") from None
    elapsed = time.perf_counter() - started
    if result.status in SOLVED and result.plan is not None:
        return Solution(model.steps(result.plan.actions), elapsed, model.base,
                        dict(model.slots) if model.pyramid else None, model.row_known)
    if result.status == Status.TIMEOUT:
        raise PlannerError(f"Fast Downward found no plan within {time_limit_s:g} s "
                           f"for: {goal.summary()}")
    if result.status in UNSOLVABLE:
        raise PlannerError(f"no sequence of put actions reaches the goal ({goal.summary()}) "
                           f"from the perceived scene: {_describe(state)}")
    logs = " ".join(m.message for m in result.log_messages or [])[-300:]
    raise PlannerError(f"Fast Downward failed ({result.status.name}): {logs}")


@contextmanager
def _private_cwd() -> Iterator[None]:
    """Run Fast Downward in a fresh directory: it writes `output.sas` and `sas_plan` into the
    working directory, so two episodes planning at once in one directory (`--workers 2`) read
    each other's files ("The name brown_block does not correspond to any item")."""
    previous = os.getcwd()
    _sweep_orphans()
    with tempfile.TemporaryDirectory(prefix=f"{FD_DIR_PREFIX}{os.getpid()}-") as tmp:
        os.chdir(tmp)
        try:
            yield
        finally:
            os.chdir(previous)


def _sweep_orphans() -> None:
    """Remove the Fast Downward folders of processes that are gone. A process killed mid-plan
    (a worker stopped by `--workers`' pool, a test run interrupted) never leaves its `with`
    block, so its folder would stay in the temp dir for good; the owner's pid is in the name."""
    root = tempfile.gettempdir()
    for name in os.listdir(root):
        owner = name[len(FD_DIR_PREFIX):].split("-", 1)[0]
        if not name.startswith(FD_DIR_PREFIX) or not owner.isdigit() or _alive(int(owner)):
            continue
        shutil.rmtree(os.path.join(root, name), ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive, and not ours to clean
        return True
    return True


def _describe(state: SceneState) -> str:
    return "; ".join(state.describe(b) for b in state.blocks) or "no blocks"


def pyramid_slots(state: SceneState) -> tuple[dict[int, str], bool]:
    """Which perceived block fills which slot (0-2 bottom row, 3-4 middle, 5 top), and
    whether that bottom row is known or partly guessed.

    The pyramid is mirror-symmetric, so of the bottom row only its middle block matters: it is
    the block two middle-row blocks share, else what 'left of' facts say. Otherwise (a partial
    row, or three blocks with no such evidence) the labels are a guess, and the codeplan finds
    the middle at run time (see `codegen`), once the row is complete.
    """
    row = [b for b in state.blocks if state.support.get(b) == STAND]
    pairs = {b: p for b, p in state.pair_support.items() if set(p) <= set(row)}
    row, known = _order_row(row, list(pairs.values()), state.left_of)
    slots = dict(enumerate(row[:3]))
    for block, pair in pairs.items():
        for slot, (a, b) in SUPPORTS.items():
            if slot < 5 and {slots.get(a), slots.get(b)} == set(pair):
                slots.setdefault(slot, block)
    top = [b for b, p in state.pair_support.items()
           if {slots.get(3), slots.get(4)} == set(p) and None not in p]
    if top and 3 in slots and 4 in slots:
        slots[5] = top[0]
    return slots, known


def _order_row(row: list[str], pairs: list[tuple[str, str]],
               left_of: list[tuple[str, str]]) -> tuple[list[str], bool]:
    """The row ordered so that row[1] is the middle, with a known pair on row[0:2]."""
    if not row:
        return row, True
    shared = [b for b in row if sum(b in p for p in pairs) >= 2]
    ranked = [b for b in row if sum((a, b) in left_of for a in row) == 1]
    evidence = shared or (ranked if len(ranked) == 1 and len(row) == 3 else [])
    middle = evidence[0] if evidence else (pairs[0][1] if pairs else row[min(1, len(row) - 1)])
    ends = [b for b in row if b != middle]
    if pairs and middle in pairs[0]:  # keep the known pair on slots 0-1
        first = pairs[0][0] if pairs[0][1] == middle else pairs[0][1]
        ends = [first, *[b for b in ends if b != first]]
    ordered = [*ends[:1], middle, *ends[1:]]
    return ordered, bool(evidence) and len(row) >= 3


def tower_base(goal: Goal, state: SceneState) -> str:
    """The block a stack-all tower stands on: the named one, else the bottom of the tallest
    tower already standing on the table (the fewest moves: every other block moves once)."""
    if goal.base:
        if state.resting_on(goal.base) != TABLE:
            raise PlannerError(
                f"the tower must start on the table, but the perceived scene has the "
                f"{state.describe(goal.base)}, and put_first_on_second cannot put a block "
                "back on the table")
        return goal.base
    on_table = [b for b in goal.blocks if state.resting_on(b) == TABLE]
    if not on_table:
        raise PlannerError(f"no block is on the table to start the tower on: {_describe(state)}")
    return max(on_table, key=lambda b: len(tower_from(state, b)))  # first of the tallest


def tower_from(state: SceneState, base: str) -> list[str]:
    """Blocks resting one on another upwards from `base`, as perceived."""
    tower = [base]
    while above := [b for b in state.blocks if state.support.get(b) == tower[-1]]:
        if above[0] in tower:  # contradictory facts (a cycle): stop rather than loop
            break
        tower.append(above[0])
    return tower


class _Model:
    """Builds the unified-planning problem and maps Fast Downward's plan back to names."""

    def __init__(self, goal: Goal, state: SceneState) -> None:
        self.goal, self.state = goal, state
        self.pyramid = goal.family == "pyramid"
        self.slots, self.row_known = pyramid_slots(state) if self.pyramid else ({}, True)
        self.base = tower_base(goal, state) if goal.family == "stack-all" else None
        self._declare()
        self.problem = Problem("tabletop")
        for fluent in (self.at, self.clear, self.fixed, self.filled, self.ok, self.good,
                       self.target):
            self.problem.add_fluent(fluent, default_initial_value=fluent is self.clear)
        self.problem.add_actions([self._put(True), self._put(False)])
        self._objects()
        self._initial_state()
        self._goals()

    def _declare(self) -> None:
        self.Loc = UserType("Loc")
        self.Block = UserType("Block", self.Loc)
        self.Bowl = UserType("Bowl", self.Loc)
        self.Slot = UserType("Slot", self.Loc)
        self.Surface = UserType("Surface", self.Loc)
        block, loc = self.Block, self.Loc
        self.at = Fluent("at", BoolType(), b=block, l=loc)
        self.clear = Fluent("clear", BoolType(), l=loc)
        self.fixed = Fluent("fixed", BoolType(), l=loc)
        self.filled = Fluent("filled", BoolType(), s=self.Slot)  # = not clear, said positively
        self.ok = Fluent("ok", BoolType(), b=block)
        self.good = Fluent("good", BoolType(), b=block, l=loc)  # static
        self.target = Fluent("target", BoolType(), l=loc)  # static: bowls and blocks

    def _put(self, good: bool) -> InstantaneousAction:
        put = InstantaneousAction("put_good" if good else "put_other",
                                  b=self.Block, src=self.Loc, dst=self.Loc)
        b, src, dst = put.parameters
        accepted = self.good(b, dst) if good else Not(self.good(b, dst))
        for pre in (self.at(b, src), self.clear(b), self.clear(dst), self.target(dst),
                    Not(self.fixed(b)), Not(self.fixed(dst)), Not(Equals(b, dst)), accepted):
            put.add_precondition(pre)
        self._move(put, b, src, dst)
        put.add_effect(self.ok(b), good)
        return put

    def _put_slot(self, slot: int) -> InstantaneousAction:
        put = InstantaneousAction(f"put_slot_{slot}", b=self.Block, src=self.Loc)
        b, src = put.parameters
        here = self.obj[f"slot {slot}"]
        for pre in (self.at(b, src), self.clear(b), self.clear(here), Not(self.fixed(b))):
            put.add_precondition(pre)
        for need in SLOT_NEEDS[slot]:
            put.add_precondition(self.filled(self.obj[f"slot {need}"]))
        self._move(put, b, src, here)
        put.add_effect(self.fixed(b), True)
        put.add_effect(self.filled(here), True)
        return put

    def _move(self, put: InstantaneousAction, b, src, dst) -> None:
        put.add_effect(self.at(b, dst), True)
        put.add_effect(self.at(b, src), False)
        put.add_effect(self.clear(src), True)
        put.add_effect(self.clear(dst), False)

    def _objects(self) -> None:
        self.obj: dict[str, Object] = {}
        kinds = {"block": self.Block, "bowl": self.Bowl}
        for name in self.state.objects:
            if kind_of(name) in kinds:
                self._add(name, kinds[kind_of(name)])
        self._add(TABLE, self.Surface)
        if STAND in self.state.objects and not self.pyramid:
            self._add(STAND, self.Surface)
        for slot in range(6) if self.pyramid else ():
            self._add(f"slot {slot}", self.Slot)
            self.problem.add_action(self._put_slot(slot))

    def _add(self, name: str, kind: UserType) -> None:
        self.obj[name] = Object(name.replace(" ", "_"), kind)
        self.problem.add_object(self.obj[name])

    def _set(self, fluent: Fluent, *names: str, value: bool = True) -> None:
        self.problem.set_initial_value(fluent(*(self.obj[n] for n in names)), value)

    def _initial_state(self) -> None:
        for name in self.state.blocks + self.state.bowls:
            self._set(self.target, name)
        for block in self.state.blocks:
            for place in self.state.blocks + self.state.bowls:
                if place != block and self._accepts(block, place):
                    self._set(self.good, block, place)
        in_slot = {block: slot for slot, block in self.slots.items()}
        for block in self.state.blocks:
            under = self._place_initially(block, in_slot.get(block))
            if under in self.obj and self._accepts(block, under):
                self._set(self.ok, block)

    def _accepts(self, block: str, place: str) -> bool:
        """Whether the goal is content with `block` in/on `place` (the static `good`)."""
        if self.goal.accept:
            return place in dict(self.goal.accept).get(block, ())
        family = self.goal.family
        if family in ("matching", "put"):
            return (block, place) in self.goal.pairs
        if family == "mismatched":
            return kind_of(place) == "bowl" and color_of(place) != color_of(block)
        if family == "stack-all":
            return kind_of(place) == "block" and block != self.base
        return False

    def _place_initially(self, block: str, slot: int | None) -> str:
        if slot is not None:
            self._set(self.at, block, f"slot {slot}")
            self._set(self.clear, f"slot {slot}", value=False)
            self._set(self.filled, f"slot {slot}")
            self._set(self.fixed, block)
            for below in SUPPORTS.get(slot, ()):
                self._set(self.clear, self.slots[below], value=False)
            return f"slot {slot}"
        pair = self.state.pair_support.get(block)
        under = pair[0] if pair else self.state.support.get(block, TABLE)
        if under not in self.obj:  # e.g. on the stand but in no slot: a loose block
            under = TABLE
        self._set(self.at, block, under)
        for support in pair or (under,):
            if kind_of(support) in ("block", "bowl"):
                self._set(self.clear, support, value=False)
        return under

    def _goals(self) -> None:
        goal = self.goal
        if goal.family == "pyramid":
            for slot in range(6):
                self.problem.add_goal(self.filled(self.obj[f"slot {slot}"]))
            return
        if goal.accept:
            blocks = [b for b, places in goal.accept if b in self.obj]
        elif goal.family in ("matching", "put"):
            blocks = [b for b, _ in goal.pairs]
        else:
            blocks = [b for b in goal.blocks if b != self.base]
        for block in blocks:
            self.problem.add_goal(self.ok(self.obj[block]))
        if self.base:
            self.problem.add_goal(self.at(self.obj[self.base], self.obj[TABLE]))

    def steps(self, actions) -> list[Step]:
        """FD's actions as put_first_on_second arguments; slot places become 'stand' or
        'a block and b block', naming the blocks in the supporting slots at that moment."""
        names = {o.name: n for n, o in self.obj.items()}
        occupants = dict(self.slots)
        steps = []
        for action in actions:
            args = [names[p.object().name] for p in action.actual_parameters]
            if not action.action.name.startswith("put_slot_"):
                steps.append(Step(args[0], args[2], room=action.action.name == "put_other"))
                continue
            slot = int(action.action.name.rsplit("_", 1)[1])
            below = SUPPORTS.get(slot)
            place = " and ".join(occupants[i] for i in below) if below else STAND
            occupants[slot] = args[0]
            steps.append(Step(args[0], place, slot))
        return steps
