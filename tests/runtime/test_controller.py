"""The controller on a real simulator with the oracle actor and reasoner."""

from __future__ import annotations

import pytest

from ravens_env.bullet import pb
from ravens_env.env import TabletopEnv
from runtime.components import make_actor, make_reasoner
from runtime.controller import ActionStuck, Claim, Controller, PlannerReport
from runtime.trace import TraceWriter, read_trace


@pytest.fixture
def make(tmp_path):
    envs = []

    def build(mode: str, task: str = "put-blocks-in-matching-bowls", seed: int = 0,
              situations: str = "none") -> Controller:
        env = TabletopEnv(situations=situations)
        envs.append(env)
        obs = env.reset(task, seed)
        trace = TraceWriter(tmp_path / f"run{len(envs)}", {"test": True})
        return Controller(env, make_actor("oracle", env), make_reasoner("oracle", env), mode,
                          obs, trace)

    yield build
    for env in envs:
        env.close()


def _blocks(c: Controller) -> list[str]:
    return [n for n in c.perceive_objects() if n.endswith("block")]


def _knock_out(c: Controller, name: str) -> None:
    body = c.env.scene(visibility=False).get(name).body_id
    pb.resetBasePositionAndOrientation(body, (0.3, 0.0, 0.021), (0, 0, 0, 1),
                                       physicsClientId=c.env.client)
    c.env.settle()


def test_claims_and_questions_say_in_for_bowls_and_on_otherwise():
    assert Claim("red block", "blue bowl").questions() == ["is the red block in the blue bowl?"]
    pyramid = Claim("red block", "green block and blue block")
    assert pyramid.questions() == ["is the red block on the green block?",
                                   "is the red block on the blue block?"]
    assert pyramid.instruction() == "put the red block on the green block and the blue block"


def test_progress_mode_redoes_an_earlier_action_that_was_undone(make):
    c = make("progress")
    first, second = _blocks(c)[:2]
    c.put_first_on_second(first, first.replace("block", "bowl"))
    c.obs = c.env.observe()
    _knock_out(c, first)  # undone behind the controller's back
    c.put_first_on_second(second, second.replace("block", "bowl"))
    scene = c.env.scene(visibility=False)
    assert scene.container_of(first) == first.replace("block", "bowl")
    assert c.counters.retries == 1


def test_success_mode_does_not_notice_an_earlier_action_undone(make):
    c = make("success")
    first, second = _blocks(c)[:2]
    c.put_first_on_second(first, first.replace("block", "bowl"))
    _knock_out(c, first)
    c.put_first_on_second(second, second.replace("block", "bowl"))
    assert c.env.scene(visibility=False).container_of(first) is None
    assert c.counters.retries == 0


def test_a_new_codeplan_keeps_only_claims_that_still_hold(make):
    c = make("progress")
    first, second = _blocks(c)[:2]
    c.put_first_on_second(first, first.replace("block", "bowl"))
    c.put_first_on_second(second, second.replace("block", "bowl"))
    _knock_out(c, first)
    c.obs = c.env.observe()
    c.begin_codeplan()
    assert [x.pick for x in c.claims] == [second]


@pytest.mark.parametrize(("call", "message"), [
    (lambda c: c.put_first_on_second("purple block", "red bowl"), "unknown pick"),
    (lambda c: c.put_first_on_second("cyan bowl", "pink block"), "only blocks"),
    (lambda c: c.find_object_related_to_obj("under", "red block"), "unknown relation"),
    (lambda c: c.is_true("how many blocks are there?"), "not a yes/no question"),
    (lambda c: c.ask("what is the meaning of life?"), "unsupported question"),
])
def test_bad_primitive_calls_raise_clear_errors(make, call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call(make("progress"))


def test_tell_planner_stops_the_codeplan_with_the_message(make):
    c = make("progress")
    with pytest.raises(PlannerReport, match="no green bowl"):
        c.tell_planner("no green bowl")
    assert c.reports == ["no green bowl"]


def test_reasoning_primitives_answer_from_the_reasoner(make):
    c = make("progress", task="stack-blocks", seed=0)
    block = _blocks(c)[0]
    assert c.find_object_related_to_obj("below", block) == "table"
    assert c.find_object_related_to_obj("above", block) is None
    assert c.ask("how many blocks are there?") == str(len(_blocks(c)))
    assert c.is_true(f"is there a {block}?")


class _World:
    """A scripted world for the redo order: which claims hold, what the actor did, what was
    asked. `fixes` maps a redone claim's instruction to the claims it makes hold."""

    name = "scripted"

    def __init__(self, holds: dict[str, bool], fixes: dict[str, list[str]]) -> None:
        import numpy as np

        from ravens_env.types import ActionResult, Observation

        self.holds, self.fixes, self.log = holds, fixes, []
        blank = np.zeros((4, 4, 3), np.uint8)
        self.obs = Observation(blank, np.zeros((4, 4), np.float32), blank,
                               np.zeros((4, 4), np.float32), "", 0, ActionResult(ok=True))

    def act(self, obs, instruction):
        from ravens_env.types import PickPlace

        self.log.append(instruction)
        for question in self.fixes.get(instruction, []):
            self.holds[question] = True
        return PickPlace((0.5, 0.0, 0.0), (0.5, 0.1, 0.0))

    def execute(self, action):
        return self.obs

    def ask(self, image, questions):
        from vrs.reasoner import Answer

        self.log.append("check")
        return [Answer("yes" if self.holds.get(q, False) else "no") for q in questions]


def _scripted(tmp_path, world: _World, claims: list[Claim]) -> Controller:
    c = Controller(world, world, world, "progress", world.obs, TraceWriter(tmp_path / "r", {}))
    c.claims = claims
    return c


def test_a_claim_that_builds_on_a_block_just_redone_waits_for_the_next_check(tmp_path):
    """After a tower fell: 'gray on blue' is redone and checked before 'green on gray' is
    redone (the green block would otherwise go onto a gray block not yet back in place)."""
    first, second = Claim("gray block", "blue block"), Claim("green block", "gray block")
    world = _World({}, {first.instruction(): first.questions(),
                        second.instruction(): second.questions()})
    _scripted(tmp_path, world, [first, second])._hold([first, second])
    assert world.log == ["check", first.instruction(), "check", second.instruction(), "check"]


def test_only_the_claims_that_build_on_a_moved_block_wait(tmp_path):
    """A claim into a bowl is redone in the same round; a claim whose block is where an
    earlier redo put something (the second branch of `_builds_on`) and one that builds on a
    waiting claim wait."""
    base = Claim("gray block", "blue block")
    on_it, above = Claim("green block", "gray block"), Claim("pink block", "green block")
    under = Claim("blue block", "red bowl")  # the block the first redo put something on
    bowl = Claim("red block", "yellow bowl")
    claims = [base, on_it, above, under, bowl]
    world = _World({}, {c.instruction(): c.questions() for c in claims})
    _scripted(tmp_path, world, claims)._hold(claims)
    assert world.log[:4] == ["check", base.instruction(), bowl.instruction(), "check"]
    assert world.log[4:] == [on_it.instruction(), under.instruction(), "check",
                             above.instruction(), "check"]


def test_claims_into_bowls_are_redone_in_one_round_as_before(tmp_path):
    first, second = Claim("red block", "red bowl"), Claim("blue block", "blue bowl")
    world = _World({}, {first.instruction(): first.questions(),
                        second.instruction(): second.questions()})
    _scripted(tmp_path, world, [first, second])._hold([first, second])
    assert world.log == ["check", first.instruction(), second.instruction(), "check"]


def test_at_start_questions_see_the_scene_before_any_action(make):
    c = make("progress")
    block = _blocks(c)[0]
    bowl = block.replace("block", "bowl")
    before = c.find_object_related_to_obj("below", block)
    c.put_first_on_second(block, bowl)
    assert c.is_true(f"is the {block} in the {bowl}?")
    assert not c.is_true(f"is the {block} in the {bowl}?", at_start=True)
    assert c.find_object_related_to_obj("below", block, at_start=True) == before == "table"
    assert c.history == [(block, bowl)]


def test_the_history_keeps_every_put_in_order_even_a_failed_one(make):
    c = make("open-loop")
    first, second = _blocks(c)[:2]
    c.put_first_on_second(first, second)
    c.put_first_on_second(second, second.replace("block", "bowl"))
    assert c.history == [(first, second), (second, second.replace("block", "bowl"))]


class _Hiding:
    """A scripted reasoner that sees `visible` and answers in/on questions from `holds`;
    a question about an object it does not see gets the detector's "unknown object" reply."""

    name = "scripted"

    def __init__(self, visible: list[str], holds: set[str]) -> None:
        self.visible, self.holds, self.asked = visible, holds, []

    def ask(self, image, questions):
        import re

        from vrs.reasoner import Answer

        out = []
        for q in questions:
            self.asked.append(q)
            names = re.findall(r"the (\w+ block|\w+ bowl|stand)", q)
            missing = [n for n in names if n not in self.visible]
            if q == "what objects are on the table?":
                out.append(Answer(", ".join(self.visible)))
            elif missing:
                out.append(Answer(f"unknown object: no '{missing[0]}' in the scene", 0.0))
            elif q.startswith("what is below"):
                out.append(Answer("table"))
            else:
                out.append(Answer("yes" if q in self.holds else "no"))
        return out


def _hiding(tmp_path, reasoner: _Hiding, world: _World) -> Controller:
    return Controller(world, world, reasoner, "progress", world.obs,
                      TraceWriter(tmp_path / "r", {}))


def test_a_block_hidden_under_a_block_seen_on_it_still_holds():
    """A pyramid's bottom-row block hidden behind the block put on it: the claim seen in
    one part holds, and so does the hidden block's own claim; a hidden block nothing is seen
    on, or a claim answered "no", does not — unless a straddle seen holding rests on it
    (`under_straddle`, session 37: "yes" on one support and the other unseen counts)."""
    from runtime.controller import _believed

    base, top = Claim("brown block", "stand"), Claim("pink block", "blue block and brown block")
    alone = Claim("red block", "stand")
    hidden = frozenset({"brown block", "red block"})
    assert _believed([base, top, alone], [[None], [True, None], [None]], hidden) == \
        [True, True, False]
    assert _believed([base, top], [[False], [True, None]], hidden) == [True, True]
    assert _believed([base, top], [[False], [True, False]], hidden) == [False, False]
    assert _believed([base, alone], [[False], [None]], hidden) == [False, False]
    assert _believed([base], [[True]]) == [True]


def test_a_block_hidden_under_a_later_block_seen_anywhere_holds_and_so_does_that_block():
    """The claim on a hidden block need not be seen holding: a block seen that a later claim
    put on it explains why it is hidden (its own claim may fail on its other support), and a
    block seen whose supports are all hidden rests on them. Not so for a block claimed on it
    that is hidden too, nor for a claim made before the hidden block's own."""
    from runtime.controller import _believed

    base, mid = Claim("cyan block", "stand"), Claim("red block", "brown block and cyan block")
    assert _believed([base, mid], [[None], [None, None]],
                     frozenset({"cyan block", "brown block"})) == [True, True]
    assert _believed([base, mid], [[None], [False, None]],
                     frozenset({"cyan block", "brown block"})) == [True, False]
    assert _believed([base, mid], [[None], [None, None]],
                     frozenset({"cyan block", "brown block", "red block"})) == [False, False]
    assert _believed([mid, base], [[None, None], [None]],
                     frozenset({"cyan block", "brown block"})) == [True, False]
    in_bowl = Claim("red block", "blue bowl")  # a block in a bowl does not hide the bowl
    assert _believed([in_bowl], [[None]], frozenset({"blue bowl"})) == [False]
    top = Claim("yellow block", "pink block and red block")
    assert _believed([base, mid, top], [[None], [None, None], [None, None]],
                     frozenset({"cyan block", "brown block", "red block", "pink block"})) == \
        [True, True, True]


def test_the_objects_a_reasoner_does_not_see_are_read_from_its_answers():
    from runtime.controller import _missing

    assert _missing(["yes", "unknown object: no 'cyan block' in the scene; objects: stand",
                     "no", "unknown object: no 'stand' in the scene; objects: red block"]) == \
        {"cyan block", "stand"}
    assert _missing(["yes", "no"]) == frozenset()


def test_later_looks_keep_the_hidden_blocks_of_the_first_look(tmp_path):
    """Object permanence: a block the first look saw and a later look misses stays in the
    planner's objects, where its claim put it, and is not asked about; a redo is not spent
    on it while the block on top of it is seen."""
    everything = ["blue block", "brown block", "pink block", "stand"]
    base, top = Claim("brown block", "stand"), Claim("pink block", "blue block and brown block")
    reasoner = _Hiding(everything, set())
    world = _World({}, {})
    c = _hiding(tmp_path, reasoner, world)
    assert c.perceive_objects() == everything
    reasoner.visible = ["blue block", "pink block", "stand"]  # brown now behind the pink one
    reasoner.holds = {"is the pink block on the blue block?"}
    c.claims = [base, top]
    c._hold(c.claims)
    assert world.log == []  # nothing redone
    assert c.perceive_objects() == ["blue block", "pink block", "stand", "brown block"]
    reasoner.asked.clear()
    facts = c.perceive_facts()
    assert ("brown block", "on", "stand") in facts
    assert not any("brown" in q for q in reasoner.asked)
    c.trace.close()
    _, events = read_trace(tmp_path / "r")
    assert [e["objects"] for e in events if e["type"] == "hidden"] == [["brown block"]]
    assert any(e.get("unseen") == [str(base), str(top)] for e in events)


def test_a_stand_covered_by_its_blocks_stays_in_the_objects_and_its_claims_hold(tmp_path):
    """A pyramid's rows can hide the whole stand: a replan written without it refused
    "names the stand, which is not in the scene". A claim on the unseen stand under a block
    seen on it is unseen, not "no"."""
    base, top = Claim("brown block", "stand"), Claim("pink block", "brown block")
    reasoner = _Hiding(["brown block", "pink block", "stand"],
                       {"is the pink block on the brown block?"})
    world = _World({}, {})
    c = _hiding(tmp_path, reasoner, world)
    c.perceive_objects()
    reasoner.visible = ["brown block", "pink block"]
    assert c.perceive_objects() == ["brown block", "pink block", "stand"]
    c._hold([base, top])
    assert world.log == []  # the base claim is not redone


def test_a_hidden_block_with_nothing_seen_on_it_is_redone(tmp_path):
    reasoner = _Hiding(["red block", "stand"], set())
    world = _World({}, {})
    c = _hiding(tmp_path, reasoner, world)
    c.perceive_objects()
    reasoner.visible = ["stand"]
    claim = Claim("red block", "stand")
    with pytest.raises(ActionStuck, match="still does not hold"):
        c._hold([claim])
    assert world.log[0] == claim.instruction()


def test_a_codeplan_question_about_a_hidden_block_is_asked_of_the_last_image_listing_it(tmp_path):
    """The pyramid's codeplan asks "is the X left of the Y?" about base blocks after the row
    above hid one; it crashed on "unknown object". The question goes to the last image that
    listed the block (a block under others has not moved); a block never seen still raises."""
    from dataclasses import replace

    import numpy as np

    seen_in = {1: ["blue block", "brown block", "stand"], 2: ["blue block", "stand"]}

    class Frames(_Hiding):
        def ask(self, image, questions):
            self.images = [*getattr(self, "images", []), int(image[0, 0, 0])]
            self.visible = seen_in[self.images[-1]]
            return super().ask(image, questions)

    reasoner = Frames([], {"is the brown block left of the blue block?"})
    world = _World({}, {})
    c = _hiding(tmp_path, reasoner, world)
    c.obs = replace(world.obs, front_rgb=np.full((4, 4, 3), 1, np.uint8))
    c.perceive_objects()  # listed in image 1
    c.obs = replace(world.obs, front_rgb=np.full((4, 4, 3), 2, np.uint8))
    assert c.is_true("is the brown block left of the blue block?")
    assert reasoner.images[-2:] == [2, 1]  # the current image, then the last listing it
    with pytest.raises(ValueError, match="unknown object"):
        c.is_true("is the purple block left of the blue block?")


def test_a_block_seen_straddled_by_a_claim_that_holds_is_believed_in_place():
    """Under a middle-row block seen on both its supports, a base block answered "no" (the
    occlusion) holds; under one seen on one support only, or under a tower block, it does
    not."""
    from runtime.controller import _believed

    base = Claim("brown block", "stand")
    mid = Claim("pink block", "blue block and brown block")
    assert _believed([base, mid], [[False], [True, True]]) == [True, True]
    assert _believed([base, mid], [[False], [True, False]]) == [False, False]
    tower = Claim("green block", "brown block")
    assert _believed([base, tower], [[False], [True]]) == [False, True]


def test_a_failed_block_a_failed_straddle_is_seen_on_waits_for_the_straddle():
    """The top block read as off one support and a middle-row block under it read as off
    its own: the top block is redone first and the middle one waits (lifting it from under
    the top block wrecks the pyramid). Single-target claims keep their order."""
    from runtime.controller import _builds_on, _top_first

    mid = Claim("red block", "gray block and orange block")
    top = Claim("yellow block", "pink block and red block")
    assert _top_first([mid, top], {top: [False, True]}) == [top, mid]
    assert _builds_on(mid, top)  # so, after the top block, the middle one waits
    assert _top_first([mid, top], {top: [True, False]}) == [mid, top]  # not seen on it
    lower, upper = Claim("gray block", "blue block"), Claim("green block", "gray block")
    assert _top_first([lower, upper], {upper: [False]}) == [lower, upper]
