"""The failure and monitor audit: on hand-written trace events (each rule), and on the traces
of real episodes in progress and monitor mode."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from runtime.eval import audit
from runtime.run_config import RunConfig
from runtime.runner import run_episode


def _action(step, holds, picked, situations=(), lost_s=None, motion_s=4.0, ok=True):
    result = {"ok": ok, "picked": picked, "situations": list(situations), "motion_s": motion_s}
    if lost_s is not None:
        result["lost_s"] = lost_s
    return {"type": "action", "instruction": step, "holds": holds, "result": result}


RED = "put the red block in the red bowl"
BLUE = "put the blue block in the blue bowl"


def test_failure_kinds_follow_ground_truth():
    assert audit.failure_kind(_action(RED, True, "red block")) is None
    assert audit.failure_kind(_action(RED, False, "red block", ["drop"])) == "dropped"
    assert audit.failure_kind(_action(RED, False, "red block", ["pick_stay"])) == "failed grasp"
    assert audit.failure_kind(_action(RED, False, None, ok=False)) == "failed grasp"
    assert audit.failure_kind(_action(RED, False, "blue block")) == "wrong-object pick"
    assert audit.failure_kind(_action(RED, False, "red block", ["miss"])) == \
        "wrong-target place"


def test_recoveries_outcomes_and_monitor_errors_of_one_episode():
    events = [
        {"mode": "monitor"},
        _action(RED, False, "red block", ["drop"], lost_s=1.2, motion_s=1.5),
        {"type": "halt", "segment": "carry", "sim_s": 1.2, "reason": "the suction cup lost "
         "the block in transport", "recovery": "grasp"},
        {"type": "check", "believed": [False], "truth": [False]},
        {"type": "tool_switch", "tools": ["grasp"]},
        _action(RED, True, "red block"),
        _action(BLUE, False, "green block"),  # wrong block lifted, no halt: missed
        {"type": "check", "believed": [True, True], "truth": [True, False]},  # false completion
        {"type": "halt", "segment": "lift", "sim_s": 2.0, "reason": "the blue block has not "
         "moved: another block was lifted", "recovery": "grasp"},
        {"type": "episode_end", "success": False, "believed_done": True,
         "failure_reason": None},
    ]
    # the halt after BLUE belongs to it; make BLUE's halt a false alarm instead: right pick
    events[6] = _action(BLUE, False, "blue block", ["miss"])
    out = audit.audit_episode(events)
    kinds = [(f["kind"], f["recovery"], f["recovered"]) for f in out["failures"]]
    assert kinds == [("dropped", "halt:grasp", True),
                     ("wrong-target place", "halt:grasp", False)]
    assert out["halt_latency_s"] == [0.0]
    assert out["monitor_errors"] == {"false completion": 1, "missed completion": 0,
                                     "missed failure": 0, "false alarm": 1}
    assert out["wasted_motion_s"] == pytest.approx(1.5 + 4.0)
    events[6] = _action(BLUE, False, "green block")
    events.pop(8)  # no halt after the wrong lift
    assert audit.audit_episode(events)["monitor_errors"]["missed failure"] == 1


def test_a_redo_with_tools_and_a_replan_are_told_apart():
    events = [{"mode": "progress"}, _action(RED, False, "red block"),
              {"type": "tool_switch", "tools": ["grasp", "place"]}, _action(RED, True, "red block"),
              _action(BLUE, False, "blue block"), {"type": "replan"}]
    recoveries = [f["recovery"] for f in audit.audit_episode(events)["failures"]]
    assert recoveries == ["tool:grasp+place", "replan"]


@pytest.mark.parametrize("mode", ["progress", "monitor"])
def test_real_episodes_with_drops_are_audited_from_their_traces(tmp_path, mode):
    config = RunConfig(task="put-block-in-bowl", seed=1, mode=mode, actor="oracle",
                       reasoner="oracle", situations="drop=0.5", runs_dir=tmp_path,
                       report=False)
    result = run_episode(config)
    ep = audit.audit_episode([json.loads(x) for x in
                              open(f"{result.run_dir}/trace.jsonl").read().splitlines()])
    drops = [f for f in ep["failures"] if f["kind"] == "dropped"]
    assert drops, "seed 1 drops the block on its first carry"
    assert ep["monitor_errors"]["false completion"] == 0  # the oracle reasoner is right
    if mode == "monitor":
        # grasp again, until the third halt of the step asks for a new codeplan
        assert [f["recovery"] for f in drops][:2] == ["halt:grasp", "halt:grasp"]
        assert {f["recovery"] for f in drops} <= {"halt:grasp", "halt:replan"}
        assert ep["halt_latency_s"] and max(ep["halt_latency_s"]) <= 0.5
        assert all(h["scored"] == "true alarm" for h in ep["halts"])
    else:
        assert {f["recovery"] for f in drops} <= {"redo", "replan"} and not ep["halts"]


def test_the_cli_audits_a_results_dir_and_names_a_bad_one(tmp_path):
    bad = subprocess.run([sys.executable, "-m", "runtime.cli", "eval", "audit",
                          str(tmp_path / "none")], capture_output=True, text=True)
    assert bad.returncode == 2 and "no episodes.jsonl" in bad.stderr


def test_the_action_that_finishes_a_halt_is_not_a_failure_of_its_own():
    put_back = _action(RED, False, "blue block", motion_s=2.0)
    put_back["after_halt"] = "grasp"
    events = [{"mode": "monitor"}, _action(RED, False, "blue block", motion_s=1.0),
              {"type": "halt", "segment": "lift", "sim_s": 1.0, "reason": "the red block has "
               "not moved: another block was lifted", "recovery": "grasp"},
              put_back, _action(RED, True, "red block")]
    out = audit.audit_episode(events)
    assert [(f["kind"], f["recovery"], f["recovered"]) for f in out["failures"]] == [
        ("wrong-object pick", "halt:grasp", True)]
    assert out["monitor_errors"]["missed failure"] == 0
    assert out["halts"][0]["scored"] == "true alarm" and out["wasted_motion_s"] == 3.0


def test_a_displacement_by_the_action_is_counted_apart_from_an_injected_knock():
    """`displaced` in a result with no injected knock, tip or edge: the action moved it."""
    struck = _action(RED, True, "red block")
    struck["result"]["displaced"] = ["green block"]
    injected = _action(BLUE, True, "blue block", ["knock"])
    injected["result"]["displaced"] = ["green block"]
    end = {"type": "episode_end", "success": True, "believed_done": True, "failure_reason": None}
    out = audit.audit_episode([{"mode": "progress"}, struck, injected, end])
    assert out["displaced"] == 1 and out["success"]
    quiet = audit.audit_episode([{"mode": "progress"}, injected, end])
    assert quiet["displaced"] == 0
    column = {"progress": {**audit.audit_runs([]), "displaced": {"actions": 3, "episodes": 2,
                                                                 "succeeded": 1}}}
    assert "| displaced by an action, not injected: actions (episodes, succeeded) | 3 (2, 1) |" \
        in audit.markdown(column)
