"""The OpenAI-compatible planner against a real local HTTP server speaking chat completions,
through the real `openai` client (no mocks between the planner and the socket)."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from runtime.planners.base import PlannerError, PlanRequest
from runtime.planners.openai_planner import OpenAIPlanner, extract_code
from runtime.planners.prompts import PROMPTS_DIR, build_messages, render

CODE = ("from control_actions import put_first_on_second\n"
        "from plan_actions import tell_planner\n"
        "put_first_on_second('red block', 'blue bowl')\n"
        "tell_planner('done')\n")
OBJECTS = ["red block", "blue bowl", "green block"]


class ChatServer(ThreadingHTTPServer):
    """Answers POST /v1/chat/completions from a queue of (status, body, delay_s); records
    every request (path, headers, JSON body)."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict] = []
        self.replies: list[tuple[int, dict, float]] = []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def reply(self, content: str | None, usage: dict | None = None, status: int = 200,
              body: dict | None = None, delay_s: float = 0.0) -> None:
        if body is None:
            body = completion(content, usage)
        self.replies.append((status, body, delay_s))


def completion(content: str | None, usage: dict | None = None) -> dict:
    body = {"id": "chatcmpl-test", "object": "chat.completion", "created": 1700000000,
            "model": "test-model-0613",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}]}
    if usage is not None:
        body["usage"] = usage
    return body


class _Handler(BaseHTTPRequestHandler):
    server: ChatServer

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        self.server.requests.append({"path": self.path,
                                     "headers": {k.lower(): v for k, v in self.headers.items()},
                                     "body": body})
        if self.path != "/v1/chat/completions":
            return self._send(404, {"error": {"message": f"no route {self.path}"}})
        status, reply, delay = (self.server.replies.pop(0) if self.server.replies
                                else (200, completion(CODE), 0.0))
        time.sleep(delay)
        self._send(status, reply)

    def _send(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
            pass

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass


@pytest.fixture(scope="module")
def server():
    srv = ChatServer()
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture
def chat(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    server.requests.clear()
    server.replies.clear()
    return server


def planner_for(server: ChatServer, **kwargs) -> OpenAIPlanner:
    return OpenAIPlanner("test-model", base_url=server.base_url, max_retries=0, **kwargs)


def request(**kwargs) -> PlanRequest:
    return PlanRequest("put the red block in the blue bowl", OBJECTS,
                       [("red block", "on", "table")], **kwargs)


def test_fenced_reply_gives_code_tokens_model_and_latency(chat):
    reply = f"Here is the codeplan:\n```python\n{CODE}```\nIt moves one block."
    chat.reply(reply, {"prompt_tokens": 812, "completion_tokens": 57, "total_tokens": 869},
               delay_s=0.05)
    plan = planner_for(chat).plan(request())
    assert plan.source == CODE
    assert (plan.planner, plan.model) == ("openai", "test-model-0613")
    assert (plan.prompt_tokens, plan.completion_tokens) == (812, 57)
    assert plan.latency_s >= 0.05 and plan.reply == reply
    assert plan.notes == "finish_reason=stop"


def test_the_request_carries_the_prompt_instruction_objects_and_facts(chat):
    planner_for(chat, temperature=0.0).plan(request())
    (sent,) = chat.requests
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["authorization"] == "Bearer not-needed"  # local: dummy key
    body = sent["body"]
    assert body["model"] == "test-model" and body["temperature"] == 0.0
    system, user = body["messages"]
    assert system["role"] == "system" and "tell_planner" in system["content"]
    assert "from reasoning_actions import" in system["content"]  # the API
    assert "Instruction: put the blocks in the bowls with matching colors" in system["content"]
    assert user["role"] == "user"
    assert "Instruction: put the red block in the blue bowl" in user["content"]
    assert "Objects: red block, blue bowl, green block" in user["content"]
    assert "Facts: red block on table" in user["content"]


def test_recovery_prompt_carries_feedback_and_previous_codeplan(chat):
    previous = "put_first_on_second('red block', 'blue bowl')\ntell_planner('done')"
    planner_for(chat).plan(request(feedback=["an action kept failing: red block in blue bowl"],
                                   previous=[previous], attempt=1))
    user = chat.requests[0]["body"]["messages"][-1]["content"]
    assert "recovery attempt 1" in user
    assert "1. an action kept failing: red block in blue bowl" in user
    assert previous in user and "does only what is left" in user


def test_unfenced_python_reply_is_used_and_missing_usage_counts_zero(chat):
    chat.reply(CODE)  # no usage block at all
    plan = planner_for(chat).plan(request())
    assert plan.source == CODE and (plan.prompt_tokens, plan.completion_tokens) == (0, 0)


def test_server_error_is_a_planner_error_with_the_server_message(chat):
    chat.reply(None, status=500, body={"error": {"message": "model overloaded",
                                                 "type": "server_error"}})
    with pytest.raises(PlannerError, match="answered HTTP 500: model overloaded"):
        planner_for(chat).plan(request())
    assert len(chat.requests) == 1  # max_retries=0: no retry


def test_non_code_reply_is_a_planner_error(chat):
    chat.reply("I'm sorry, I cannot help with moving blocks today.")
    with pytest.raises(PlannerError, match="reply has no code"):
        planner_for(chat).plan(request())


def test_empty_reply_is_a_planner_error(chat):
    chat.reply(None)
    with pytest.raises(PlannerError, match="reply has no text"):
        planner_for(chat).plan(request())


def test_slow_server_is_a_planner_error(chat):
    chat.reply(CODE, delay_s=1.0)
    with pytest.raises(PlannerError, match=r"no answer from .* within 0\.2 s"):
        planner_for(chat, timeout_s=0.2).plan(request())


def test_connection_refused_is_a_planner_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    planner = OpenAIPlanner("m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0,
                            timeout_s=5)
    with pytest.raises(PlannerError, match=f"cannot reach http://127.0.0.1:{port}/v1"):
        planner.plan(request())


def test_missing_key_for_openai_is_a_planner_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(PlannerError, match="OPENAI_API_KEY is not set"):
        OpenAIPlanner("gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert OpenAIPlanner("gpt-4o-mini").client.api_key == "sk-test"
    with pytest.raises(PlannerError, match="needs a model"):
        OpenAIPlanner("")


@pytest.mark.parametrize(("reply", "expected"), [
    (f"```python\n{CODE}```", CODE),
    (f"```py\n{CODE}```", CODE),
    (f"Sure.\n```\n{CODE}```\nDone.", CODE),
    (f"```text\nplan\n```\n```python\n{CODE}```", CODE),  # the python block wins
    (f"<think>```python\nwrong()\n```</think>\n```python\n{CODE}```", CODE),
    (f"```python\n{CODE}", CODE),  # cut off before the closing fence
    (CODE, CODE),
    ("```python\nput_first_on_second('red block',\n```", "put_first_on_second('red block',\n"),
    ("done", None),  # parses as Python but does nothing
    ("I cannot do that.", None),
    ("```\n\n```", None),
])
def test_extract_code(reply, expected):
    assert extract_code(reply) == expected


def test_prompt_files_exist_and_fill(tmp_path):
    for name in ("planner_system.txt", "planner_examples.txt",
                 "planner_task.txt", "planner_recovery.txt"):
        assert (PROMPTS_DIR / name).is_file()
    messages = build_messages(request())
    assert "$" not in "".join(m["content"] for m in messages)
    (tmp_path / "planner_task.txt").write_text("Do $instruction with $missing")
    with pytest.raises(PlannerError, match="placeholder 'missing' has no value"):
        render("planner_task.txt", tmp_path, instruction="x")
    with pytest.raises(PlannerError, match="cannot read the prompt file"):
        render("nope.txt", tmp_path)


def test_prompts_dir_swaps_the_prompt_files(chat, tmp_path):
    for path in PROMPTS_DIR.glob("*.txt"):
        (tmp_path / path.name).write_text(path.read_text())
    (tmp_path / "planner_task.txt").write_text("TASK <$instruction> in a scene of $objects")
    planner_for(chat, prompts_dir=str(tmp_path)).plan(request())
    user = chat.requests[0]["body"]["messages"][-1]["content"]
    assert user == "TASK <put the red block in the blue bowl> in a scene of red block, " \
                   "blue bowl, green block"


def test_system_prompt_shows_every_primitive_with_its_docstring():
    import inspect

    import primitives

    system = build_messages(request())[0]["content"]
    for module, functions in primitives.sandbox_api().items():
        assert f"from {module} import" in system
        for name, fn in functions.items():
            first_line = inspect.getdoc(fn).splitlines()[0]
            assert f"def {name}(" in system and first_line in system, name


def test_few_shot_examples_are_valid_codeplans():
    from runtime.sandbox import compile_codeplan

    text = Path(PROMPTS_DIR / "planner_examples.txt").read_text()
    blocks = text.split("```python\n")[1:]
    assert len(blocks) >= 3
    for block in blocks:
        compile_codeplan(block.split("```")[0])
