"""Failure diagnostics: each category on hand-built trace events, and ground truth in traces."""

from __future__ import annotations

from runtime.eval.diagnostics import STUCK_STEPS, classify_action, diagnose

STEP = "put the red block in the blue bowl"
GREEN = "put the green block in the green bowl"


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
    events = [_act(False, situations=["drop"]), _act(True, step=GREEN)]
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
    assert diagnose([_act(False), _act(False)], False, False, retry)["failure_cause"] == "stuck"
    assert diagnose([], False, False, retry)["failure_cause"] == "stuck"
    assert diagnose([_act(True)], False, True, None)["failure_cause"] == "false done"
    assert diagnose([], False, False, "planner error: 500")["failure_cause"] == "planner error"
    # the episode budget and a failing reasoning service are causes of their own (issue 20)
    assert diagnose([], False, False, "episode budget: 600 s of execution used")[
        "failure_cause"] == "episode budget"
    assert diagnose([], False, False, "reasoner failed: 503")["failure_cause"] == \
        "reasoner failed"
    assert diagnose([], False, False, "stopped")["failure_cause"] == "other"


def test_traces_record_ground_truth_for_every_action(tmp_path):
    from runtime.eval.diagnostics import read_trace
    from runtime.run_config import RunConfig
    from runtime.runner import run_episode

    r = run_episode(RunConfig(task="put-block-in-bowl", seed=3, mode="progress",
                              reasoner="oracle", actor="oracle", situations="none",
                              runs_dir=tmp_path, report=False))
    actions = [e for e in read_trace(r.run_dir) if e.get("type") == "action"]
    assert actions and all(e["holds"] is True for e in actions)


def _end(relations: list[list[str]]) -> dict:
    """An `episode_end` event: a red and a green block, a blue and a green bowl, with the green
    block in the green bowl and `relations` besides."""
    objects = [{"name": n, "type": n.split()[1], "color": n.split()[0], "position": [0, 0, 0]}
               for n in ("red block", "green block", "blue bowl", "green bowl")]
    relations = [["green block", "in", "green bowl"], *relations]
    return {"type": "episode_end", "final_scene": {"objects": objects, "relations": relations}}


def test_an_effect_undone_later_and_never_redone_is_a_missed_failure():
    events = [_act(True), _act(True, picked="green block", step=GREEN),
              _end([["red block", "on", "table"]])]
    d = diagnose(events, success=False, believed_done=True, failure_reason="false done: ...")
    assert d["missed failure"] == 1 and d["undone later"] == 1
    assert d["failure_cause"] == "missed failure (undone later)"
    held = diagnose([*events[:2], _end([["red block", "in", "blue bowl"]])], False, True, None)
    assert held["missed failure"] == 0 and held["failure_cause"] == "false done"


def test_only_the_last_action_on_an_object_counts_for_missed_failures():
    moved_on = [_act(False), _act(True, step="put the red block in the green bowl"),
                _end([["red block", "in", "green bowl"]])]
    assert diagnose(moved_on, False, True, None)["missed failure"] == 0


def test_no_progress_for_stuck_steps_actions_at_the_end_is_stuck():
    failing = [_act(False, situations=["drop"])] * STUCK_STEPS
    d = diagnose([_act(True, step=GREEN), *failing], False, True, None)
    assert d["stuck"] and d["no_progress_streak"] == STUCK_STEPS
    assert d["failure_cause"] == "stuck"
    recovered = diagnose([*failing, _act(True)], True, True, None)
    assert not recovered["stuck"] and recovered["no_progress_streak"] == STUCK_STEPS
    assert recovered["failure_cause"] is None


def test_an_actor_error_makes_no_progress_and_is_missed_when_never_redone():
    error = {"type": "action", "instruction": STEP, "error": "actor: no such object"}
    d = diagnose([error], False, True, None)
    assert d["no_progress_streak"] == 1 and d["failure_cause"] == "missed failure"
