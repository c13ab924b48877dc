"""Closed-loop episodes end to end with scripted codeplans: feedback, modes, traces."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from runtime.planners.base import Codeplan, PlanRequest
from runtime.run_config import RunConfig, RunError
from runtime.runner import run_episode
from runtime.trace import read_trace

HEADER = ("from control_actions import put_first_on_second\n"
          "from plan_actions import get_object_names, tell_planner\n"
          "from reasoning_actions import find_object_related_to_obj, is_true, ask\n")


class ScriptedPlanner:
    """Returns the given sources in order and records every request it got."""

    name = "scripted"

    def __init__(self, *sources: str) -> None:
        self.sources = list(sources)
        self.requests: list[PlanRequest] = []

    def plan(self, request: PlanRequest) -> Codeplan:
        self.requests.append(request)
        return Codeplan(self.sources[min(request.attempt, len(self.sources) - 1)], "scripted")


def good_plan(block: str, bowl: str) -> str:
    return HEADER + f"put_first_on_second({block!r}, {bowl!r})\ntell_planner('done')\n"


def run(tmp_path, planner, task="put-block-in-bowl", seed=0, **kw):
    config = RunConfig(task=task, seed=seed, runs_dir=tmp_path, **kw)
    return run_episode(config, planner=planner)


TARGET = ("yellow block", "pink bowl")  # put-block-in-bowl, seed 0


def test_target_of_seed_0():
    from ravens_env.env import TabletopEnv

    with TabletopEnv() as env:
        env.reset("put-block-in-bowl", 0)
        assert env.task.target == TARGET


def test_a_good_codeplan_succeeds_and_leaves_trace_report_and_gif(tmp_path):
    result = run(tmp_path, ScriptedPlanner(good_plan(*TARGET)))
    assert result.success and result.believed_done and result.failure_reason is None
    assert result.counts["actions"] == 1 and result.counts["replans"] == 0
    header, events = read_trace(result.run_dir)
    assert header["schema"] == "codeplan-trace/1" and header["seed"] == 0
    kinds = [e["type"] for e in events]
    for kind in ("plan", "call", "questions", "action", "frame", "sandbox_end", "episode_end"):
        assert kind in kinds
    run_dir = tmp_path / result.run_dir.split("/")[-1]
    assert (run_dir / "report.html").read_text().count("put_first_on_second") >= 1
    assert (run_dir / "episode.gif").read_bytes()[:3] == b"GIF"
    assert len(list((run_dir / "frames").glob("*.png"))) == 2  # reset + one action


@pytest.mark.parametrize(("bad", "says"), [
    ("put_first_on_second('yellow block', 'pink bowl'\n", "Line 4: SyntaxError"),
    ("put_first_on_second('purple block', 'cyan bowl')\n", "unknown pick 'purple block'"),
    ("put_first_on_second('blue block')\n", "argument"),
    ("x = 1 / 0\n", "ZeroDivisionError"),
    ("import os\n", "os"),
    ("put_first_on_second('yellow block', 'pink bowl')\n", "without calling tell_planner"),
    ("tell_planner('I cannot see a pink bowl')\n", "I cannot see a pink bowl"),
])
def test_bad_codeplans_are_fed_back_and_the_next_plan_runs(tmp_path, bad, says):
    planner = ScriptedPlanner(HEADER + bad, good_plan(*TARGET))
    result = run(tmp_path, planner)
    assert result.success and result.counts["replans"] == 1
    feedback = planner.requests[1].feedback
    assert len(feedback) == 1 and says in feedback[0], feedback
    assert planner.requests[1].previous == [HEADER + bad]


def test_the_planner_sees_perceived_objects_and_facts(tmp_path):
    planner = ScriptedPlanner(good_plan(*TARGET))
    run(tmp_path, planner)
    request = planner.requests[0]
    assert set(TARGET) <= set(request.objects)
    assert ("yellow block", "on", "table") in [tuple(f) for f in request.facts]


def test_false_done_is_a_failure(tmp_path):
    result = run(tmp_path, ScriptedPlanner(HEADER + "tell_planner('done')\n"))
    assert not result.success and result.believed_done
    assert result.failure_reason.startswith("false done")


def test_plans_run_out(tmp_path):
    result = run(tmp_path, ScriptedPlanner(HEADER + "tell_planner('help')\n"), max_plans=2)
    assert not result.success and "no codeplan finished" in result.failure_reason
    assert result.counts["planner_calls"] == 2


def test_a_miss_every_time_exhausts_the_retry_budget_in_success_mode(tmp_path):
    result = run(tmp_path, ScriptedPlanner(good_plan(*TARGET)), mode="success",
                 situations="miss=1.0")
    assert not result.success
    # Each of the 5 codeplans redoes the place 4 times and is stopped as stuck.
    assert result.counts["retries"] == 20 and result.counts["replans"] == 4
    assert result.failure_reason.startswith("no codeplan finished")
    assert "kept failing" in result.failure_reason


def test_more_than_20_retries_fail_the_episode(tmp_path):
    result = run(tmp_path, ScriptedPlanner(good_plan(*TARGET)), mode="success",
                 situations="miss=1.0", max_plans=8)
    assert not result.success and result.counts["retries"] == 21
    assert result.failure_reason == "retry budget: more than 20 retries"


def test_open_loop_never_asks_about_actions(tmp_path):
    result = run(tmp_path, ScriptedPlanner(good_plan(*TARGET)), mode="open-loop",
                 situations="drop=1.0")
    assert not result.success and result.believed_done and result.counts["retries"] == 0
    _, events = read_trace(result.run_dir)
    asked = [q for e in events if e["type"] == "questions" for q, _, _ in e["qa"]]
    assert not any(q.startswith("is the") for q in asked)


def test_a_crash_leaves_a_readable_trace(tmp_path):
    class Exploding(ScriptedPlanner):
        def plan(self, request):
            if request.attempt == 1:
                raise RuntimeError("planner blew up")
            return super().plan(request)

    with pytest.raises(RuntimeError, match="blew up"):
        run(tmp_path, Exploding(HEADER + "tell_planner('help')\n"))
    trace = next(tmp_path.glob("*/trace.jsonl"))
    _, events = read_trace(trace)
    assert events[-1]["type"] == "crash" and "blew up" in events[-1]["error"]
    from runtime.report import write_report

    assert "crashed" in write_report(trace.parent).read_text()


@pytest.mark.parametrize(("field", "value", "message"), [
    ("mode", "closed", "unknown mode"), ("task", "nope", "unknown task"),
    ("situations", "chaos", "unknown situations"),
])
def test_bad_settings_raise_run_error(tmp_path, field, value, message):
    with pytest.raises(RunError, match=message):
        run(tmp_path, ScriptedPlanner("pass"), **{field: value})


def test_trace_lines_are_json_with_sequence_numbers(tmp_path):
    result = run(tmp_path, ScriptedPlanner(good_plan(*TARGET)))
    lines = (tmp_path / result.run_dir.split("/")[-1] / "trace.jsonl").read_text().splitlines()
    seqs = [json.loads(line)["seq"] for line in lines[1:]]
    assert seqs == list(range(1, len(seqs) + 1))


def test_a_benchmark_records_an_unplannable_first_codeplan_as_a_failed_episode(tmp_path):
    from runtime.eval.diagnostics import diagnose_run, read_trace

    config = RunConfig(instruction="put the gold block in the tin bowl",
                       task="put-block-in-bowl", seed=0, reasoner="oracle", actor="oracle",
                       runs_dir=tmp_path, first_plan_error_is_fatal=False)
    r = run_episode(config)
    assert not r.success and r.failure_reason.startswith("planner error")
    assert any(e.get("type") == "plan_error" for e in read_trace(r.run_dir))
    assert (Path(r.run_dir) / "report.html").is_file()  # the report reads the new event
    d = diagnose_run(r.run_dir, r.success, r.believed_done, r.failure_reason)
    assert d["failure_cause"] == "planner error"
    with pytest.raises(RunError, match="gold block"):  # `codeplan run`: bad input, exit 2
        run_episode(RunConfig(instruction=config.instruction, task="put-block-in-bowl",
                              reasoner="oracle", runs_dir=tmp_path))


# -- LLM exchanges and accounting (issue 19, items 3 and 4) ---------------------------------

class ExchangePlanner(ScriptedPlanner):
    """A scripted planner whose codeplans (and one failure) carry LLM exchanges, as the LLM
    planners' do: the runner must trace and count every one, failed calls too."""

    name = "exchanging"

    def plan(self, request: PlanRequest) -> Codeplan:
        from runtime.planners.base import PlannerError

        self.requests.append(request)
        ex = {"attempt": request.attempt, "model": "m", "params": {"max_tokens": 9},
              "messages": [{"role": "user", "content": "hi"}], "prompt_tokens": 100,
              "completion_tokens": 20, "latency_s": 1.5, "reply": "raw"}
        if request.attempt == 0:  # a first call that fails, then one that works
            raise PlannerError("no code", [ex | {"error": "no code", "completion_tokens": 7}])
        return Codeplan(self.sources[0], "exchanging", exchanges=[ex, ex])


def test_every_llm_exchange_is_traced_and_counted(tmp_path):
    config = RunConfig(task="put-block-in-bowl", seed=0, runs_dir=tmp_path, report=False,
                       first_plan_error_is_fatal=False)
    result = run_episode(config, planner=ExchangePlanner(good_plan(*TARGET)))
    assert not result.success  # the first plan failed: the episode records it and ends
    assert result.counts["llm_calls"] == 1 and result.counts["prompt_tokens"] == 100
    assert result.counts["completion_tokens"] == 7 and result.counts["llm_s"] == 1.5
    d = result.to_dict()
    assert (d["llm_calls"], d["prompt_tokens"], d["completion_tokens"], d["llm_s"]) == (
        1, 100, 7, 1.5)
    (ex,) = [e for e in read_trace(result.run_dir)[1] if e["type"] == "llm_exchange"]
    assert ex["error"] == "no code" and ex["messages"][0]["content"] == "hi"
    assert ex["params"] == {"max_tokens": 9} and ex["reply"] == "raw"


def test_exchanges_of_every_codeplan_add_up(tmp_path):
    planner = ExchangePlanner(good_plan(*TARGET))
    planner.plan = lambda request: Codeplan(  # two calls behind one codeplan
        good_plan(*TARGET), "x", exchanges=[{"prompt_tokens": 600, "completion_tokens": 80,
                                              "latency_s": 9.25}] * 2)
    result = run(tmp_path, planner, report=False)
    assert result.success
    assert (result.counts["llm_calls"], result.counts["prompt_tokens"],
            result.counts["completion_tokens"], result.counts["llm_s"]) == (2, 1200, 160, 18.5)
    kinds = [e["type"] for e in read_trace(result.run_dir)[1]]
    assert kinds.count("llm_exchange") == 2 and kinds.index("llm_exchange") < kinds.index("plan")


def test_a_planner_without_llm_counts_zero(tmp_path):
    result = run(tmp_path, ScriptedPlanner(good_plan(*TARGET)), report=False)
    assert {k: result.counts[k] for k in ("llm_calls", "prompt_tokens", "llm_s")} == {
        "llm_calls": 0, "prompt_tokens": 0, "llm_s": 0}


def test_the_report_shows_every_llm_call_with_its_messages_tokens_and_raw_reply(tmp_path):
    from runtime.report import write_report
    from runtime.trace import TraceWriter

    trace = TraceWriter(tmp_path, {"instruction": "stack", "task": "stack-blocks"})
    trace.event("llm_exchange", attempt=0, model="qwen", prompt_tokens=532, completion_tokens=46,
                latency_s=12.5, params={"temperature": 0.0, "max_tokens": 400},
                messages=[{"role": "user", "content": "Instruction: stack <all>"}],
                reply="```python\nput_first_on_second('a block', 'b block')\n```",
                rejected="it builds more than one tower")
    trace.event("llm_exchange", attempt=1, model="qwen", prompt_tokens=0, completion_tokens=0,
                latency_s=180.0, params={}, messages=[], reply=None, error="no answer in 180 s")
    trace.close()
    page = write_report(tmp_path).read_text()
    assert "<h2>LLM calls</h2><p>2 call(s), 532 prompt + 46 completion tokens, 192.5 s" in page
    assert "Instruction: stack &lt;all&gt;" in page  # the messages sent, escaped
    assert "dry run, asked again: it builds more than one tower" in page
    assert "put_first_on_second(&#x27;a block&#x27;" in page and "no answer in 180 s" in page


# -- the episode budget, odd text, a report that fails (issue 20) ---------------------------

def fast(tmp_path, planner, **kw):
    return run(tmp_path, planner, reasoner="oracle", report=False, **kw)


def test_a_runaway_loop_of_moves_ends_on_the_episode_call_budget(tmp_path):
    loop = HEADER + ("bowls = [n for n in get_object_names() if n.endswith('bowl')]\n"
                     "while True:\n    for bowl in bowls:\n"
                     "        put_first_on_second('yellow block', bowl)\n")
    result = fast(tmp_path, ScriptedPlanner(loop), max_episode_calls=6)
    assert not result.success
    assert result.failure_reason == ("episode budget: more than 6 primitive calls "
                                     "(--max-episode-calls)")
    assert result.counts["primitive_calls"] == 7 and result.counts["actions"] == 5
    assert result.counts["planner_calls"] == 1
    _, events = read_trace(result.run_dir)
    assert events[-1]["type"] == "episode_end"


def test_a_loop_of_questions_ends_on_the_episode_time_budget_across_codeplans(tmp_path):
    # Each codeplan asks for ~0.4 s and gives up; a later one runs out of the 1 s budget.
    slow = HEADER + ("for i in range(80):\n    ask('how many blocks are there?')\n"
                     "tell_planner('again')\n")
    planner = ScriptedPlanner(slow)
    from runtime.controller import Controller

    original = Controller.ask

    def slow_ask(self, question, at_start=False):
        time.sleep(0.005)
        return original(self, question, at_start)

    started = time.monotonic()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Controller, "ask", slow_ask)
        result = fast(tmp_path, planner, max_episode_s=1.0, max_plans=50)
    assert time.monotonic() - started < 1.0 + 5
    assert result.failure_reason == "episode budget: 1 s of execution used up (--max-episode-s)"
    assert 1 < result.counts["planner_calls"] < 50


def test_a_codeplan_computing_forever_is_killed_at_the_episode_deadline(tmp_path):
    # A C-level loop no step guard sees: the sandbox alone would allow it 10.5 s; the
    # episode has 1 s.
    started = time.monotonic()
    result = fast(tmp_path, ScriptedPlanner(HEADER + "x = sum(range(10 ** 12))\n"),
                  max_episode_s=1.0)
    assert time.monotonic() - started < 4.0
    assert result.failure_reason.startswith("episode budget: 1 s of execution used up")


def test_planner_time_does_not_count_against_the_episode_budget(tmp_path):
    class SlowPlanner(ScriptedPlanner):
        def plan(self, request):
            time.sleep(1.2)  # an LLM thinking
            return super().plan(request)

    result = fast(tmp_path, SlowPlanner(good_plan(*TARGET)), max_episode_s=1.0)
    assert result.success and result.wall_s > 1.2


def test_a_codeplan_stopped_by_its_sandbox_budget_is_not_run_again_unchanged(tmp_path):
    spin = HEADER + "while True:\n    pass\n"  # the sandbox's step budget stops it
    result = fast(tmp_path, ScriptedPlanner(spin))
    _, events = read_trace(result.run_dir)
    assert [e["kind"] for e in events if e["type"] == "sandbox_end"] == ["budget"]
    assert result.failure_reason.startswith("the planner returned the same codeplan after the "
                                            "sandbox stopped it (budget)")
    assert result.failure_reason.endswith("not run again")
    changed = fast(tmp_path, ScriptedPlanner(spin, good_plan(*TARGET)))
    assert changed.success  # a changed codeplan does run


@pytest.mark.parametrize("episode_budget", [{"max_episode_s": 0}, {"max_episode_calls": 0}])
def test_a_budget_that_is_not_positive_is_a_run_error(tmp_path, episode_budget):
    with pytest.raises(RunError, match="episode budget must be positive"):
        fast(tmp_path, ScriptedPlanner("pass"), **episode_budget)


def test_a_long_tell_planner_message_is_cut(tmp_path):
    result = fast(tmp_path, ScriptedPlanner(HEADER + "tell_planner('x' * 5000000)\n"),
                  max_plans=1)
    assert "... [4999000 more characters]" in result.failure_reason
    assert len(result.failure_reason) < 1200


def test_lone_surrogates_and_nul_reach_the_trace_result_and_report(tmp_path):
    plan = HEADER + "print('\\ud800\\x00')\ntell_planner('\\udfff \\x00 done?')\n"
    result = run(tmp_path, ScriptedPlanner(plan), reasoner="oracle", max_plans=1)
    assert "\udfff \x00 done?" in result.failure_reason and result.report_error is None
    json.dumps(result.to_dict())
    report = (Path(result.run_dir) / "report.html").read_text(encoding="utf-8")
    assert "\\udfff \\u0000 done?" in report and report.rstrip().endswith("</div>")


def test_a_report_that_cannot_be_written_is_named_and_the_result_kept(tmp_path, monkeypatch):
    import runtime.report

    def broken(run_dir):
        raise OSError("disk full")

    monkeypatch.setattr(runtime.report, "write_report", broken)
    result = run(tmp_path, ScriptedPlanner(good_plan(*TARGET)), reasoner="oracle")
    assert result.success
    assert result.report_error == "report.html not written: OSError: disk full"


def test_a_place_that_does_not_let_go_is_traced_and_the_next_action_places_the_block(tmp_path):
    """Grasp failures (issue 22): after a `place_held` the trace names the block the arm
    still holds (robot state, for non-vision predicates), and a redo places it."""
    result = run(tmp_path, ScriptedPlanner(good_plan(*TARGET)), mode="progress",
                 situations="place_held=0.9", actor="oracle", reasoner="oracle")
    actions = [e for e in read_trace(result.run_dir)[1] if e["type"] == "action"]
    held = [e for e in actions if e["result"]["situations"] == ["place_held"]]
    assert held and all(e["holding"] == TARGET[0] for e in held)
    assert "holding" not in actions[-1] and result.success
