"""DKPROMPT's QA baselines (issue 22): one holistic question, no predicates, no belief."""

from __future__ import annotations

import pytest
from test_symbolic import A, FakeView  # the same fakes (this folder is on sys.path under pytest)

from runtime.monitors import QAMonitor, make_monitor
from runtime.run_config import RunConfig
from runtime.runner import run_episode
from runtime.trace import read_trace


def test_aff_qa_asks_whether_the_action_can_run_as_one_question():
    fake = FakeView({"is there anything in the blue bowl?": A("yes")}, holding="green block")
    why = QAMonitor("aff-qa").before(fake.view(), "red block", ["blue bowl"])
    assert why == "the robot could not put the red block in the blue bowl now"
    kind, event = fake.events[-1]
    assert kind == "qa_check" and event["answer"] == "no"
    assert event["question"] == "can the robot put the red block in the blue bowl now?"
    assert len(fake.asked) == 2  # its meaning, in one call; robot state is not consulted
    # the held block is not noticed: aff-qa has no non-vision predicate
    assert QAMonitor("aff-qa").before(FakeView({}, "green block").view(), "red block",
                                      ["blue bowl"]) is None


def test_suc_qa_asks_only_the_main_effect_and_keeps_no_belief():
    fake = FakeView({"is the red block in the blue bowl?": A("yes")})
    monitor = QAMonitor("suc-qa")
    assert monitor.after(fake.view(), "red block", ["blue bowl"], "gray bowl") is None
    assert fake.asked == ["is the red block in the blue bowl?"]  # not the old place
    assert monitor.belief is None and not monitor.keeps_belief
    assert monitor.before(fake.view(), "red block", ["blue bowl"]) is None  # no pre
    miss = FakeView({})
    assert QAMonitor("suc-aff-qa").after(miss.view(), "red block", ["blue bowl"], None) == (
        "the robot did not put the red block in the blue bowl")


def test_modes_get_their_monitors():
    assert make_monitor("progress", "detector") is None
    assert make_monitor("suc-aff-qa", "detector").check_pre
    assert make_monitor("dkprompt", "detector-tiny").unsure_below == 0.05
    with pytest.raises(ValueError, match="unknown QA mode"):
        QAMonitor("dkprompt")


def test_suc_aff_qa_replans_from_a_fresh_look(tmp_path):
    result = run_episode(RunConfig(task="put-blocks-in-mismatched-bowls", seed=5,
                                   mode="suc-aff-qa", actor="oracle", reasoner="oracle",
                                   situations="dkprompt-grasp", runs_dir=tmp_path,
                                   report=False))
    assert result.success, result.failure_reason
    events = read_trace(result.run_dir)[1]
    assert {e["check"] for e in events if e["type"] == "qa_check"} == {"affordance", "success"}
    sweeps = [e for e in events if e["type"] == "questions"
              and sum(q.startswith("what is below") for q, *_ in e["qa"]) > 1]
    assert result.counts["replans"] >= 1 and len(sweeps) == result.counts["replans"] + 1


def test_the_reasoners_name_is_asked_only_when_a_monitor_needs_its_threshold():
    """The name of a reasoning service is a request; a failing service must not break the
    controller's construction (a slow fuzz test found this), only the episode's questions."""
    def failing() -> str:
        raise ConnectionError("service down")

    assert make_monitor("progress", failing) is None
    monitor = make_monitor("dkprompt", failing)
    with pytest.raises(ConnectionError):
        _ = monitor.unsure_below
    assert make_monitor("aff-qa", lambda: "detector-tiny").unsure_below == 0.05
