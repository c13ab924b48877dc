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
