"""ConceptAgent's precondition gate (issue 24): an unmet precondition stops a put before it
moves and names the predicate; an unsure answer lets it run; end to end, no put whose
preconditions are unmet is executed."""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime.monitors.gate import PreconditionGate
from runtime.planners.preconditions import reference_set
from runtime.run_config import RunConfig, RunError
from runtime.runner import run_episode
from runtime.trace import read_trace
from tests.runtime.monitors.test_symbolic import A, FakeView

PUT = {"pick": "red block", "place": "blue bowl"}


def test_a_met_precondition_set_lets_the_call_run_and_is_traced():
    view = FakeView({})  # "is there anything on/in ...?" -> no: both clear
    gate = PreconditionGate(reference_set())
    assert gate.check(view.view(), "put_first_on_second", PUT) is None
    assert view.asked == ["is there anything on the red block?",
                          "is there anything in the blue bowl?"]
    kind, event = view.events[-1]
    assert kind == "precondition_check" and event["blocked"] is False
    assert gate.checked == 1 and gate.blocked == 0


def test_an_unmet_precondition_blocks_the_call_and_names_it():
    view = FakeView({"is there anything in the blue bowl?": A("yes")})
    gate = PreconditionGate(reference_set())
    why = gate.check(view.view(), "put_first_on_second", PUT)
    assert why.startswith("put_first_on_second('red block', 'blue bowl') was not run")
    assert "clear(blue bowl) (something is in the blue bowl)" in why
    assert "clear(red block)" not in why
    assert gate.blocked == 1 and view.events[-1][1]["blocked"] is True


def test_the_robots_own_state_answers_handempty_and_an_unsure_answer_does_not_block():
    held = FakeView({}, holding="green block")
    why = PreconditionGate(reference_set()).check(held.view(), "put_first_on_second", PUT)
    assert "handempty (the suction cup still holds a block)" in why
    unsure = FakeView({"is there anything in the blue bowl?": A("yes", score=0.01)})
    assert PreconditionGate(reference_set(), unsure_below=0.05).check(
        unsure.view(), "put_first_on_second", PUT) is None


def test_no_put_runs_whose_preconditions_are_unmet(tmp_path: Path):
    """A codeplan that puts two blocks into one bowl: the second put is stopped before it
    moves (the bowl holds the first), the planner is told which precondition failed, and
    the executed puts are exactly the ones whose checks passed."""
    plan = tmp_path / "plan.py"
    plan.write_text("from control_actions import put_first_on_second\n"
                    "from plan_actions import get_object_names, tell_planner\n"
                    "blocks = [o for o in get_object_names() if o.endswith('block')]\n"
                    "bowls = [o for o in get_object_names() if o.endswith('bowl')]\n"
                    "put_first_on_second(blocks[0], bowls[0])\n"
                    "put_first_on_second(blocks[1], bowls[0])\n"
                    "tell_planner('done')\n")
    r = run_episode(RunConfig(task="put-blocks-in-matching-bowls", seed=3, actor="oracle",
                              reasoner="oracle", planner="file",
                              planner_options={"path": str(plan)}, max_plans=2,
                              runs_dir=tmp_path, report=False, preconditions="reference"))
    _, events = read_trace(Path(r.run_dir))
    checks = [e for e in events if e["type"] == "precondition_check"]
    puts = [e for e in events if e["type"] == "action"]
    # plan 1: the first put runs, the second is stopped (the bowl is taken); plan 2 (the file
    # again): its first put is stopped too (the block it puts is in that bowl already)
    assert [c["blocked"] for c in checks] == [False, True, True]
    assert len(puts) == 1 and r.counts["blocked"] == 2
    assert "clear(" in next(e for e in events if e["type"] == "replan")["feedback"]
    assert next(e for e in events if e["type"] == "preconditions")["source"] == "reference"


def test_llm_preconditions_need_a_planner_with_an_llm(tmp_path: Path):
    with pytest.raises(RunError, match="offline planner has no LLM"):
        run_episode(RunConfig(actor="oracle", reasoner="oracle", runs_dir=tmp_path,
                              report=False, preconditions="llm"))
    with pytest.raises(RunError, match="unknown preconditions 'some'"):
        run_episode(RunConfig(runs_dir=tmp_path, preconditions="some"))


def test_each_kind_of_failed_predicate_is_said_for_the_planner():
    from runtime.monitors.predicates import Predicate
    from runtime.monitors.symbolic import Verdict, explain

    said = {str(p): explain(Verdict(p, not p.want)) for p in [
        Predicate("in", ("red block", "blue bowl"), want=False),
        Predicate("on", ("red block", "green block")),
        Predicate("holding", ("red block",)), Predicate("holding", ("red block",), False),
        Predicate("handempty", want=False), Predicate("clear", ("blue bowl",), want=False)]}
    assert said == {"not in(red block, blue bowl)": "the red block is already in the blue bowl",
                    "on(red block, green block)": "the red block is not on the green block",
                    "holding(red block)": "the suction cup does not hold the red block",
                    "not holding(red block)": "the suction cup holds the red block",
                    "not handempty": "the suction cup is empty",
                    "not clear(blue bowl)": "nothing is in the blue bowl"}
