"""Escape corpus: every attempt must be stopped, and the host must be unharmed afterwards.

All attempts run in one Sandbox (small limits keep the kills quick); the last test
checks the host and that the same Sandbox still runs a good plan correctly.
"""

from __future__ import annotations

import builtins
import os
import pickle
import socket
import struct
import sys
import tempfile
import types
from pathlib import Path

import pytest

from runtime.sandbox import Limits, Sandbox
from runtime.sandbox.host import HostRun, ProtocolError
from runtime.sandbox.wire import Channel, WireError, encode

SENTINEL = Path(tempfile.gettempdir()) / f"codeplan-escape-sentinel-{os.getpid()}"
S = repr(str(SENTINEL))
LIMITS = Limits(max_seconds=0.5, kill_grace_s=0.3, max_memory_mb=256)
# The memory cases get wall-clock room, so on a loaded machine they still end on the memory
# limit they test and not on the clock (doubling a list to 256 MB takes ~0.2 s when idle).
ROOMY = Limits(max_seconds=10.0, kill_grace_s=0.3, max_memory_mb=256)

V, X, R, B, K = "violation", "syntax", "runtime", "budget", "killed"

# (id, source, expected kind, substring the error must contain)
CORPUS: list[tuple[str, str, str, str]] = [
    # dunder walks
    ("subclasses-walk", "().__class__.__bases__[0].__subclasses__()", V, "__class__"),
    ("dict-class", "dict.__class__", V, "__class__"),
    ("dunder-name", "__builtins__", V, "__builtins__"),
    ("dunder-dict-module", "import control_actions\ncontrol_actions.__dict__", V, "__dict__"),
    ("class-dict", "class A:\n    pass\nA.__dict__", V, "__dict__"),
    ("fstring-dunder", "f'{().__class__}'", V, "__class__"),
    ("percent-dunder", "'%s' % ().__class__", V, "__class__"),
    ("mro-method", "ValueError.mro()", V, "mro"),
    ("mro-in-except",
     "try:\n    pass\nexcept ValueError.mro()[2]:\n    pass\nValueError.mro()", V, "mro"),
    ("exception-subclass-bases", "class E(PrimitiveError):\n    pass\nE.__bases__", V, "__bases__"),
    # string-built attribute names
    ("getattr-string", "getattr(1, '__cl' + 'ass__')", V, "getattr"),
    ("getattr-alias", "g = getattr\ng(1, 'real')", V, "getattr"),
    ("str-format-attr", "'{0.__class__}'.format(1)", V, "format"),
    ("str-format-unbound", "str.format('{0.__class__.__mro__}', 1)", V, "format"),
    ("str-format-map", "'{x.__class__}'.format_map({'x': 1})", V, "format_map"),
    ("str-format-alias", "f = 'a'.format\nf()", V, "format"),
    # frames, tracebacks, code
    ("generator-frame", "(x for x in []).gi_frame.f_globals", V, "gi_frame"),
    ("generator-code", "def g():\n    yield 1\ng().gi_code", V, "gi_code"),
    ("traceback-dunder", "try:\n    1 / 0\nexcept Exception as e:\n    e.__traceback__", V,
     "__traceback__"),
    ("traceback-frame", "try:\n    1 / 0\nexcept Exception as e:\n    e.tb_frame.f_back", V,
     "tb_frame"),
    ("function-globals", "(lambda: 0).__globals__", V, "__globals__"),
    ("function-code", "def f():\n    pass\nf.__code__.co_code", V, "__code__"),
    # eval & friends, builtins, namespaces
    ("dunder-import", "__import__('os')", V, "__import__"),
    ("eval-call", "eval('1 + 1')", V, "eval"),
    ("eval-alias", "e = eval\ne('1')", V, "eval"),
    ("exec-call", "exec('import os')", V, "exec"),
    ("compile-call", "compile('1', 'x', 'eval')", V, "compile"),
    ("type-three-args", "type('X', (), {})", V, "type"),
    ("type-subclasses", "type(1).__subclasses__()", V, "type"),
    ("globals-builtins", "globals()['__builtins__']", V, "globals"),
    ("locals-call", "locals()", V, "locals"),
    ("vars-call", "vars()", V, "vars"),
    ("open-passwd", "open('/etc/passwd').read()", V, "open"),
    ("open-sentinel", f"open({S}, 'w').write('pwned')", V, "open"),
    ("help-call", "help()", V, "help"),
    ("breakpoint-call", "breakpoint()", V, "breakpoint"),
    ("input-call", "input()", V, "input"),
    ("memoryview-call", "memoryview(b'abc')", V, "memoryview"),
    ("dir-call", "dir()", V, "dir"),
    ("object-subclasses", "object.__subclasses__()", V, "object"),
    ("fullwidth-eval", "ｅｖａｌ('1 + 1')", V, "eval"),
    ("fullwidth-underscore", "＿＿import＿＿('os')", X, "invalid character"),
    ("fullwidth-guard-rebind", "_ｇｅｔａｔｔｒ_ = None", V, "_getattr_"),
    ("fullwidth-open", f"ｏｐｅｎ({S}, 'w')", V, "open"),
    # imports
    ("import-os", f"import os\nos.system('touch ' + {S})", V, "import of 'os'"),
    ("import-sys", "import sys", V, "import of 'sys'"),
    ("import-subprocess", "import subprocess", V, "import of 'subprocess'"),
    ("import-operator", "import operator", V, "import of 'operator'"),
    ("import-importlib", "import importlib", V, "import of 'importlib'"),
    ("import-builtins", "import builtins", V, "builtins"),
    ("from-os-import", "from os import system", V, "import of 'os'"),
    ("import-submodule", "import control_actions.os", V, "import of 'control_actions.os'"),
    ("relative-import", "from . import control_actions", V, "import of"),
    ("star-import", "from control_actions import *", V, '"*" imports'),
    ("missing-api-name", "from plan_actions import os", V, "has no function 'os'"),
    # rebinding RestrictedPython's guard names
    ("rebind-getattr", "_getattr_ = None", V, "_getattr_"),
    ("rebind-getiter", "_getiter_ = lambda x: x", V, "_getiter_"),
    ("rebind-step", "def _step_():\n    pass", V, "_step_"),
    ("rebind-abort-global", "def f():\n    global _abort_\n    _abort_ = ()", V, "_abort_"),
    ("walrus-guard", "(_write_ := None)", V, "_write_"),
    ("import-as-guard", "import control_actions as _getattr_", V, "_getattr_"),
    # process-killing exceptions
    ("raise-systemexit", "raise SystemExit(0)", R, "NameError"),
    ("raise-keyboardinterrupt", "raise KeyboardInterrupt", R, "NameError"),
    ("raise-baseexception", "raise BaseException('x')", R, "NameError"),
    # budgets the codeplan tries to dodge
    ("while-true", "while True:\n    pass", B, "step limit"),
    ("while-except-exception",
     "while True:\n    try:\n        while True:\n            pass\n"
     "    except Exception:\n        pass", B, "step limit"),
    ("while-bare-except",
     "while True:\n    try:\n        while True:\n            pass\n    except:\n        pass",
     B, "step limit"),
    ("handler-nameerror-swap",
     "while True:\n    try:\n        try:\n            while True:\n                pass\n"
     "        except BaseException:\n            pass\n    except Exception:\n        pass",
     B, "step limit"),
    ("finally-continue",
     "while True:\n    try:\n        while True:\n            pass\n    finally:\n        continue",
     V, "'continue' inside 'finally'"),
    ("finally-return",
     "def f():\n    try:\n        while True:\n            pass\n"
     "    finally:\n        return 1\nf()",
     V, "'return' inside 'finally'"),
    ("finally-yield", "def g():\n    try:\n        yield 1\n    finally:\n        yield 2", V,
     "'yield' inside 'finally'"),
    ("comprehension-loop", "[x for x in range(10 ** 12)]", B, "step limit"),
    ("sorted-key-loop", "sorted(range(3), key=lambda x: [y for y in range(10 ** 9)])", B,
     "step limit"),
    ("recursion-retry",
     "def f():\n    try:\n        f()\n    except RecursionError:\n        f()\nf()", B, "budget"),
    ("deep-recursion", "def f(n):\n    return f(n + 1)\nf(0)", R, "RecursionError"),
    ("lambda-recursion", "f = lambda: f()\nf()", R, "RecursionError"),
    ("c-loop-sum", "sum(range(10 ** 12))", K, "wall-clock"),
    ("c-loop-iter-sentinel", "any(iter(int, 1))", K, "wall-clock"),
    ("memory-list", "[0] * 10 ** 10", K, "memory limit"),
    ("memory-str", "'x' * 10 ** 11", K, "memory limit"),
    ("memory-doubling", "x = [1]\nwhile True:\n    x = x + x", K, "memory limit"),
    ("memory-caught", "try:\n    x = 'x' * 10 ** 11\nexcept Exception:\n    pass", K,
     "memory limit"),
    # other syntax the policy refuses
    ("print-to-file", "print('x', file=[])", V, "file="),
    ("with-open", f"with open({S}, 'w') as f:\n    f.write('x')", V, "'with'"),
    ("nonlocal", "def f():\n    x = 1\n    def g():\n        nonlocal x", V, "Nonlocal"),
    ("async-def", "async def f():\n    pass", V, "AsyncFunctionDef"),
    ("except-star", "try:\n    pass\nexcept* Exception:\n    pass", V, "TryStar"),
    ("lambda-default-dunder", "f = lambda x=().__class__: x", V, "__class__"),
    ("getattribute-class", "class A:\n    def __getattribute__(self, name):\n        return 1",
     V, "__getattribute__"),
    ("metaclass-keyword", "class A(metaclass=list):\n    pass", V, "metaclass"),
    ("slots-class", "class A:\n    __slots__ = ()", V, "__slots__"),
    ("decorator-eval", "@eval\ndef f():\n    pass", V, "eval"),
    ("decorator-globals", "def d(f):\n    return f.__globals__\n@d\ndef g():\n    pass", V,
     "__globals__"),
    ("print-self", "print.__self__", V, "__self__"),
    ("write-module-attr",
     "import control_actions\ncontrol_actions.put_first_on_second = print", V, "may not modify"),
    ("write-builtin-attr", "PrimitiveError.args = 1", V, "may not modify"),
    ("subclass-module", "import control_actions\nclass M(control_actions):\n    pass", V,
     "may not derive"),
    ("aug-assign-slice", "x = [1]\nx[0:1] += [2]", V, "slices"),
    ("non-plain-argument",
     "from control_actions import put_first_on_second\nclass A:\n    pass\n"
     "put_first_on_second(A(), 'x')", R, "plain data"),
    ("deeply-nested-source", "x = " + "(" * 1000 + ")" * 1000, X, "nested"),
    ("deep-unary-source", "x = " + "-" * 100_000 + "1", X, "SyntaxError"),
    ("null-byte-source", "x = 1\0", X, "null"),
]


@pytest.fixture(scope="module")
def sandbox():
    yield from _sandbox(LIMITS)


@pytest.fixture(scope="module")
def roomy_sandbox():
    yield from _sandbox(ROOMY)


def _sandbox(limits: Limits):
    calls: list[tuple[str, str]] = []
    api = {
        "control_actions": {"put_first_on_second": lambda a, b: calls.append((a, b))},
        "plan_actions": {"get_object_names": lambda: ["red block", "blue bowl"],
                         "tell_planner": lambda message: None},
        "reasoning_actions": {"is_true": lambda statement: True},
    }
    SENTINEL.unlink(missing_ok=True)
    with Sandbox(api, limits) as box:
        box.calls = calls  # type: ignore[attr-defined]
        yield box


def test_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 40
    assert len({case[0] for case in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize(("source", "kind", "needle"), [c[1:] for c in CORPUS],
                         ids=[c[0] for c in CORPUS])
def test_escape_attempt_is_stopped(request, source: str, kind: str, needle: str) -> None:
    memory = needle == "memory limit"
    box = request.getfixturevalue("roomy_sandbox" if memory else "sandbox")
    limits = ROOMY if memory else LIMITS
    result = box.run(source)
    assert not result.ok
    assert result.kind == kind, result.error
    assert result.error and "\n" not in result.error
    assert needle in result.error
    assert result.wall_s < limits.max_seconds + limits.kill_grace_s + 2.0  # s


def test_host_is_unharmed_after_corpus(sandbox: Sandbox) -> None:
    cwd = os.getcwd()
    assert not SENTINEL.exists()
    assert builtins.eval is eval and builtins.open is open and "os" in sys.modules
    assert sys.getrecursionlimit() >= 1000
    result = sandbox.run(
        "import control_actions\n"
        "from plan_actions import get_object_names\n"
        "for name in get_object_names():\n"
        "    if name.endswith('block'):\n"
        "        control_actions.put_first_on_second(name, 'blue bowl')\n"
        "print('done')\n")
    assert result.ok, result.error
    assert sandbox.calls == [("red block", "blue bowl")]  # type: ignore[attr-defined]
    assert result.prints == ["done"]
    assert os.getcwd() == cwd
    assert not SENTINEL.exists()


# --- a subverted worker cannot harm the host either --------------------------------

def _frame(payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + payload


HOSTILE_MESSAGES: list[tuple[str, bytes, type[BaseException]]] = [
    ("oversized-frame", struct.pack(">I", 2**31), WireError),
    ("not-utf8", _frame(b"\xff\xfe\xfd"), WireError),
    ("pickle", _frame(pickle.dumps(os.system)), WireError),
    ("json-object", _frame(b'{"op": "call"}'), WireError),
    ("huge-int", _frame(b'["call", ' + b"9" * 5000 + b"]"), WireError),
    ("deep-json", _frame(b"[" * 100 + b"]" * 100), WireError),
    ("unknown-tag", _frame(encode(["exec", "import os"])), ProtocolError),
    ("unknown-module", _frame(encode(["call", "os", "system", ["ls"], {}, "", 0])),
     ProtocolError),
    ("unknown-function",
     _frame(encode(["call", "plan_actions", "__init__", [], {}, "", 0])), ProtocolError),
    ("dunder-kwarg", _frame(encode(
        ["call", "plan_actions", "tell_planner", [], {"__class__": 1}, "", 0])), ProtocolError),
    ("bad-done", _frame(encode(["done", {"kind": "pwned"}])), ProtocolError),
    ("done-ok-with-error", _frame(encode(["done", {
        "kind": "ok", "error": "x", "line": None, "steps": 0, "prints": "", "recycle": False}])),
     ProtocolError),
    ("half-frame", struct.pack(">I", 100) + b"[", TimeoutError),
    ("silence", b"", TimeoutError),
]


@pytest.mark.parametrize(("data", "error"), [m[1:] for m in HOSTILE_MESSAGES],
                         ids=[m[0] for m in HOSTILE_MESSAGES])
def test_host_rejects_hostile_worker_messages(data: bytes, error: type[BaseException]) -> None:
    told: list[str] = []
    api = {"plan_actions": {"tell_planner": told.append}}
    host_end, worker_end = socket.socketpair()
    fake_worker = types.SimpleNamespace(chan=Channel(host_end))
    run = HostRun(api, Limits(max_seconds=0.1, kill_grace_s=0.0))
    try:
        worker_end.sendall(data)
        with pytest.raises(error):
            run.drive(fake_worker)  # type: ignore[arg-type]
    finally:
        host_end.close()
        worker_end.close()
    assert told == []
