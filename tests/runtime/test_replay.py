"""Replay answers a codeplan from its trace alone and fails loudly at the first divergence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runtime.replay import ReplayDivergence, replay_trace, resimulate
from runtime.run_config import RunConfig
from runtime.runner import run_episode

PLAN = ("from control_actions import put_first_on_second\n"
        "from plan_actions import get_object_names, tell_planner\n"
        "for name in get_object_names():\n"
        "    if name == 'yellow block':\n"
        "        put_first_on_second(name, 'pink bowl')\n"
        "tell_planner('done')\n")


class OnePlan:
    name = "scripted"

    def plan(self, request):
        from runtime.planners.base import Codeplan

        return Codeplan(PLAN, "scripted")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    runs = tmp_path_factory.mktemp("runs")
    result = run_episode(RunConfig(task="put-block-in-bowl", seed=0, runs_dir=runs,
                                   situations="dkprompt"), planner=OnePlan())
    assert result.success
    return Path(result.run_dir)


def test_replay_of_an_untouched_trace_is_identical(recorded):
    report = replay_trace(recorded)
    assert report.plans == 1 and report.calls == 3  # get_object_names, put..., tell_planner


def test_replay_detects_a_changed_answer(recorded, tmp_path):
    trace = tmp_path / "trace.jsonl"
    lines = (recorded / "trace.jsonl").read_text().splitlines()
    for i, line in enumerate(lines):
        event = json.loads(line)
        if event.get("function") == "get_object_names":
            event["result"] = [n.replace("yellow block", "navy block") for n in event["result"]]
            lines[i] = json.dumps(event)
    trace.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReplayDivergence, match=r"tell_planner.* recording has put_first_on_second"):
        replay_trace(trace)


def test_replay_detects_a_changed_codeplan(recorded, tmp_path):
    trace = tmp_path / "trace.jsonl"
    text = (recorded / "trace.jsonl").read_text().replace("'pink bowl'", "'green bowl'")
    trace.write_text(text)
    with pytest.raises(ReplayDivergence, match="put_first_on_second"):
        replay_trace(trace)


def test_resimulate_gives_the_same_outcome(recorded, tmp_path):
    result, end = resimulate(recorded, tmp_path)
    assert result.success == end["success"] and result.counts == end["counts"]


def test_tuple_arguments_replay_as_recorded(tmp_path):
    class TuplePlan(OnePlan):
        def plan(self, request):
            from runtime.planners.base import Codeplan

            source = ("from reasoning_actions import ask\nfrom plan_actions import tell_planner\n"
                      "try:\n    ask(('how many blocks are there?',))\nexcept Exception:\n"
                      "    pass\ntell_planner('done')\n")
            return Codeplan(source, "scripted")

    result = run_episode(RunConfig(task="put-block-in-bowl", seed=0, runs_dir=tmp_path,
                                   report=False), planner=TuplePlan())
    assert replay_trace(Path(result.run_dir)).calls == 2


# -- a run that stopped early (issue 20) -----------------------------------------------------

def _cut(recorded: Path, tmp_path: Path, keep) -> Path:
    """A copy of the trace that ends after the first event for which keep(event) is true
    (a run killed there), its last line cut in half as a kill mid-write leaves it."""
    lines = (recorded / "trace.jsonl").read_text().splitlines()
    end = next(i for i, line in enumerate(lines) if i and keep(json.loads(line)))
    trace = tmp_path / "trace.jsonl"
    trace.write_text("\n".join(lines[:end + 1]) + "\n" + lines[end + 1][:20])
    return trace


def _replay_cli(*args: str) -> int:
    from runtime.cli import main

    return main(["replay", *args])


def test_a_run_killed_mid_codeplan_replays_up_to_where_it_stopped(recorded, tmp_path, capsys):
    trace = _cut(recorded, tmp_path, lambda e: e.get("function") == "put_first_on_second")
    report = replay_trace(trace)
    assert report.plans == 1 and report.calls == 2  # get_object_names, put_first_on_second
    assert report.stopped_early.startswith("the trace ends after event ")
    assert "(call put_first_on_second) with no episode_end (killed?)" in report.stopped_early
    assert _replay_cli(str(trace)) == 4
    out = capsys.readouterr().out
    assert out.startswith("the run stopped early: the trace ends after event")
    assert out.rstrip().endswith("replayed 1 codeplan(s), 2 primitive calls up to there: "
                                 "identical")


def test_a_run_killed_before_its_first_codeplan_says_so(recorded, tmp_path, capsys):
    trace = _cut(recorded, tmp_path, lambda e: e.get("type") == "plan_request")
    assert _replay_cli(str(trace), "--json") == 4
    out = json.loads(capsys.readouterr().out)
    assert out["plans"] == 0 and "(plan_request of codeplan 0)" in out["stopped_early"]


def test_a_crashed_run_names_its_crash(recorded, tmp_path):
    trace = _cut(recorded, tmp_path, lambda e: e.get("type") == "plan")
    lines = trace.read_text().splitlines()[:-1]  # the half line out, a crash event in
    crash = {"seq": 999, "t": 1.0, "type": "crash", "error": "RuntimeError: boom"}
    trace.write_text("\n".join([*lines, json.dumps(crash)]) + "\n")
    early = replay_trace(trace).stopped_early
    assert "(plan of codeplan 0)" in early and early.endswith("it crashed: RuntimeError: boom")


def test_resimulating_a_run_that_stopped_early_says_so(recorded, tmp_path, capsys):
    trace = _cut(recorded, tmp_path, lambda e: e.get("type") == "action")
    assert _replay_cli(str(trace), "--resimulate", "--runs-dir", str(tmp_path)) == 4
    assert "the run stopped early: the trace ends after event" in capsys.readouterr().err


def test_a_divergence_in_a_run_that_stopped_early_is_still_a_divergence(recorded, tmp_path,
                                                                        capsys):
    trace = _cut(recorded, tmp_path, lambda e: e.get("function") == "put_first_on_second")
    trace.write_text(trace.read_text().replace("'pink bowl'", "'green bowl'"))
    assert _replay_cli(str(trace)) == 1
    err = capsys.readouterr().err
    assert "replay diverged" in err and "(and the run stopped early: the trace ends" in err


@pytest.mark.parametrize("budget", [{"max_episode_calls": 5}, {"max_episode_s": 0.3}])
def test_a_run_ended_by_the_episode_budget_replays_identically(tmp_path, budget):
    class Runaway(OnePlan):
        def plan(self, request):
            from runtime.planners.base import Codeplan

            return Codeplan("from reasoning_actions import ask\nwhile True:\n"
                            "    ask('how many blocks are there?')\n", "scripted")

    result = run_episode(RunConfig(task="put-block-in-bowl", seed=0, runs_dir=tmp_path,
                                   reasoner="oracle", report=False, **budget),
                         planner=Runaway())
    assert result.failure_reason.startswith("episode budget")
    report = replay_trace(Path(result.run_dir))
    assert report.calls == result.counts["primitive_calls"] and report.stopped_early is None
