"""Failure diagnostics: each category on hand-built trace events, and ground truth in traces."""

from __future__ import annotations

from runtime.episode_diagnostics import classify_action, diagnose

STEP = "put the red block in the blue bowl"


def _act(holds: bool, picked: str = "red block", situations=(), step: str = STEP) -> dict:
    return {"type": "action", "instruction": step, "holds": holds,
            "result": {"ok": True, "picked": picked, "situations": list(situations)}}


def test_each_action_gets_its_category():
    assert classify_action(_act(True)) is None
    assert classify_action(_act(False, picked="green block")) == "wrong-object pick"
    assert classify_action(_act(False, situations=["drop"])) == "injected failure"
    assert classify_action(_act(False)) == "wrong-target place"
    assert classify_action({"type": "action", "instruction": STEP}) is None  # no ground truth


def test_a_redone_failure_is_not_missed_and_the_episode_has_no_cause():
    events = [_act(False, situations=["miss"]), {"type": "retry"}, _act(True)]
    d = diagnose(events, success=True, believed_done=True, failure_reason=None)
    assert d["injected failure"] == 1 and d["missed failure"] == 0
    assert d["failure_cause"] is None and not d["false done"]


def test_an_unnoticed_injected_failure_is_missed_and_a_false_done():
    events = [_act(False, situations=["drop"]), _act(True, step="put the red block in x")]
    d = diagnose(events, success=False, believed_done=True, failure_reason="false done: ...")
    assert d["missed failure"] == 1 and d["false done"]
    assert d["failure_cause"] == "missed failure"


def test_the_actors_own_error_is_the_cause_when_it_was_left_wrong():
    d = diagnose([_act(False, picked="green block")], success=False, believed_done=True,
                 failure_reason=None)
    assert d["failure_cause"] == "wrong-object pick"
    d = diagnose([_act(False)], success=False, believed_done=False, failure_reason=None)
    assert d["failure_cause"] == "wrong-target place"


def test_stuck_false_done_and_planner_errors_without_a_missed_action():
    retry = "retry budget: more than 8 retries"
    assert diagnose([_act(False), _act(False)], False, False, retry)["failure_cause"] == (
        "wrong-target place")
    assert diagnose([], False, False, retry)["failure_cause"] == "stuck"
    assert diagnose([_act(True)], False, True, None)["failure_cause"] == "false done"
    assert diagnose([], False, False, "planner error: 500")["failure_cause"] == "planner error"
    assert diagnose([], False, False, "stopped")["failure_cause"] == "other"


def test_traces_record_ground_truth_for_every_action(tmp_path):
    from runtime.episode_diagnostics import read_trace
    from runtime.run_config import RunConfig
    from runtime.runner import run_episode

    r = run_episode(RunConfig(task="put-block-in-bowl", seed=3, mode="progress",
                              reasoner="oracle", actor="oracle", situations="none",
                              runs_dir=tmp_path, report=False))
    actions = [e for e in read_trace(r.run_dir) if e.get("type") == "action"]
    assert actions and all(e["holds"] is True for e in actions)
