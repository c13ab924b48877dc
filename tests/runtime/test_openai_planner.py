"""The OpenAI-compatible planner against a real local HTTP server (127.0.0.1) speaking chat
completions, through the planner's own HTTP client (no mocks between the planner and the
socket): reply shapes, malformed replies, retries, the whole-call deadline, exchanges."""

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
              body: dict | bytes | None = None, delay_s: float = 0.0) -> None:
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

    def _send(self, status: int, body: dict | bytes) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
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
    assert "Example." not in system["content"]  # the same system prompt for every request
    # the one example closest to the instruction comes first in the user message
    assert user["content"].startswith("Example.\nInstruction: put the brown block in the red")
    assert user["role"] == "user"
    assert "Instruction: put the red block in the blue bowl" in user["content"]
    assert "Scene: blocks 'red block', 'green block'; bowls 'blue bowl'" in user["content"]
    # blocks on the table are not listed: "on table" facts taught a 1.5B model 'table' moves
    assert "table" not in user["content"]
    assert "Now: no block is in a bowl or on a block." in user["content"]
    assert body["max_tokens"] == 400 and "\nInstruction:" in body["stop"]
    assert "seed" not in body and "grammar" not in body


def test_recovery_prompt_is_the_task_afresh_with_a_note_of_what_went_wrong(chat):
    previous = "put_first_on_second('red block', 'blue bowl')\ntell_planner('done')"
    planner_for(chat).plan(request(feedback=["the codeplan stopped (runtime): x",
                                             "an action kept failing: red block in blue bowl"],
                                   previous=[previous], attempt=1))
    sent = chat.requests[0]["body"]
    user = sent["messages"][-1]["content"]
    first = request()
    first_user = build_messages(first)[-1]["content"]
    # the same start as the first request (the prompt cache reuses it), then the note
    assert user.startswith(first_user) and user.index("Now:") < user.index("Note:")
    assert ("Note: an earlier codeplan for this instruction did not finish the task: an action "
            "kept failing: red block in blue bowl (before that: the codeplan stopped (runtime): "
            "x)") in user
    assert "do not move blocks that are already where the instruction wants them" in user
    # the failed codeplan is not shown again (the model kept editing its own broken code)
    assert previous not in user
    # a plain put needs no memory lines: the recovery prompt is as it was
    assert "At the start:" not in user and "Done so far:" not in user
    # a recovery samples (at temperature 0 it returned the failed code byte for byte)
    assert sent["temperature"] == 0.7 and sent["seed"] == 1


def test_recovery_prompt_shows_the_start_and_the_puts_so_far(chat):
    planner_for(chat).plan(PlanRequest("swap the red block and the green block", OBJECTS,
                                       [("red block", "in", "green bowl")],
                                       feedback=["not as asked yet"], attempt=1,
                                       initial_facts=[("red block", "in", "blue bowl")],
                                       history=[("red block", "green bowl")]))
    user = chat.requests[0]["body"]["messages"][-1]["content"]
    assert "Now: red block is in green bowl." in user
    assert "At the start: red block is in blue bowl." in user
    assert "Done so far: put_first_on_second('red block', 'green bowl')." in user


def test_unfenced_python_reply_is_used_and_missing_usage_counts_zero(chat):
    chat.reply(CODE)  # no usage block at all
    plan = planner_for(chat).plan(request())
    assert plan.source == CODE and (plan.prompt_tokens, plan.completion_tokens) == (0, 0)


def test_server_error_is_a_planner_error_with_the_server_message(chat):
    chat.reply(None, status=500, body={"error": {"message": "model overloaded",
                                                 "type": "server_error"}})
    with pytest.raises(PlannerError, match="answered HTTP 500: model overloaded") as e:
        planner_for(chat).plan(request())
    assert len(chat.requests) == 1  # max_retries=0: no retry
    (exchange,) = e.value.exchanges  # the failed call is still recorded
    assert exchange["status"] == 500 and "model overloaded" in exchange["error"]


def test_non_code_reply_is_asked_once_more_then_a_planner_error(chat):
    chat.reply("I'm sorry, I cannot help with moving blocks today.")
    chat.reply("Still no.")
    with pytest.raises(PlannerError, match="reply has no code") as e:
        planner_for(chat).plan(request())
    assert [x["reply"] for x in e.value.exchanges] == [
        "I'm sorry, I cannot help with moving blocks today.", "Still no."]
    assert chat.requests[1]["body"]["temperature"] == 0.7  # the second ask samples


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
    assert OpenAIPlanner("gpt-4o-mini").api_key == "sk-test"
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
    # issue 19: unfenced code, its closing fence, then a made-up next example
    ("import x\nx.go()\n```\n\nInstruction: next\n```python\nprint(1)\n```\n",
     "import x\nx.go()\n"),
    # unfenced code running on into a new example (the heading parses as an annotation)
    ("import x\nx.go()\n\nInstruction: next\nObjects: a, b\n", "import x\nx.go()\n"),
    # a fenced block, then a run-on example with its own block: the first one
    (f"```python\n{CODE}```\n\nInstruction: more\n```python\nprint(2)\n```", CODE),
    (f"Here is the plan:\n{CODE}This puts the block away.", CODE),  # prose around
    (f"<think>first the red block\n{CODE}", None),  # unclosed reasoning: no answer yet
    (f"<think>plan it</think>\n{CODE}", CODE),
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


def test_system_prompt_shows_every_primitive():
    import primitives

    system = build_messages(request())[0]["content"]
    for module, functions in primitives.sandbox_api().items():
        line = next(ln for ln in system.splitlines() if ln.startswith(f"from {module} import"))
        assert line.split("#")[0].split("import ")[1].strip() == ", ".join(functions), module


def test_few_shot_examples_are_valid_codeplans():
    from runtime.sandbox import compile_codeplan

    text = Path(PROMPTS_DIR / "planner_examples.txt").read_text()
    blocks = text.split("```python\n")[1:]
    assert len(blocks) >= 3
    for block in blocks:
        compile_codeplan(block.split("```")[0])
    # no example moves anything onto the table (a 1.5B model copied such an example)
    assert "'table')" not in text


# -- the robust client (issue 19, item 5) ---------------------------------------------------

@pytest.mark.parametrize(("body", "what"), [
    (completion(None) | {"choices": [{"index": 0, "message": {"content": 42}}]},
     "message content is a int, not text"),
    (completion(None) | {"choices": [{"index": 0, "message": {"content": ["a", "b"]}}]},
     "message content is a list, not text"),
    (completion(None) | {"choices": ["```python\nx()\n```"]}, "choice 0 is a str"),
    (completion(None) | {"choices": []}, "no choices"),
    (completion(None) | {"choices": {"0": 1}}, "'choices' is a dict"),
    (completion(None) | {"choices": [{"index": 0, "message": "hi"}]},
     "choice 0 has no message object"),
    (b'{"choices": [', "not JSON"),
    (b"", "empty body"),
    (b"<html>Bad Gateway</html>", "not JSON: '<html>Bad Gateway</html>'"),
    (b"[1, 2]", "the body is a JSON list"),
])
def test_malformed_reply_is_one_line_naming_server_and_fault(chat, body, what):
    chat.reply(None, body=body)
    with pytest.raises(PlannerError) as e:
        planner_for(chat).plan(request())
    message = str(e.value)
    assert "\n" not in message and chat.base_url in message and what in message, message
    assert e.value.exchanges[0]["error"] == message


@pytest.mark.parametrize("usage", ["lots", [1, 2], {"prompt_tokens": "12", "completion_tokens": -5},
                                   {"prompt_tokens": True, "completion_tokens": 1e300},
                                   {"prompt_tokens": None}])
def test_garbage_usage_counts_zero_and_keeps_the_plan(chat, usage):
    chat.reply(None, body=completion(CODE) | {"usage": usage})
    plan = planner_for(chat).plan(request())
    assert plan.source == CODE and (plan.prompt_tokens, plan.completion_tokens) == (0, 0)


def test_429_and_5xx_are_retried_with_backoff(chat):
    chat.reply(None, status=429, body={"error": {"message": "slow down"}})
    chat.reply(None, status=503, body={"error": "loading model"})
    chat.reply(CODE, {"prompt_tokens": 10, "completion_tokens": 5})
    started = time.monotonic()
    plan = OpenAIPlanner("m", base_url=chat.base_url, max_retries=2).plan(request())
    assert plan.source == CODE and len(chat.requests) == 3
    assert time.monotonic() - started >= 0.5 + 1.0 - 0.05  # backoff 0.5 s, then 1 s
    assert plan.exchanges[0]["tries"] == 3


def test_retries_are_bounded(chat):
    for _ in range(5):
        chat.reply(None, status=500, body={"error": {"message": "boom"}})
    planner = OpenAIPlanner("m", base_url=chat.base_url, max_retries=1)
    with pytest.raises(PlannerError, match=r"HTTP 500: boom \(after 2 tries\)"):
        planner.plan(request())
    assert len(chat.requests) == 2


def test_client_errors_are_not_retried(chat):
    chat.reply(None, status=400, body={"error": {"message": "bad grammar"}})
    with pytest.raises(PlannerError, match="HTTP 400: bad grammar"):
        OpenAIPlanner("m", base_url=chat.base_url, max_retries=3).plan(request())
    assert len(chat.requests) == 1


class DripServer:
    """A raw socket server that sends a status line and headers, then one byte of body every
    `every_s` seconds (or drips the headers themselves): the case a per-read timeout misses."""

    def __init__(self, drip_headers: bool, every_s: float = 0.2, total_s: float = 8.0) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.sock.settimeout(total_s)
        self.drip_headers, self.every_s, self.total_s = drip_headers, every_s, total_s
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _serve(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            body = json.dumps(completion(CODE)).encode()
            data = (head + b"X-Pad: " + b"x" * 200 if self.drip_headers else
                    head + f"Content-Length: {len(body)}\r\n\r\n".encode() + b" " * 0)
            if not self.drip_headers:
                conn.sendall(data)
                data = body
            end = time.monotonic() + self.total_s
            try:
                for byte in data:
                    if time.monotonic() > end:
                        break
                    conn.sendall(bytes([byte]))
                    time.sleep(self.every_s)
            except OSError:
                pass

    def close(self) -> None:
        self.sock.close()
        self.thread.join(timeout=self.total_s + 1)


@pytest.mark.parametrize("drip_headers", [False, True])
def test_a_dripping_server_cannot_hold_the_call_past_the_deadline(monkeypatch, drip_headers):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = DripServer(drip_headers)
    try:
        planner = OpenAIPlanner("m", base_url=server.base_url, timeout_s=1.0, max_retries=0)
        started = time.monotonic()
        with pytest.raises(PlannerError, match=r"no answer from .* within 1 s"):
            planner.plan(request())
        assert time.monotonic() - started < 2.0  # the deadline, not 8 s of dripping
    finally:
        server.close()


def test_the_exchange_records_messages_parameters_tokens_and_raw_reply(chat):
    reply = f"```python\n{CODE}```"
    chat.reply(reply, {"prompt_tokens": 600, "completion_tokens": 80})
    planner = planner_for(chat, grammar='root ::= "x"')
    plan = planner.plan(request())
    (x,) = plan.exchanges
    assert x["messages"] == chat.requests[0]["body"]["messages"]
    assert x["params"] == {k: v for k, v in chat.requests[0]["body"].items() if k != "messages"}
    assert x["params"]["grammar"] == 'root ::= "x"'
    assert (x["prompt_tokens"], x["completion_tokens"], x["reply"]) == (600, 80, reply)
    assert x["model"] == "test-model" and x["reply_model"] == "test-model-0613"
    assert x["latency_s"] >= 0 and x["status"] == 200 and x["finish_reason"] == "stop"


def test_a_non_positive_timeout_is_refused():
    with pytest.raises(PlannerError, match="timeout must be positive"):
        OpenAIPlanner("m", base_url="http://127.0.0.1:9/v1", timeout_s=0)


def test_missing_imports_are_added_for_the_modules_the_code_uses(chat):
    chat.reply("```python\nput_first_on_second('red block', 'blue bowl')\n"
               "tell_planner('done')\n```")
    plan = planner_for(chat).plan(request())
    assert plan.source == ("from control_actions import put_first_on_second\n"
                           "from plan_actions import get_object_names, tell_planner\n\n"
                           "put_first_on_second('red block', 'blue bowl')\n"
                           "tell_planner('done')\n")
    chat.reply(f"```python\n{CODE}```")  # imports already there: unchanged
    assert planner_for(chat).plan(request()).source == CODE


@pytest.mark.parametrize(("instruction", "example"), [
    ("put the blocks in the bowls with matching colors", "with matching colors"),
    ("put the blocks in bowls of a different color", "a different or other color"),
    ("place every block in a bowl of some other color", "a different or other color"),
    ("put the darker blocks in the bowls with matching colors", "with matching colors"),
    ("put the pink block in the cyan bowl", "the brown block in the red bowl"),
    ("stack all the blocks on the red block", "stack all the blocks on the orange block"),
    ("stack all the blocks", "stack the blocks into one tower"),
    ("stack all the blocks in a 3-2-1 pyramid on the stand", "3-2-1 pyramid"),
    # a colour set by name has its own form's example (shared words drew the matching one)
    ("put the blocks of primary colors in bowls", "the neutral colored blocks"),
    ("only the blocks in primary colors go in bowls", "the neutral colored blocks"),
    ("put the warm colored blocks in bowls", "the neutral colored blocks"),
    ("only the cool colored blocks go in bowls", "the neutral colored blocks"),
    ("put the blocks in the colors of the French flag in bowls", "the Italian flag"),
    ("put the blocks in the bowls", "put the blocks in the bowls"),
])
def test_the_closest_example_is_chosen_by_weighted_shared_words(instruction, example):
    from runtime.planners.prompts import closest_example, load_prompt

    chosen = closest_example(instruction, load_prompt("planner_examples.txt"))
    assert example in chosen.splitlines()[1] and chosen.count("Instruction:") == 1


@pytest.mark.parametrize(("instruction", "objects", "example"), [
    # shared words alone chose the matching example for these (they share "match", "color")
    ("place the blocks in bowls that do not match their colors", None, "a different or other"),
    ("no block may sit in the bowl of its own colour", None, "a different or other"),
    ("sort the cubes into the bowls by colour", None, "with matching colors"),
    # a named object the scene lacks draws the example that reports it, else the put example
    ("put the gold block in the blue bowl", ["red block", "blue bowl"], "the gold block"),
    ("put the red block in the blue bowl", ["red block", "blue bowl"], "the brown block"),
    ("pile every cube on top of the red block", None, "on the orange block"),
])
def test_the_example_is_of_the_same_kind_of_task(instruction, objects, example):
    from runtime.planners.prompts import closest_example, load_prompt

    chosen = closest_example(instruction, load_prompt("planner_examples.txt"), objects)
    assert example in chosen.splitlines()[1]


@pytest.mark.parametrize(("instruction", "facts", "now"), [
    ("put the blocks in the bowls with matching colors", [], "Now: no block"),
    ("put the darker blocks in the bowls with matching colors",
     [("red block", "in", "blue bowl")], "Now: red block is in blue bowl; blue block is in red"),
    ("put the blocks in bowls of a different color", [("red block", "in", "red bowl")],
     "Now: pink block is in cyan bowl"),
    # a disturbed tower without a named base still gets the recovery example of stacking
    ("stack all the blocks", [("blue block", "on", "red block")], "Now: yellow block is on"),
])
def test_a_disturbed_scene_draws_the_recovery_example_of_its_kind(instruction, facts, now):
    from runtime.planners.prompts import closest_example, load_prompt

    chosen = closest_example(instruction, load_prompt("planner_examples.txt"), None, facts)
    assert chosen.splitlines()[3].startswith(now)


def test_every_few_shot_example_passes_the_dry_run_on_its_own_scene():
    """The model copies the example it is shown: an example whose own moves the dry run would
    reject (a pyramid row short, a block picked from under another, a bowl given twice)
    would teach the mistake. Each example's codeplan is checked against its own instruction,
    scene and 'Now:' facts, as a request of that scene would be."""
    import re

    from runtime.planners.base import PlanRequest
    from runtime.planners.openai_planner import with_imports
    from runtime.planners.plan_check import check_plan, dry_run

    text = Path(PROMPTS_DIR / "planner_examples.txt").read_text()
    examples = [e for e in text.split("Example.\n") if e.strip()]
    assert len(examples) >= 10
    for example in examples:
        lines = dict(ln.split(": ", 1) for ln in example.splitlines()[:3])
        objects = re.findall(r"'([^']+)'", lines["Scene"])
        facts = [tuple(re.fullmatch(r"(.+ block) is (in|on) (.+)", f.strip()).groups())
                 for f in lines["Now"].rstrip(".").split(";") if " is " in f]
        request = PlanRequest(lines["Instruction"], objects, facts, initial_facts=facts)
        source = with_imports(example.split("```python\n")[1].split("```")[0])
        assert check_plan(source, request) is None, example
        _moves, message = dry_run(source, request)
        assert message is not None, example  # every example ends with a report


def test_complete_sends_a_plain_completion_and_returns_its_exchange(chat):
    """`complete` (ConceptAgent's preconditions, steps and critic): the caller's token cap,
    temperature, seed and grammar go in the body; the text and the recorded exchange come
    back; a server error is a PlannerError."""
    chat.reply("clear(pick)", usage={"prompt_tokens": 12, "completion_tokens": 3})
    text, exchange = planner_for(chat).complete([{"role": "user", "content": "q"}], 40,
                                                grammar="root ::= \"x\"", temperature=0.7,
                                                seed=3)
    body = chat.requests[-1]["body"]
    assert text == "clear(pick)" and exchange["reply"] == "clear(pick)"
    assert (body["max_tokens"], body["temperature"], body["seed"], body["grammar"]) == (
        40, 0.7, 3, 'root ::= "x"')
    assert exchange["prompt_tokens"] == 12 and "messages" in exchange
    chat.reply(None, status=500, body={"error": {"message": "boom"}})
    with pytest.raises(PlannerError):
        planner_for(chat).complete([{"role": "user", "content": "q"}], 40)
