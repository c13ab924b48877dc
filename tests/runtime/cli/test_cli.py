"""The `codeplan` console script, run as a user would (a real subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ravens_env.tasks import task_ids


def codeplan(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runtime.cli", *args], capture_output=True,
                          text=True, timeout=300)


def test_tasks_list_json_lists_every_registered_task():
    out = codeplan("tasks", "list", "--json")
    assert out.returncode == 0, out.stderr
    assert [row["id"] for row in json.loads(out.stdout)] == task_ids()
    assert out.stderr == ""  # no PyBullet banner


def test_tasks_show_json_has_instruction_objects_and_relations(tmp_path):
    image = tmp_path / "front.png"
    out = codeplan("tasks", "show", "stack-block-pyramid", "--seed", "3", "--json",
                   "--image", str(image))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["instruction"] == "stack all the blocks in a 3-2-1 pyramid on the stand"
    names = {o["name"] for o in data["objects"]}
    assert len(names) == 7 and "stand" in names
    assert ["stand", "on", "table"] in data["relations"]
    assert image.read_bytes()[:4] == b"\x89PNG"


def test_tasks_show_text_is_readable():
    out = codeplan("tasks", "show", "put-block-in-bowl", "--seed", "0")
    assert out.returncode == 0
    assert out.stdout.startswith("put-block-in-bowl (seed 0): put the ")


@pytest.mark.parametrize("args", [("tasks", "show", "make-coffee"),
                                  ("bench", "env", "--task", "make-coffee", "--episodes", "1")])
def test_unknown_task_exits_2_naming_the_known_tasks(args):
    out = codeplan(*args)
    assert out.returncode == 2
    assert "unknown task 'make-coffee'" in out.stderr and "stack-blocks" in out.stderr


@pytest.mark.parametrize(("args", "message"), [
    (("bench", "env", "--episodes", "0"), "must be at least 1"),
    (("tasks", "show", "stack-blocks", "--seed", "-3"), "must be >= 0"),
    (("bench", "env", "--situations", "chaos", "--episodes", "1"), "unknown situations preset"),
])
def test_bad_options_exit_2_with_a_message(args, message):
    out = codeplan(*args)
    assert out.returncode == 2 and message in out.stderr


def test_bench_env_json_reports_timings_and_oracle_success():
    out = codeplan("bench", "env", "--task", "put-block-in-bowl", "--episodes", "2", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["oracle_success"] == 1.0 and data["episodes"] == 2
    for key in ("pick_place_s", "reset_s", "render_s"):
        assert 0 < data[key]["median"] <= data[key]["p90"]
    assert data["oracle_success_ci95"][1] == 1.0 and data["stepwise"] is False


def test_bench_env_stepwise_times_watchable_motion_with_physics_in_motion():
    args = ("bench", "env", "--task", "put-block-in-bowl", "--episodes", "2", "--json")
    blocking = json.loads(codeplan(*args).stdout)
    out = codeplan(*args, "--stepwise")
    assert out.returncode == 0, out.stderr
    stepwise = json.loads(out.stdout)
    assert stepwise["stepwise"] is True and stepwise["oracle_success"] == 1.0
    steps = "physics_steps_per_pick_place"  # physics runs while the arm moves
    assert stepwise[steps]["median"] > blocking[steps]["median"] + 100


def test_run_with_embedded_defaults_prints_one_json_object(tmp_path):
    out = codeplan("run", "--json", "--runs-dir", str(tmp_path))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["success"] is True and data["mode"] == "progress"
    # The default stack: offline planner, the learned reasoner, the shipped CLIPort actor.
    assert (data["planner"], data["reasoner"], data["actor"]) == ("offline", "default", "cliport")
    for key in ("actions", "retries", "replans", "questions"):
        assert isinstance(data[key], int)
    assert data["final_scene"]["objects"] and data["run_dir"].startswith(str(tmp_path))
    replay = codeplan("replay", data["run_dir"], "--json")
    assert replay.returncode == 0 and json.loads(replay.stdout)["same"] is True


def test_run_text_summary_and_failure_still_exit_0(tmp_path):
    plan = tmp_path / "plan.py"
    plan.write_text("from plan_actions import tell_planner\ntell_planner('done')\n")
    out = codeplan("run", "--planner", "file", "--plan-file", str(plan), "--runs-dir",
                   str(tmp_path), "--task", "stack-blocks", "--mode", "open-loop")
    assert out.returncode == 0, out.stderr
    assert "result: FAILURE (false done" in out.stdout and "tell_planner('done')" in out.stdout


def test_run_prints_a_lone_surrogate_and_a_nul_in_its_result_and_writes_the_report(tmp_path):
    plan = tmp_path / "s.py"  # issue 20's reproduction: the result was lost, exit 2 "utf-8"
    plan.write_text('from plan_actions import tell_planner\ntell_planner("\\ud800\\x00")\n')
    out = codeplan("run", "--planner", "file", "--plan-file", str(plan), "--actor", "oracle",
                   "--reasoner", "oracle", "--task", "put-block-in-bowl", "--max-plans", "1",
                   "--runs-dir", str(tmp_path))
    assert out.returncode == 0 and out.stderr == "", out.stderr
    assert "result: FAILURE (no codeplan finished" in out.stdout
    assert "the codeplan reported: \\ud800\x00)" in out.stdout
    report = next(tmp_path.glob("*/report.html")).read_text()
    assert "reported: \\ud800\\u0000" in report and report.endswith("</div>")


def test_a_reader_that_goes_away_gets_no_traceback():
    """`codeplan tasks list --json | head -c 0`: stdout's reader is gone before the write."""
    proc = subprocess.Popen([sys.executable, "-m", "runtime.cli", "tasks", "list", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and err == ""


@pytest.mark.parametrize(("args", "message"), [
    (("run", "make me a coffee"), "could not"),
    (("run", "--planner", "file"), "--plan-file"),
    (("run", "--task", "nope"), "unknown task"),
    (("replay", "/nonexistent/trace"), "no trace"),
])
def test_run_that_cannot_happen_exits_2(tmp_path, args, message):
    out = codeplan(*args, "--runs-dir", str(tmp_path))
    assert out.returncode == 2 and message in out.stderr, out.stderr


def test_bench_sandbox_json_reports_run_and_call_costs():
    out = codeplan("bench", "sandbox", "--runs", "5", "--calls", "50", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    # Figures only, no comparison between timings: on a loaded machine either can be larger.
    for key in ("trivial_run_ms", "typical_run_ms"):
        assert 0 < data[key]["median"] <= data[key]["p90"] and data[key]["n"] == 5
    assert data["per_call_us"] > 0 and data["runs"] == 5


def test_eval_grounding_reports_the_tools_pose_error_and_names_a_bad_task():
    out = codeplan("eval", "grounding", "--task", "stack-block-pyramid", "--episodes", "1",
                   "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    blocks = data["xy_error_m"]["block"]
    assert blocks["total"] == 6 and 0 <= blocks["median"] < 0.02  # within half a block
    assert data["stand_slot_error_m"]["n"] >= 1
    bad = codeplan("eval", "grounding", "--task", "stack-everything", "--episodes", "1")
    assert bad.returncode == 2 and "unknown task" in bad.stderr
