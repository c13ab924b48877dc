"""Fuzz `codeplan run` with bad codeplans and a reasoning service that replies with garbage.

For every case: no host traceback (`main()` returns an exit status, nothing escapes it), time
bounded by the episode budget plus 5 s, a trace always written (ending in `episode_end`, or in
`crash` when the run is refused with exit 2), and a clear message (the result JSON with a
failure_reason, or one line on stderr). The default suite runs a fixed sample; `-m slow`
runs the generated corpus (CORPUS_PLANS codeplans, CORPUS_REPLIES server replies).
"""

from __future__ import annotations

import json
import random
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from runtime.cli import main
from runtime.trace import read_trace

BUDGET_S = 2.0  # the fuzz episodes' time budget (--max-episode-s)
SLACK_S = 5.0  # the target: any codeplan ends within the budget plus 5 s
CORPUS_PLANS = 360
CORPUS_REPLIES = 120
IMPORTS = ("from control_actions import put_first_on_second\n"
           "from plan_actions import get_object_names, tell_planner\n"
           "from reasoning_actions import find_object_related_to_obj, is_true, ask\n")
GOOD = IMPORTS + "put_first_on_second('yellow block', 'pink bowl')\ntell_planner('done')\n"

# Odd values, as Python source, for arguments and messages.
ODD = ["None", "1", "-1.5", "float('nan')", "float('inf')", "[]", "{}", "()", "True",
       "'x' * 200000", "'\\ud800'", "'\\udfff block'", "'\\x00'", "'yellow block\\x00'",
       "'\\U0010ffff'", "'🙂 block'", "('a',)", "[[[[[[]]]]]]", "{'a': {'b': [1, None]}}",
       "b'bytes'", "10 ** 400", "-10 ** 30", "'yellow block'", "'pink bowl'", "''", "' '",
       "'a\\nb\\rc'", "'\\u202e reversed'", "print", "len", "[1] * 100000", "{1, 2}",
       "'yellow block' * 1000", "'\\ufeff'", "0.1 + 0.2", "'%s %d {}'"]
PRIMITIVES = ["put_first_on_second", "get_object_names", "tell_planner",
              "find_object_related_to_obj", "is_true", "ask"]
FORBIDDEN = [
    "import os\nos.system('echo pwned')\n", "open('/etc/passwd').read()\n",
    "__import__('os')\n", "().__class__.__bases__[0].__subclasses__()\n",
    "eval('1 + 1')\n", "exec('x = 1')\n", "globals()['__builtins__']\n",
    "getattr(ask, '__globals__')\n", "type(ask).__call__\n", "import sys\nsys.exit(0)\n",
    "with open('x') as f:\n    pass\n", "import subprocess\n", "async def f():\n    pass\n",
    "x = ask.__code__\n", "import control_actions\ncontrol_actions.__dict__\n",
    "from plan_actions import *\n", "raise SystemExit(3)\n", "raise KeyboardInterrupt\n",
    "import primitives.episode\n", "breakpoint()\n", "input()\n", "help()\n",
]
RESOURCES = [
    "x = 'a' * 10 ** 10\n", "x = [0] * 10 ** 9\n", "def f(n):\n    return f(n + 1)\nf(0)\n",
    "while True:\n    print('spam' * 1000)\n", "x = 9 ** 9 ** 9\n",
    "x = sum(range(10 ** 12))\n", "l = []\nwhile True:\n    l.append(l)\n",
    "x = sorted(range(10 ** 8))\n", "s = '\\ud800' * 10 ** 6\nprint(s)\n",
    "while True:\n    pass\n", "for i in range(10 ** 9):\n    x = i\n",
    "d = {}\nfor i in range(10 ** 7):\n    d[i] = str(i) * 100\n",
]
RUNAWAYS = [
    "while True:\n    for o in get_object_names():\n        if o.endswith('bowl'):\n"
    "            put_first_on_second('yellow block', o)\n",
    "while True:\n    put_first_on_second('yellow block', 'pink bowl')\n",
    "while True:\n    get_object_names()\n",
    "while True:\n    ask('how many blocks are there?')\n",
    "while True:\n    is_true('is the yellow block in the pink bowl?')\n",
    "while True:\n    try:\n        put_first_on_second('nothing', 'nowhere')\n"
    "    except Exception:\n        pass\n",
    "for b in get_object_names():\n    for c in get_object_names():\n"
    "        for d in range(10 ** 6):\n            find_object_related_to_obj('left of', b)\n",
]


def _call(rng: random.Random) -> str:
    name = rng.choice(PRIMITIVES)
    args = ", ".join(rng.choice(ODD) for _ in range(rng.randint(0, 3)))
    kwargs = rng.choice(["", "", ", pick=None", ", x=1", ", **{'a': 1}"])
    return f"{name}({args}{kwargs if args else ''})\n"


def _syntax(rng: random.Random) -> str:
    alphabet = "()[]{}:;'\"\\\n\t #=+-*/@!?.,abcdefXYZ0123456789\x00\ud800é🙂\u202e"
    if rng.random() < 0.5:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 300)))
    plan = list(GOOD)
    for _ in range(rng.randint(1, 6)):
        i = rng.randrange(len(plan))
        plan[i:i + 1] = rng.choice(["", rng.choice(alphabet), "\n    ", "("])
    return "".join(plan)[:rng.randint(10, len(plan))]


def _bad_calls(rng: random.Random) -> str:
    body = "".join(_call(rng) for _ in range(rng.randint(1, 4)))
    if rng.random() < 0.5:  # the same calls, each in its own try
        body = "".join(f"try:\n    {line}except Exception as e:\n    print(e)\n"
                       for line in body.splitlines(keepends=True))
    return IMPORTS + body


def _odd_report(rng: random.Random) -> str:
    return IMPORTS + f"tell_planner({rng.choice(ODD)})\n"


def _exceptions(rng: random.Random) -> str:
    odd = rng.choice(ODD)
    return IMPORTS + rng.choice([
        f"raise Exception({odd})\n", f"raise ValueError({odd}, {odd})\n",
        f"try:\n    {_call(rng)}except BaseException:\n    tell_planner('done')\n",
        f"assert False, {odd}\n", f"x = {odd}\nx.foo\n", f"x = {odd}[{odd}]\n",
        f"print({odd})\nprint({odd}, sep={odd})\n", f"x = {{}}[{odd}]\n",
    ])


def _fenced(rng: random.Random) -> str:
    inner = rng.choice([GOOD, "", "```", _bad_calls(rng), _syntax(rng)])
    return rng.choice([f"```python\n{inner}```\n", f"Sure!\n```\n{inner}\n", "```\n```\n",
                       f"{inner}\n```python\n"])


GENERATORS = {
    "syntax": _syntax, "bad_calls": _bad_calls, "odd_report": _odd_report,
    "exceptions": _exceptions, "fenced": _fenced,
    "forbidden": lambda rng: IMPORTS + rng.choice(FORBIDDEN),
    "resources": lambda rng: IMPORTS + rng.choice(RESOURCES),
    "runaway": lambda rng: IMPORTS + rng.choice(RUNAWAYS),
    "bytes": lambda rng: rng.randbytes(rng.randint(0, 200)),
}


def bad_codeplans(n: int, seed: int = 20) -> list[tuple[str, str | bytes]]:
    """`n` (id, codeplan) pairs, a pure function of `seed`, every generator in turn."""
    rng = random.Random(seed)
    kinds = sorted(GENERATORS)
    return [(f"{kinds[i % len(kinds)]}-{i}", GENERATORS[kinds[i % len(kinds)]](rng))
            for i in range(n)]


# -- the run and what must hold --------------------------------------------------------------

def run_codeplan(tmp_path: Path, capsys, plan: str | bytes, *extra: str) -> dict:
    """`codeplan run --planner file` on `plan`, in this process; checks every property and
    returns what it printed. Why in-process: several hundred runs must take minutes."""
    path = tmp_path / f"plan-{time.monotonic_ns()}.py"
    path.write_bytes(plan if isinstance(plan, bytes) else plan.encode("utf-8", "surrogatepass"))
    runs = tmp_path / "runs"
    before = set(runs.glob("*")) if runs.exists() else set()
    started = time.monotonic()
    code = main(["run", "--planner", "file", "--plan-file", str(path), "--actor", "oracle",
                 "--reasoner", "oracle", "--task", "put-block-in-bowl", "--json",
                 "--runs-dir", str(runs), "--max-plans", "2", "--max-episode-s", str(BUDGET_S),
                 "--max-episode-calls", "300", *extra])
    elapsed = time.monotonic() - started
    out, err = capsys.readouterr()
    assert elapsed < BUDGET_S + SLACK_S + 2.0, f"took {elapsed:.1f} s"  # + 2 s to set up
    assert "Traceback" not in out + err
    new = set(runs.glob("*")) - before
    assert len(new) == 1, "no trace written"
    _, events = read_trace(new.pop())
    if code == 2:  # refused: one line naming the problem, the trace ends in crash
        assert out == "" and err.count("\n") == 1 and err.startswith("codeplan: error: ")
        assert events[-1]["type"] == "crash"
        return {"code": code, "error": err, "elapsed": elapsed}
    assert code == 0, (code, err)
    result = json.loads(out)
    assert events[-1]["type"] == "episode_end" and result["report_error"] is None
    assert result["success"] or 0 < len(result["failure_reason"]) < 3000
    return {"code": code, "elapsed": elapsed, **result}


SAMPLE = {  # one of each kind, fixed, for the default suite
    "syntax": IMPORTS + "put_first_on_second('yellow block', 'pink bowl'\n\x00\ud800",
    "bad_calls": IMPORTS + "put_first_on_second('\\ud800', [[[]]])\ntell_planner(print)\n",
    "odd_report": IMPORTS + "tell_planner({'\\ud800': '\\x00' * 100000})\n",
    "forbidden": IMPORTS + "().__class__.__bases__[0].__subclasses__()\n",
    "resources": IMPORTS + "def f(n):\n    return f(n + 1)\nf(0)\n",
    # moves forever, never into the goal's pink bowl: whichever move the deadline cuts, the
    # episode fails by its budget (RUNAWAYS[0] also visits the pink bowl, so under load the
    # deadline sometimes fell while the block was there and the episode was scored a success)
    "runaway": IMPORTS + "while True:\n    for o in get_object_names():\n"
               "        if o.endswith('bowl') and o != 'pink bowl':\n"
               "            put_first_on_second('yellow block', o)\n",
    "fenced": "```python\n" + GOOD + "```\nthat is all\n",
    "bytes": b"\xff\xfe\x00codeplan",
}


@pytest.mark.parametrize("kind", SAMPLE)
def test_a_bad_codeplan_of_each_kind_ends_cleanly(tmp_path, capsys, kind):
    result = run_codeplan(tmp_path, capsys, SAMPLE[kind])
    if kind == "fenced":
        assert result["success"]
    if kind == "runaway":
        assert result["failure_reason"].startswith("episode budget")


def _tally(outcomes: dict, result: dict) -> None:
    """Count how a case ended (its failure_reason up to the first colon) and the longest."""
    key = "refused (exit 2)" if result["code"] == 2 else (result.get("failure_reason") or "ok")
    key = key.split(":")[0]
    outcomes[key] = outcomes.get(key, 0) + 1
    outcomes["longest s"] = max(outcomes.get("longest s", 0), round(result["elapsed"], 2))


@pytest.mark.slow
def test_the_generated_corpus_of_bad_codeplans(tmp_path, capsys):
    outcomes: dict[str, int] = {}
    for case, plan in bad_codeplans(CORPUS_PLANS):
        try:
            _tally(outcomes, run_codeplan(tmp_path, capsys, plan))
        except AssertionError as e:
            raise AssertionError(f"{case}: {plan!r:.300}: {e}") from None
    with capsys.disabled():  # what the corpus ended as, for docs/RESULTS.md (pytest -s)
        print(f"\n{CORPUS_PLANS} bad codeplans: {json.dumps(outcomes, sort_keys=True)}")


# -- garbage from the reasoning service ------------------------------------------------------

class GarbageService:
    """An HTTP server answering every request with the reply `replies(i)` gives for the
    i-th request: (status, headers, body), or None to hang up without a word."""

    def __init__(self, replies) -> None:
        served = {"n": 0}

        class Handler(BaseHTTPRequestHandler):
            def _reply(self):
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                served["n"] += 1
                reply = replies(served["n"])
                if reply is None:
                    self.close_connection = True
                    return
                status, headers, body = reply
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _reply

            def log_message(self, *args):
                pass

        class Quiet(ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                pass

        self.httpd = Quiet(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


JSON = {"Content-Type": "application/json"}
GARBAGE = [
    (200, {"Content-Type": "text/html"}, b"<html><body>502 Bad Gateway</body></html>"),
    (200, JSON, b"[]"), (200, JSON, b'{"answers": "yes"}'), (200, JSON, b'{"answers": [1]}'),
    (200, JSON, b'{"answers": [{"answer": null, "score": 1}]}'), (200, JSON, b""),
    (200, JSON, b'{"answers": [{"answer": "yes", "score": NaN}]}'),
    (200, JSON, b'{"answers": [{"ans'), (200, JSON, b"\xff\xfe\xfd"), (404, {}, b"not found"),
    (500, {}, b"Internal Server Error"), (503, {"Retry-After": "soon"}, b""),
    (422, JSON, b'{"detail": "\\ud800"}'), (301, {"Location": "/elsewhere"}, b""),
    (200, JSON, b'{"answers": [{"answer": "' + b"x" * 100_000 + b'", "score": 1}]}'),
]


def _answers(text: bytes) -> bytes:
    """A well-formed reply of one answer, `text` (a batch of several questions gets too few
    answers back)."""
    return b'{"answers": [{"answer": "' + text + b'", "score": 1}], "model": "garbage"}'


WELLFORMED_ODD = [_answers(t) for t in (b"\\ud800", b"yellow block\\u0000, pink bowl", b"",
                                        b"yes", b"nothing", b"\\ud800 block, pink bowl")]


def garbage_replies(n: int, seed: int = 20) -> list[tuple[str, object]]:
    """`n` (id, replies(i)) cases: a fixed garbage reply, a random reply per request, or
    good-looking replies that turn bad after a few requests."""
    rng = random.Random(seed)
    cases = []
    for i in range(n):
        kind = i % 3
        if kind == 0:
            reply = GARBAGE[i // 3 % len(GARBAGE)]
            cases.append((f"fixed-{i}", lambda _n, r=reply: r))
        elif kind == 1:
            seq = [rng.choice([*GARBAGE, None, *((200, JSON, b) for b in WELLFORMED_ODD)])
                   for _ in range(50)]
            cases.append((f"random-{i}", lambda n, s=seq: s[(n - 1) % len(s)]))
        else:
            after = rng.randint(1, 6)
            bad = rng.choice([*GARBAGE, None])
            odd = (200, JSON, rng.choice(WELLFORMED_ODD))
            cases.append((f"turns-bad-{i}", lambda n, a=after, b=bad, o=odd: o if n <= a else b))
    return cases


def run_with_service(tmp_path: Path, capsys, replies) -> dict:
    service = GarbageService(replies)
    try:
        return run_codeplan(tmp_path, capsys, GOOD, "--reasoner", service.url)
    finally:
        service.close()


@pytest.mark.parametrize("reply", [GARBAGE[0], GARBAGE[4], GARBAGE[12]],
                         ids=["html", "null-answer", "422-surrogate"])
def test_a_garbage_reply_from_the_reasoning_service_ends_the_episode_with_the_reason(
        tmp_path, capsys, reply):
    result = run_with_service(tmp_path, capsys, lambda _n: reply)
    assert result["failure_reason"].startswith("reasoner failed: http://127.0.0.1:")


@pytest.mark.slow
def test_the_generated_corpus_of_garbage_service_replies(tmp_path, capsys):
    outcomes: dict[str, int] = {}
    for case, replies in garbage_replies(CORPUS_REPLIES):
        try:
            _tally(outcomes, run_with_service(tmp_path, capsys, replies))
        except AssertionError as e:
            raise AssertionError(f"{case}: {e}") from None
    with capsys.disabled():
        print(f"\n{CORPUS_REPLIES} garbage services: {json.dumps(outcomes, sort_keys=True)}")
