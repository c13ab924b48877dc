"""Functional tests of the codeplan sandbox: API proxying, language features, budgets, CLI."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from runtime.cli import sandbox as sandbox_cli
from runtime.sandbox import (
    CodeplanSyntaxError,
    Limits,
    PrimitiveError,
    Sandbox,
    compile_codeplan,
)
from runtime.sandbox.wire import WireError, check_plain, decode, encode

REPO = Path(__file__).resolve().parents[3]
FAST = Limits(max_seconds=0.5, kill_grace_s=0.3, max_memory_mb=256)


class HostStopSignal(BaseException):
    """Stands in for a controller's own stop signal (not an Exception)."""


class Recorder:
    """Host-side API whose calls the tests inspect."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []
        self.results: dict[str, object] = {}

    def _record(self, name: str, *args: object) -> object:
        self.calls.append((name, *args))
        result = self.results.get(name)
        if isinstance(result, BaseException):
            raise result
        return result() if callable(result) else result

    def api(self) -> dict:
        def fn(name: str):
            return lambda *args, **kwargs: self._record(name, *args, *kwargs.items())

        return {
            "control_actions": {"put_first_on_second": fn("put_first_on_second")},
            "plan_actions": {"get_object_names": fn("get_object_names"),
                             "tell_planner": fn("tell_planner")},
            "reasoning_actions": {"find_object_related_to_obj": fn("find_object_related_to_obj"),
                                  "ask": fn("ask"), "is_true": fn("is_true")},
        }


@pytest.fixture(scope="module")
def recorder_and_sandbox():
    recorder = Recorder()
    with Sandbox(recorder.api(), FAST) as box:
        yield recorder, box


@pytest.fixture
def recorder(recorder_and_sandbox) -> Recorder:
    rec = recorder_and_sandbox[0]
    rec.calls.clear()
    rec.results = {"get_object_names": lambda: ["red block", "green block", "blue bowl"]}
    return rec


@pytest.fixture
def sandbox(recorder_and_sandbox, recorder) -> Sandbox:
    return recorder_and_sandbox[1]


PLAN = """\
from control_actions import put_first_on_second
from plan_actions import get_object_names, tell_planner
from reasoning_actions import find_object_related_to_obj, ask, is_true
for name in get_object_names():
    if name.endswith('block'):
        put_first_on_second(name, 'blue bowl')
tell_planner('done')
"""


def test_good_plan_calls_reach_host_in_order(sandbox: Sandbox, recorder: Recorder) -> None:
    result = sandbox.run(PLAN)
    assert result.ok and result.kind == "ok" and result.error is None
    assert recorder.calls == [
        ("get_object_names",),
        ("put_first_on_second", "red block", "blue bowl"),
        ("put_first_on_second", "green block", "blue bowl"),
        ("tell_planner", "done"),
    ]
    assert result.calls == 4
    assert result.steps >= 3
    assert result.wall_s > 0


def test_import_forms(sandbox: Sandbox, recorder: Recorder) -> None:
    result = sandbox.run(
        "import control_actions\n"
        "import reasoning_actions as ra\n"
        "from plan_actions import tell_planner as tell\n"
        "control_actions.put_first_on_second('a', 'b')\n"
        "ra.ask('q?')\n"
        "tell('x')\n")
    assert result.ok, result.error
    assert [c[0] for c in recorder.calls] == ["put_first_on_second", "ask", "tell_planner"]


def test_keyword_arguments_and_return_values_round_trip(sandbox: Sandbox,
                                                        recorder: Recorder) -> None:
    recorder.results["ask"] = {"t": (1, 2.5, None), 3: [True, "x"], (1, "k"): {}}
    recorder.results["find_object_related_to_obj"] = None
    result = sandbox.run(
        "from reasoning_actions import ask, find_object_related_to_obj as rel\n"
        "a = ask('q')\n"
        "print(a['t'], a[3], a[(1, 'k')], rel('below', obj='red block'))\n"
        "print(type_name := 'ok')\n")
    assert result.ok, result.error
    assert result.prints == ["(1, 2.5, None) [True, 'x'] {} None", "ok"]
    assert recorder.calls[-1] == ("find_object_related_to_obj", "below", ("obj", "red block"))


def test_augmented_assignment_on_names_items_and_attributes(sandbox: Sandbox) -> None:
    result = sandbox.run(
        "n = 1\nn += 2\nn *= 5\nn -= 1\nn //= 2\nn **= 2\nn %= 50\n"
        "xs = [1, 2]\nxs += [3]\nxs[0] += 10\n"
        "d = {'k': 'a'}\nd['k'] += 'b'\n"
        "class Box:\n    def __init__(self):\n        self.count = 0\n"
        "b = Box()\nb.count += 4\nb.count <<= 1\n"
        "def bump(box):\n    box.count |= 1\n    return box.count\n"
        "print(n, xs, d, b.count, bump(b))\n")
    assert result.ok, result.error
    assert result.prints == ["49 [11, 2, 3] {'k': 'ab'} 8 9"]


def test_prints_inside_functions_methods_and_lambdas_are_captured(sandbox: Sandbox) -> None:
    result = sandbox.run(
        "def greet(name):\n    print('hello', name, sep=', ', end='!\\n')\n"
        "class A:\n    def __init__(self):\n        print('init')\n"
        "greet('robot')\nA()\n(lambda: print('lambda'))()\nprint('a\\nb')\nprint()\n")
    assert result.ok, result.error
    assert result.prints == ["hello, robot!", "init", "lambda", "a", "b", ""]


def test_on_print_streams_before_each_call(recorder: Recorder) -> None:
    events: list[str] = []
    api = {"plan_actions": {"tell_planner": lambda m: events.append(f"call {m}")}}
    with Sandbox(api, FAST, on_print=lambda text: events.append(f"print {text!r}")) as box:
        result = box.run("from plan_actions import tell_planner\n"
                         "print('one')\ntell_planner('x')\nprint('two')\n")
    assert result.ok, result.error
    assert events == ["print 'one\\n'", "call x", "print 'two\\n'"]


def test_host_exceptions_are_catchable_in_the_codeplan(sandbox: Sandbox,
                                                       recorder: Recorder) -> None:
    recorder.results["put_first_on_second"] = ValueError("no object named 'purple block'")
    result = sandbox.run(
        "from control_actions import put_first_on_second\n"
        "try:\n    put_first_on_second('purple block', 'bowl')\n"
        "except PrimitiveError as e:\n    print('caught:', e)\n"
        "try:\n    put_first_on_second('x', 'y')\n"
        "except Exception:\n    print('caught again')\n")
    assert result.ok, result.error
    assert result.prints == [
        "caught: put_first_on_second: ValueError: no object named 'purple block'",
        "caught again"]


def test_uncaught_host_exception_is_a_runtime_error_with_line(sandbox: Sandbox,
                                                              recorder: Recorder) -> None:
    recorder.results["ask"] = RuntimeError("vrs offline")
    result = sandbox.run("from reasoning_actions import ask\nx = 1\nask('is it?')\n")
    assert result.kind == "runtime" and result.line == 3
    assert result.error == "Line 3: PrimitiveError: ask: RuntimeError: vrs offline"


def test_host_base_exception_stops_the_plan_and_propagates(sandbox: Sandbox,
                                                           recorder: Recorder) -> None:
    recorder.results["tell_planner"] = HostStopSignal()
    source = ("from plan_actions import tell_planner\nfrom control_actions import "
              "put_first_on_second as put\ntry:\n    tell_planner('x')\nexcept Exception:\n"
              "    put('a', 'b')\nfinally:\n    put('c', 'd')\n")
    with pytest.raises(HostStopSignal):
        sandbox.run(source)
    assert [c[0] for c in recorder.calls] == ["tell_planner"]  # finally's call was refused
    assert sandbox.run("x = 1").ok


def test_non_plain_host_results_become_primitive_errors(sandbox: Sandbox,
                                                        recorder: Recorder) -> None:
    recorder.results["ask"] = lambda: object()
    result = sandbox.run("from reasoning_actions import ask\nask('q')\n")
    assert result.kind == "runtime"
    assert "PrimitiveError: ask: returned data the sandbox cannot pass on" in result.error


def test_non_plain_arguments_are_refused(sandbox: Sandbox, recorder: Recorder) -> None:
    result = sandbox.run("from plan_actions import tell_planner\n"
                         "nested = []\nfor i in range(100):\n    nested = [nested]\n"
                         "tell_planner(nested)\n")
    assert result.kind == "runtime" and result.line == 5
    assert "must be plain data" in result.error and "nested deeper" in result.error
    assert recorder.calls == []


def test_language_features(sandbox: Sandbox) -> None:
    result = sandbox.run(
        "class NotFound(Exception):\n    pass\n"
        "def find(xs, want):\n    for i, x in enumerate(xs):\n        if x == want:\n"
        "            return i\n    raise NotFound(want)\n"
        "a, (b, *c) = 1, (2, 3, 4)\n"
        "pairs = {k: v for k, v in zip('ab', [1, 2])}\n"
        "evens = [x for x in range(10) if x % 2 == 0]\n"
        "gen = sum(x * x for x in range(4))\n"
        "try:\n    find([1], 5)\nexcept NotFound as e:\n    err = e\n"
        "    msg = f'missing {e.args[0]!r}'\n"
        "finally:\n    done = True\n"
        "words = sorted(['b', 'a'], key=lambda w: w)\n"
        "print(a, b, c, pairs, evens, gen, msg, done, words, isinstance(err, Exception))\n"
        "print(max([3, 1]), min(2, 5), abs(-1), round(2.567, 1), list(reversed([1, 2])))\n"
        "print(' '.join(map(str, filter(lambda x: x > 1, [1, 2, 3]))), len('abc'), "
        "any([0, 1]), all([]), tuple([1]), set([1]), dict(a=1), bool(0), int('3'), "
        "float('1.5'))\n")
    assert result.ok, result.error
    assert result.prints == [
        "1 2 [3, 4] {'a': 1, 'b': 2} [0, 2, 4, 6, 8] 14 missing 5 True ['a', 'b'] True",
        "3 2 1 2.6 [2, 1]",
        "2 3 3 True True (1,) {1} {'a': 1} False 3 1.5"]


def test_variables_named_like_unavailable_builtins_are_fine(sandbox: Sandbox) -> None:
    result = sandbox.run("type = 'block'\nfor input in ['a']:\n    print(type, input)\n")
    assert result.ok, result.error
    assert result.prints == ["block a"]


def test_compile_codeplan_gives_line_prefixed_messages() -> None:
    assert compile_codeplan("x = 1\n").co_filename == "<codeplan>"
    with pytest.raises(CodeplanSyntaxError) as syntax:
        compile_codeplan("x = 1\nif x\n    pass\n")
    assert syntax.value.kind == "syntax"
    assert str(syntax.value).startswith("Line 2: SyntaxError: expected ':'")
    with pytest.raises(CodeplanSyntaxError) as policy:
        compile_codeplan("x = ().__class__\n_y = 2\nimport os as _os\n")
    assert policy.value.kind == "violation"
    lines = str(policy.value).splitlines()
    assert [line.split(":")[0] for line in lines] == ["Line 1", "Line 2", "Line 3"]
    with pytest.raises(CodeplanSyntaxError, match=r"^Line 1: SyntaxError: 'return' outside"):
        compile_codeplan("return 5\n")
    with pytest.raises(CodeplanSyntaxError, match=r"^Line 2: IndentationError"):
        compile_codeplan("if True:\npass\n")


def test_run_reports_syntax_and_runtime_errors_with_lines(sandbox: Sandbox) -> None:
    syntax = sandbox.run("for x in range(3)\n    pass\n")
    assert syntax.kind == "syntax" and syntax.line == 1
    assert syntax.error.startswith("Line 1: SyntaxError:")
    runtime = sandbox.run("x = 1\n\ny = x + undefined_name\n")
    assert runtime.kind == "runtime" and runtime.line == 3
    assert runtime.error == "Line 3: NameError: name 'undefined_name' is not defined"
    inner = sandbox.run("def f():\n    return {}['k']\nf()\n")
    assert inner.error == "Line 2: KeyError: 'k'"


def test_step_budget_is_not_swallowed_and_is_counted(sandbox: Sandbox) -> None:
    limits = Limits(max_steps=500, max_seconds=2)
    with Sandbox({}, limits) as box:
        result = box.run("n = 0\nwhile True:\n    try:\n        n += 1\n"
                         "    except Exception:\n        print('swallowed')\n")
    assert result.kind == "budget"
    assert result.error == "budget: step limit 500 exceeded (line 3)"
    assert result.steps == 501
    assert result.prints == []


def test_time_budget_stops_python_loops_cleanly() -> None:
    with Sandbox({}, Limits(max_steps=10**9, max_seconds=0.3, kill_grace_s=1.0)) as box:
        result = box.run("while True:\n    x = [0] * 1000\n")
    assert result.kind == "budget"
    assert result.error.startswith("budget: time limit 0.3 s exceeded")
    assert result.wall_s < 1.3


def test_call_budget(recorder: Recorder) -> None:
    with Sandbox(recorder.api(), Limits(max_calls=3)) as box:
        result = box.run("from reasoning_actions import is_true\nwhile True:\n"
                         "    try:\n        is_true('x')\n    except Exception:\n        pass\n")
    assert result.kind == "budget" and "call limit 3 exceeded" in result.error
    assert len(recorder.calls) == 3


def test_c_level_loop_is_killed_and_worker_replaced(sandbox: Sandbox) -> None:
    first_pid = sandbox.worker_pid
    started = time.perf_counter()
    result = sandbox.run("print('before')\nsum(range(10 ** 13))\n")
    assert result.kind == "killed"
    assert result.error == "killed: wall-clock limit 0.5 s exceeded"
    assert time.perf_counter() - started < 3.0
    assert sandbox.worker_pid is None
    with pytest.raises(ChildProcessError):
        os.waitpid(first_pid, os.WNOHANG)  # already reaped
    assert sandbox.run("print('after')").prints == ["after"]
    assert sandbox.worker_pid not in (None, first_pid)


def test_memory_bomb_is_killed(sandbox: Sandbox) -> None:
    result = sandbox.run("x = 1\nbig = [0] * (10 ** 9)\n")
    assert result.kind == "killed" and result.line == 2
    assert result.error == "killed: memory limit 256 MiB exceeded (line 2)"
    assert sandbox.run("print(len([0] * 10 ** 6))").prints == ["1000000"]


def test_deep_recursion_is_a_clean_runtime_error(sandbox: Sandbox) -> None:
    result = sandbox.run("def down(n):\n    return down(n + 1)\ndown(0)\n")
    assert result.kind == "runtime" and result.line == 2
    assert "RecursionError" in result.error
    deep = sandbox.run("x = []\nfor i in range(100000):\n    x = [x]\nprint(x)\n")
    assert deep.kind == "runtime" and "RecursionError" in deep.error
    assert sandbox.run("def f(n):\n    return 0 if n == 0 else f(n - 1)\nprint(f(150))\n").ok


def test_print_output_is_capped() -> None:
    with Sandbox({}, Limits(max_print_chars=50)) as box:
        result = box.run("for i in range(100):\n    print('line', i)\n")
    assert result.ok
    assert result.prints[-1] == "[... printed output truncated]"
    assert sum(len(p) for p in result.prints[:-1]) <= 50


def test_source_size_limit() -> None:
    with Sandbox({}, Limits(max_source_chars=100)) as box:
        result = box.run("x = 1\n" * 50)
    assert result.kind == "violation" and "limit is 100" in result.error


def test_module_state_does_not_leak_between_runs(sandbox: Sandbox, recorder: Recorder) -> None:
    assert sandbox.run("import control_actions\nsecret = 42\n").ok
    result = sandbox.run("print(secret)\n")
    assert result.kind == "runtime" and "NameError" in result.error


def test_run_is_not_reentrant(recorder: Recorder) -> None:
    holder: dict[str, Sandbox] = {}
    api = {"plan_actions": {"tell_planner": lambda m: holder["box"].run("x = 1")}}
    with Sandbox(api, FAST) as box:
        holder["box"] = box
        result = box.run("from plan_actions import tell_planner\ntell_planner('again')\n")
    assert result.kind == "runtime" and "not re-entrant" in result.error


def test_close_kills_the_worker_and_run_restarts_it() -> None:
    box = Sandbox({}, FAST)
    pid = box.worker_pid
    box.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    assert box.run("print(1)").prints == ["1"]
    box.close()


def test_invalid_api_is_rejected() -> None:
    with pytest.raises(ValueError, match="module name"):
        Sandbox({"os.path": {}})
    with pytest.raises(ValueError, match="function"):
        Sandbox({"plan_actions": {"__call__": print}})
    with pytest.raises(TypeError):
        Sandbox({}).run(b"x = 1")  # type: ignore[arg-type]


def test_overheads_are_small(sandbox: Sandbox, recorder: Recorder) -> None:
    runs = 50
    started = time.perf_counter()
    for _ in range(runs):
        assert sandbox.run("x = 1").ok
    per_run_s = (time.perf_counter() - started) / runs
    calls = 500
    source = f"from reasoning_actions import is_true\nfor i in range({calls}):\n    is_true('x')\n"
    result = sandbox.run(source)
    per_call_s = result.wall_s / calls
    print(f"\nper-run overhead {per_run_s * 1e3:.2f} ms, per-call {per_call_s * 1e6:.0f} us")
    assert per_run_s < 0.1  # s; target ~0.01 s, loose for a busy CI machine
    assert per_call_s < 0.005  # s; target well under 0.001 s


def test_wire_format_round_trips_plain_data_only() -> None:
    value = [1, -2.5, "ü", None, True, (1, (2,)), {"a": [1], 2: (3,), (4, "b"): {}}]
    assert decode(encode(value)) == value
    assert type(decode(encode((1,)))) is tuple

    class Sub(str):
        pass

    for bad in (Sub("x"), object(), {1, 2}, b"x", {[1][0]: object()}):
        with pytest.raises(WireError):
            check_plain(bad)
    for garbage in (b"{", b'{"x": 1}', b'{"d": [[1]]}', b'{"d": [[[1], 2]]}', b"1" * 5000):
        with pytest.raises(WireError):
            decode(garbage)


def test_primitive_error_is_exported() -> None:
    assert issubclass(PrimitiveError, Exception)


# --- sandbox_cli -----------------------------------------------------------------


def _write(tmp_path: Path, text: str | bytes, name: str = "plan.py") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_cli_run_file_ok(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, PLAN + "print('hi from plan')\n")
    assert sandbox_cli.run_file(str(path)) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:4] == ["-> get_object_names()",
                       "-> put_first_on_second('red block', 'blue bowl')",
                       "-> put_first_on_second('green block', 'blue bowl')",
                       "-> put_first_on_second('yellow block', 'blue bowl')"]
    assert out[4:6] == ["-> tell_planner('done')", "hi from plan"]
    assert out[6].startswith("codeplan completed: 5 calls")


def test_cli_run_file_stopped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "import os\n")
    assert sandbox_cli.run_file(str(path), max_seconds=1.0) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "stopped (violation)" in err[0] and "import of 'os'" in err[0]
    arity = _write(tmp_path, "from control_actions import put_first_on_second\n"
                             "put_first_on_second('red block')\n", "arity.py")
    assert sandbox_cli.run_file(str(arity)) == 3
    assert "TypeError" in capsys.readouterr().err


def test_cli_run_file_bad_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert sandbox_cli.run_file(str(tmp_path / "missing.py")) == 2
    assert "cannot be read" in capsys.readouterr().err
    latin1 = _write(tmp_path, "print('caf\xe9')\n".encode("latin-1"), "latin1.py")
    assert sandbox_cli.run_file(str(latin1)) == 2
    assert "not UTF-8" in capsys.readouterr().err
    assert sandbox_cli.run_file(str(tmp_path)) == 2  # a directory


def test_cli_add_parser_wires_sandbox_run(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser(prog="codeplan")
    sandbox_cli.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["sandbox", "run", "plan.py", "--max-seconds", "2.5"])
    assert (args.command, args.sandbox_command, args.file, args.max_seconds) == \
        ("sandbox", "run", "plan.py", 2.5)
    assert callable(args.handler)
    with pytest.raises(SystemExit):
        parser.parse_args(["sandbox", "run", "plan.py", "--max-seconds", "0"])


@pytest.mark.parametrize(("source", "code"), [
    ("print('hello')\n", 0),
    ("while True:\n    pass\n", 3),
    (None, 2),
])
def test_cli_exit_codes_in_a_subprocess(tmp_path: Path, source: str | None, code: int) -> None:
    path = tmp_path / "plan.py" if source is None else _write(tmp_path, source)
    program = ("import sys; from runtime.cli.sandbox import run_file; "
               f"sys.exit(run_file({str(path)!r}, max_seconds=1.0))")
    proc = subprocess.run([sys.executable, "-c", program], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == code, proc.stderr
    if code == 0:
        assert "hello" in proc.stdout
    else:
        assert len(proc.stderr.strip().splitlines()) == 1


def test_missing_import_gets_a_hint(sandbox: Sandbox) -> None:
    result = sandbox.run("put_first_on_second('red block', 'blue bowl')\n")
    assert result.error == ("Line 1: NameError: name 'put_first_on_second' is not defined "
                            "(import it: from control_actions import put_first_on_second)")


def test_worker_killed_between_runs_is_replaced_transparently() -> None:
    with Sandbox({}, FAST) as box:
        pid = box.worker_pid
        os.kill(pid, signal.SIGKILL)
        _wait_until_dead(pid)  # "between runs": the death is complete before the next run
        assert box.run("print('fine')").prints == ["fine"]


def _wait_until_dead(pid: int, timeout_s: float = 5.0) -> None:
    """Until `pid` is gone or a zombie (its socket closed). A fixed 50 ms sleep raced on a
    loaded machine: the run then met a worker still dying, which is the mid-run case."""
    deadline = time.monotonic() + timeout_s
    stat = Path(f"/proc/{pid}/stat")
    while time.monotonic() < deadline:
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                return
        except (OSError, IndexError):
            return
        time.sleep(0.01)
    raise AssertionError(f"worker {pid} still alive {timeout_s} s after SIGKILL")


def test_worker_dying_mid_run_is_reported() -> None:
    holder: dict[str, Sandbox] = {}

    def assassin() -> None:
        os.kill(holder["box"].worker_pid, signal.SIGKILL)
        time.sleep(0.05)  # s

    with Sandbox({"plan_actions": {"tell_planner": assassin}}, FAST) as box:
        holder["box"] = box
        result = box.run("from plan_actions import tell_planner\ntell_planner()\n")
        assert result.kind == "killed"
        assert result.error == "killed: worker died (signal SIGKILL)"
        assert box.run("print('fine')").prints == ["fine"]
