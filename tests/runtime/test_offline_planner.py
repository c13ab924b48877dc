"""The offline planner: instruction families and paraphrases, perceived facts, Fast Downward,
and the codeplans it writes, run against a small symbolic world that enforces the physics
the planner must respect (only clear blocks can be picked, a bowl holds one block, the
pyramid's stand fills left to right and upper blocks straddle two adjacent ones)."""

from __future__ import annotations

import ast
import os
import subprocess
import time

import pytest

from runtime.planners.base import PlannerError, PlanRequest
from runtime.planners.instruction_parser import parse_instruction
from runtime.planners.offline import OfflinePlanner
from runtime.planners.scene_state import scene_state

API_MODULES = {"control_actions", "plan_actions", "reasoning_actions"}
FOUR = ["red", "blue", "green", "yellow"]
BOWLS4 = [f"{c} block" for c in FOUR] + [f"{c} bowl" for c in FOUR]
SIX = ["red", "blue", "green", "yellow", "cyan", "pink"]
PYRAMID = [f"{c} block" for c in SIX] + ["stand"]
STACK = ["red block", "blue block", "green block", "orange block"]
UPPER = {3: (0, 1), 4: (1, 2), 5: (3, 4)}


@pytest.fixture(scope="module")
def planner():
    return OfflinePlanner()


# -- a symbolic world that runs codeplans in the real sandbox -------------------------------
class Done(BaseException):
    """tell_planner('done'); a BaseException ends the codeplan, as the controller's stop does."""


class Report(BaseException):
    """tell_planner(<anything else>)."""


ACTIVE: dict[str, World] = {}  # the world the sandboxed codeplan's calls go to


def _to_world(name: str):
    return lambda *args: getattr(ACTIVE["world"], name)(*args)


@pytest.fixture(scope="module", autouse=True)
def sandbox():
    from runtime.sandbox import Sandbox

    api = {"control_actions": {"put_first_on_second": _to_world("put_first_on_second")},
           "plan_actions": {"get_object_names": _to_world("get_object_names"),
                            "tell_planner": _to_world("tell_planner")},
           "reasoning_actions": {"is_true": _to_world("is_true"), "ask": _to_world("ask"),
                                 "find_object_related_to_obj": _to_world("find_related")}}
    with Sandbox(api) as box:
        ACTIVE["sandbox"] = box
        yield box


class World:
    """What rests on what; raises AssertionError on a physically impossible call."""

    def __init__(self, objects: list[str], facts=(), slots: dict[int, str] | None = None
                 ) -> None:
        """`slots` (pyramid) says where the blocks on the stand really are; by default they
        fill the slots in the order of the facts."""
        self.objects = list(objects)
        self.under: dict[str, tuple[str, ...]] = {
            o: ("table",) for o in objects if o.endswith("block")}
        self.slots: dict[int, str] = {}
        supports: dict[str, list[str]] = {}
        for subject, _relation, obj in facts:
            supports.setdefault(subject, []).append(obj)
        for subject, objs in supports.items():  # facts list lower rows first
            if objs == ["stand"]:
                self.slots[len(self.slots)] = subject
                if slots:
                    self.slots = dict(slots)
            elif len(objs) == 2:
                self.slots[self._slot_over(tuple(objs))] = subject
            self.under[subject] = tuple(objs)
        self.calls: list[tuple[str, str]] = []
        self.questions: list[str] = []
        self.away = False  # the stand's row runs away from the camera (see is_true)

    def _slot_over(self, targets: tuple[str, ...]) -> int:
        where = {b: s for s, b in self.slots.items()}
        below = tuple(sorted(where[t] for t in targets))
        return next(s for s, pair in UPPER.items() if pair == below)

    def on_top(self, obj: str) -> list[str]:
        return [b for b, u in self.under.items() if obj in u]

    def put_first_on_second(self, pick: str, place: str) -> None:
        assert pick in self.under, f"cannot pick {pick!r}"
        assert not self.on_top(pick), f"{pick} is under {self.on_top(pick)}"
        self.calls.append((pick, place))
        self.slots = {s: b for s, b in self.slots.items() if b != pick}
        if place == "stand":
            slot = min(s for s in range(3) if s not in self.slots)
            self.slots[slot], self.under[pick] = pick, ("stand",)
            return
        targets = tuple(place.split(" and "))
        for target in targets:
            assert target in self.objects and target != pick, f"bad place {place!r}"
            assert not self.on_top(target) or len(targets) == 2, f"{target} is not clear"
        if len(targets) == 2:
            slot = self._slot_over(targets)
            assert slot not in self.slots, f"slot {slot} taken"
            self.slots[slot] = pick
        self.under[pick] = targets

    def tell_planner(self, message: str) -> None:
        raise Done() if message == "done" else Report(message)

    def is_true(self, question: str) -> bool:
        body = question.removeprefix("is the ").removesuffix("?")
        self.questions.append(question)
        where = {b: s for s, b in self.slots.items()}
        if " left of the " in body:  # the stand's row runs left to right, slot 0 leftmost
            subject, obj = body.split(" left of the ")
            if self.away:  # nearly away from the camera: only the ends are apart sideways
                return (where[subject], where[obj]) == (0, 2)
            return where[subject] < where[obj]
        if " in front of the " in body:
            subject, obj = body.split(" in front of the ")
            return self.away and where[subject] < where[obj]
        relation = " in the " if " in the " in body else " on the "
        subject, obj = body.split(relation)
        return obj in self.under.get(subject, ())

    def get_object_names(self) -> list[str]:
        return list(self.objects)

    def ask(self, question: str) -> str:
        raise AssertionError(f"unexpected ask({question!r})")

    def find_related(self, relation: str, obj: str) -> str:
        raise AssertionError(f"unexpected find_object_related_to_obj({relation!r}, {obj!r})")

    def run(self, source: str, ending: type[BaseException] = Done) -> None:
        """Run a codeplan in the sandbox with this world behind the three modules; it must
        end with `ending` (tell_planner('done') by default)."""
        ACTIVE["world"] = self
        with pytest.raises(ending) as stop:
            result = ACTIVE["sandbox"].run(source)
            pytest.fail(f"the codeplan ended without tell_planner: {result}")
        self.stop = stop.value

    def bowl_of(self, block: str) -> str | None:
        under = self.under[block]
        return under[0] if under[0].endswith("bowl") else None


def check_source(source: str) -> None:
    """Valid Python, imports only the three modules, no dunders, passes the sandbox policy."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            pytest.fail(f"plain import in codeplan: {ast.unparse(node)}")
        if isinstance(node, ast.ImportFrom):
            assert node.module in API_MODULES and node.level == 0
        if isinstance(node, ast.Name):
            assert not node.id.startswith("_")
        if isinstance(node, ast.Attribute):
            assert "__" not in node.attr
    assert "__" not in source
    from runtime.sandbox import compile_codeplan

    compile_codeplan(source)


def plan_and_run(planner, instruction, objects, facts=(), slots=None, **request) -> World:
    plan = planner.plan(PlanRequest(instruction, list(objects), list(facts), **request))
    check_source(plan.source)
    assert plan.planner == "offline" and plan.notes.startswith("fast-downward: ")
    world = World(objects, facts, slots)
    world.run(plan.source)
    assert plan.notes == f"fast-downward: {len(world.calls)} action" + "s" * (
        len(world.calls) != 1)
    return world


# -- parsing (no solver) --------------------------------------------------------------------
MATCHING = ["put the blocks in the bowls with matching colors",
            "put the darker blocks in the bowls with matching colors",
            "put each block in the bowl of the same color",
            "sort the blocks into bowls that match their color",
            "Place every block into the bowl with the matching colour."]
MISMATCHED = ["put the blocks in bowls of a different color",
              "put the blocks in mismatched bowls",
              "put the blocks in bowls that don't match",
              "place each block in a bowl of another colour"]
SINGLE = ["put the red block in the blue bowl", "place the red block into the blue bowl",
          "move the red block to the blue bowl",
          "pick up the red block and drop it into the blue bowl",
          "move the red block from the green bowl to the blue bowl"]
ON_BLOCK = ["stack the red block on the green block", "put the red block on top of the green block",
            "place the red block onto the green block"]
STACK_ALL = ["stack all the blocks", "make a tower of all the blocks", "stack the blocks",
             "pile up all the blocks"]
STACK_ON = ["stack all the blocks on the red block", "put all the blocks on the red block",
            "build a tower with the red block at the bottom"]
PYRAMIDS = ["stack all the blocks in a 3-2-1 pyramid on the stand",
            "build a pyramid with the blocks", "stack the blocks into a pyramid",
            "make a 3-2-1 pyramid on the stand"]
SCENE = [*BOWLS4, "stand", "cyan block", "pink block"]


@pytest.mark.parametrize("text", MATCHING)
def test_matching_paraphrases(text):
    goal = parse_instruction(text, BOWLS4)
    assert goal.family == "matching"
    assert goal.pairs == tuple((f"{c} block", f"{c} bowl") for c in FOUR)
    assert goal.darker == ("darker" in text)


@pytest.mark.parametrize("text", MISMATCHED)
def test_mismatched_paraphrases(text):
    goal = parse_instruction(text, BOWLS4)
    assert (goal.family, set(goal.blocks)) == ("mismatched", set(BOWLS4[:4]))


@pytest.mark.parametrize("text", SINGLE)
def test_single_block_in_bowl_paraphrases(text):
    assert parse_instruction(text, BOWLS4).pairs == (("red block", "blue bowl"),)


@pytest.mark.parametrize("text", ON_BLOCK)
def test_block_on_block_paraphrases(text):
    goal = parse_instruction(text, BOWLS4)
    assert (goal.family, goal.pairs) == ("put", (("red block", "green block"),))


@pytest.mark.parametrize("text", STACK_ALL)
def test_stack_all_paraphrases(text):
    goal = parse_instruction(text, STACK)
    assert (goal.family, goal.base, goal.blocks) == ("stack-all", None, tuple(STACK))


@pytest.mark.parametrize("text", STACK_ON)
def test_stack_all_on_a_named_block_paraphrases(text):
    goal = parse_instruction(text, STACK)
    assert (goal.family, goal.base) == ("stack-all", "red block")


@pytest.mark.parametrize("text", PYRAMIDS)
def test_pyramid_paraphrases(text):
    assert parse_instruction(text, PYRAMID).family == "pyramid"


def test_several_pairs_in_one_instruction():
    goal = parse_instruction("put the red block in the blue bowl and the green block in the "
                             "red bowl", BOWLS4)
    assert goal.pairs == (("red block", "blue bowl"), ("green block", "red bowl"))


@pytest.mark.parametrize(("text", "objects", "expected"), [
    ("make me a coffee", BOWLS4, "no task verb (put/place/move/stack/build/swap/...) found"),
    ("put the purple block in the blue bowl", BOWLS4,
     "names the purple block, which is not in the scene"),
    ("put the red block in the purple bowl", BOWLS4, "purple bowl"),
    ("put the black block in the red bowl", BOWLS4, "names the black block, which is not"),
    ("put the red block next to the blue bowl", BOWLS4, "the words 'next' are not in my "
                                                        "grammar"),
    ("put the blocks in the bowls", BOWLS4, "understood the verb 'put', no object names"),
    ("put the red block on the stand", SCENE, "understood the verb 'put' and the red block, "
                                               "the stand, but no goal I know"),
    ("build a pyramid", BOWLS4, "no stand"),
    ("build a pyramid", [*STACK, "stand"], "needs 6 blocks; there are 4"),
    ("put the blocks in bowls of a different color", SCENE, "6 blocks, 4 bowls"),
    ("put the blocks in the bowls with matching colors", ["red block", "blue bowl"],
     "no block has a bowl of its color"),
    ("stack the red block on the red block", BOWLS4, "on itself"),
    ("stack all the blocks on the red block and the blue block", STACK, "names red block and"),
])
def test_unreadable_instructions_say_what_was_understood(text, objects, expected):
    with pytest.raises(PlannerError) as err:
        parse_instruction(text, objects)
    assert expected in str(err.value)
    assert repr(text) in str(err.value) or text in str(err.value)


def test_facts_become_the_initial_state():
    state = scene_state(PYRAMID, [("red block", "on", "stand"), ("blue block", "on", "stand"),
                                  ("green block", "on", "red block"),
                                  ("green block", "on", "blue block"),
                                  ("cyan block", "on", "yellow block and pink block"),
                                  ("purple block", "in", "red bowl"), ("red block", "left of",
                                                                       "blue block")])
    assert state.support["red block"] == "stand"
    assert state.pair_support == {"green block": ("red block", "blue block"),
                                  "cyan block": ("yellow block", "pink block")}
    assert state.resting_on("yellow block") == "table"  # no fact: on the table
    assert state.ignored == [("purple block", "in", "red bowl")]
    assert state.left_of == [("red block", "blue block")]


# -- planning and running (Fast Downward) ---------------------------------------------------
def test_matching_plan_puts_every_block_in_its_bowl(planner):
    world = plan_and_run(planner, MATCHING[0], BOWLS4)
    assert all(world.bowl_of(f"{c} block") == f"{c} bowl" for c in FOUR)
    assert len(world.calls) == 4


def test_facts_are_honoured_and_done_goals_skipped(planner):
    facts = [("blue block", "in", "blue bowl"), ("green block", "on", "red block"),
             ("yellow block", "on", "green block")]
    world = plan_and_run(planner, "sort the blocks into bowls that match their color",
                         BOWLS4, facts)
    assert all(world.bowl_of(f"{c} block") == f"{c} bowl" for c in FOUR)
    assert [pick for pick, _ in world.calls] == ["yellow block", "green block", "red block"]


def test_mismatched_plan_is_a_derangement_with_one_block_per_bowl(planner):
    world = plan_and_run(planner, MISMATCHED[0], BOWLS4)
    bowls = [world.bowl_of(b) for b in BOWLS4[:4]]
    assert None not in bowls and len(set(bowls)) == 4
    assert all(b.split()[0] != w.split()[0] for b, w in zip(BOWLS4[:4], bowls, strict=True))


def test_mismatched_keeps_good_placements_and_frees_a_needed_bowl(planner):
    # red and blue already swapped; green sits in its own bowl, yellow on the table: moving
    # yellow into the green bowl needs the green block out first, and one spare bowl exists.
    objects = [*BOWLS4, "cyan bowl"]
    facts = [("red block", "in", "blue bowl"), ("blue block", "in", "red bowl"),
             ("green block", "in", "green bowl")]
    world = plan_and_run(planner, "put the blocks in mismatched bowls", objects, facts)
    assert all(p not in ("red block", "blue block") for p, _ in world.calls)
    assert len(world.calls) == 2
    bowls = [world.bowl_of(b) for b in BOWLS4[:4]]
    assert len(set(bowls)) == 4 and all(
        b.split()[0] != w.split()[0] for b, w in zip(BOWLS4[:4], bowls, strict=True))


def test_single_block_in_bowl_clears_it_first(planner):
    facts = [("green block", "on", "red block"), ("yellow block", "in", "blue bowl")]
    world = plan_and_run(planner, "place the red block into the blue bowl", BOWLS4, facts)
    assert world.bowl_of("red block") == "blue bowl"
    assert world.calls[-1] == ("red block", "blue bowl") and len(world.calls) == 3


def test_stack_on_block(planner):
    world = plan_and_run(planner, "stack the red block on the green block", STACK)
    assert world.calls == [("red block", "green block")]


def _tower(world: World, base: str) -> list[str]:
    tower = [base]
    while above := world.on_top(tower[-1]):
        tower.append(above[0])
    return tower


def test_stack_all_builds_one_tower_on_the_tallest_existing_one(planner):
    facts = [("green block", "on", "blue block")]
    world = plan_and_run(planner, "make a tower of all the blocks", STACK, facts)
    assert world.under["blue block"] == ("table",)
    assert sorted(_tower(world, "blue block")) == sorted(STACK)
    assert len(world.calls) == 2


def test_stack_all_on_named_block_unstacks_in_the_right_order(planner):
    facts = [("green block", "on", "blue block"), ("orange block", "on", "green block")]
    world = plan_and_run(planner, "stack all the blocks on the red block", STACK, facts)
    assert _tower(world, "red block") == ["red block", "orange block", "green block",
                                          "blue block"]
    assert len(world.calls) == 3


def test_pyramid_order_three_then_two_then_one(planner):
    world = plan_and_run(planner, PYRAMIDS[0], PYRAMID)
    places = [place for _, place in world.calls]
    assert places[:3] == ["stand"] * 3
    assert all(p.count(" and ") == 1 for p in places[3:]) and len(places) == 6
    assert sorted(world.slots) == list(range(6))
    row = [world.slots[i] for i in range(3)]
    assert places[3] == f"{row[0]} and {row[1]}" and places[4] == f"{row[1]} and {row[2]}"


def test_half_built_pyramid_recovery_does_only_what_is_left(planner):
    facts = [("red block", "on", "stand"), ("blue block", "on", "stand"),
             ("green block", "on", "stand"), ("yellow block", "on", "red block"),
             ("yellow block", "on", "blue block")]
    world = plan_and_run(planner, PYRAMIDS[1], PYRAMID, facts, attempt=1,
                         feedback=["an action kept failing: cyan block on blue block"])
    (first, under_first), (second, under_second) = world.calls
    assert {first, second} == {"cyan block", "pink block"}
    assert under_first == "blue block and green block"
    assert under_second == f"yellow block and {first}"


@pytest.mark.parametrize("truth", [
    {0: "blue block", 1: "red block", 2: "green block"},  # the planner's guess is wrong
    {0: "red block", 1: "blue block", 2: "green block"},  # the guess is right
])
def test_bottom_row_of_unknown_order_is_ordered_by_asking(planner, truth):
    facts = [("red block", "on", "stand"), ("blue block", "on", "stand"),
             ("green block", "on", "stand")]
    world = plan_and_run(planner, PYRAMIDS[0], PYRAMID, facts, slots=truth)
    assert sorted(world.slots) == list(range(6)) and len(world.calls) == 3
    assert any(" left of the " in q for q in world.questions)


def test_a_row_ordered_by_neither_relation_alone_is_ordered_by_the_one_that_orders_it(planner):
    """A row running nearly away from the camera: "left of" holds for the two ends only, so
    one block (an end) has exactly one block left of it; the codeplan must not take it for
    the middle but order the row by "in front of"."""
    facts = [("red block", "on", "stand"), ("blue block", "on", "stand"),
             ("green block", "on", "stand")]
    plan = planner.plan(PlanRequest(PYRAMIDS[0], list(PYRAMID), facts))
    world = World(PYRAMID, facts, {0: "blue block", 1: "green block", 2: "red block"})
    world.away = True
    world.run(plan.source)
    assert sorted(world.slots) == list(range(6)) and len(world.calls) == 3
    assert any(" in front of the " in q for q in world.questions)


def test_gap_in_the_bottom_row_is_filled_then_ordered(planner):
    # Red and green stand in the outer slots: "on the stand" fills the middle one, which the
    # planner cannot know from "on the stand" facts; the codeplan asks before building on it.
    facts = [("red block", "on", "stand"), ("green block", "on", "stand")]
    world = plan_and_run(planner, PYRAMIDS[0], PYRAMID, facts,
                         slots={0: "red block", 2: "green block"})
    assert sorted(world.slots) == list(range(6)) and len(world.calls) == 4


def test_known_middle_row_keeps_its_side(planner):
    # Yellow straddles red and blue, so the row is red-blue-green or blue-red-green; asking
    # decides which, and the new middle-row block goes on the other side.
    facts = [("red block", "on", "stand"), ("blue block", "on", "stand"),
             ("green block", "on", "stand"), ("yellow block", "on", "red block"),
             ("yellow block", "on", "blue block")]
    truth = {0: "green block", 1: "red block", 2: "blue block"}
    world = plan_and_run(planner, PYRAMIDS[0], PYRAMID, facts,
                         slots={**truth, 4: "yellow block"})
    pick, place = world.calls[0]
    assert pick in ("cyan block", "pink block")
    assert set(place.split(" and ")) == {"green block", "red block"}
    assert sorted(world.slots) == list(range(6))


def test_nothing_left_rechecks_then_reports_done(planner):
    facts = [("red block", "in", "blue bowl")]
    plan = planner.plan(PlanRequest(SINGLE[0], BOWLS4, facts))
    assert plan.notes == "fast-downward: 0 actions"
    assert "is_true(question)" in plan.source and "'is the red block in the blue bowl?'" in (
        plan.source)
    world = World(BOWLS4, facts)
    world.run(plan.source)
    assert world.calls == []
    world = World(BOWLS4)  # perception was wrong: the codeplan asks for a new plan
    world.run(plan.source, ending=Report)
    assert str(world.stop) == "not as perceived: is the red block in the blue bowl?"


def test_recovery_feedback_is_a_comment_and_cannot_inject_code(planner):
    feedback = ["the codeplan reported: oops\nimport os\r\x00os.system('x')", "second\u2028x"]
    plan = planner.plan(PlanRequest(SINGLE[0], BOWLS4, attempt=2, feedback=feedback,
                                    previous=["print(1)"]))
    check_source(plan.source)
    comments = [ln for ln in plan.source.splitlines() if "oops" in ln or "second x" in ln]
    assert len(comments) == 2 and all(ln.startswith("#") for ln in comments)
    assert "Recovery codeplan (attempt 3)" in plan.source


def test_unsolvable_goal_is_a_planner_error(planner):
    # The red block is in a bowl and must be the base of a tower: there is no put to the table.
    with pytest.raises(PlannerError, match="cannot put a block back on the table"):
        planner.plan(PlanRequest(STACK_ON[0], [*STACK, "blue bowl"],
                                 [("red block", "in", "blue bowl")]))
    with pytest.raises(PlannerError, match="no sequence of put actions reaches the goal"):
        planner.plan(PlanRequest(MISMATCHED[0], ["red block", "red bowl"]))


def _session_alive(sid: int) -> list[int]:
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            alive.append(int(entry))
    return alive


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to list processes")
def test_time_limit_kills_the_whole_fast_downward_process_group(monkeypatch):
    from unified_planning.engines import pddl_planner

    started: list[int] = []

    class Recording(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            started.append(self.pid)

    monkeypatch.setattr(pddl_planner.subprocess, "Popen", Recording)
    colors = ["red", "blue", "green", "yellow", "orange", "purple", "pink", "cyan", "brown",
              "white", "gray"]
    objects = [f"{c} block" for c in colors] + [f"{c} bowl" for c in colors]
    t0 = time.perf_counter()
    with pytest.raises(PlannerError, match=r"no plan within 0\.3 s"):
        OfflinePlanner(time_limit_s=0.3).plan(PlanRequest(MISMATCHED[0], objects))
    assert time.perf_counter() - t0 < 3.0
    assert started, "Fast Downward was not started"
    deadline = time.monotonic() + 3.0  # seconds for SIGTERM to land on every member
    while _session_alive(started[0]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _session_alive(started[0]) == []


def test_time_limit_must_be_positive():
    with pytest.raises(ValueError, match="positive"):
        OfflinePlanner(time_limit_s=0)


def test_concurrent_plans_in_one_directory_do_not_read_each_others_files(tmp_path):
    """Fast Downward's driver writes output.sas into its working directory: processes planning
    at once from one directory (`eval closed-loop --workers 2`) read each other's tasks."""
    import subprocess
    import sys

    code = ("from runtime.planners.offline import OfflinePlanner\n"
            "from runtime.planners.base import PlanRequest\n"
            "objs = ['red block', 'blue block', 'red bowl', 'blue bowl']\n"
            "req = PlanRequest('put the blocks in the bowls with matching colors', objs,\n"
            "                  [(o, 'on', 'table') for o in objs if 'block' in o])\n"
            "plans = {OfflinePlanner().plan(req).source for _ in range(12)}\n"
            "assert len(plans) == 1, plans\n")
    procs = [subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(3)]
    errors = [p.communicate(timeout=300)[1] for p in procs]
    assert all(p.returncode == 0 for p in procs), [e[-400:] for e in errors]
    assert list(tmp_path.iterdir()) == []  # nothing left in the caller's directory


def test_a_killed_planners_folder_is_swept_and_a_live_ones_kept(tmp_path, monkeypatch):
    """A process killed mid-plan leaves its Fast Downward folder behind: the next plan removes
    the folders whose owner pid is gone and keeps those of processes still running."""
    import sys
    import tempfile

    from runtime.planners import pddl

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # reaped: its pid names no process now
    orphan = tmp_path / f"{pddl.FD_DIR_PREFIX}{gone.pid}-abc"
    live = tmp_path / f"{pddl.FD_DIR_PREFIX}{os.getppid()}-def"
    other = tmp_path / "codeplan-fd-notapid"
    for folder in (orphan, live, other):
        folder.mkdir()
        (folder / "output.sas").write_text("x")
    with pddl._private_cwd():
        assert os.path.basename(os.getcwd()).startswith(f"{pddl.FD_DIR_PREFIX}{os.getpid()}-")
    assert not orphan.exists() and live.exists() and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, other.name])
