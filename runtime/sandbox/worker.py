"""The sandbox worker: a forked, memory-capped process that runs codeplans.

Why a process: C-level loops (``sum(range(10**12))``) and memory bombs cannot be stopped
from inside Python, so the host must be able to kill whatever runs the codeplan. Why a
persistent one: forking per plan would cost far more than a plan usually runs. The worker
owns no API: every call a codeplan makes is sent to the host as plain data and the host
runs the real callable, so the simulator never leaves the host process.
"""

from __future__ import annotations

import contextlib
import gc
import os
import resource
import signal
import socket
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType

from runtime.sandbox.guards import (
    ApiModule,
    BudgetExceeded,
    HostStop,
    PrimitiveError,
    RunState,
    SandboxViolation,
    build_globals,
)
from runtime.sandbox.policy import CODEPLAN_FILENAME, CodeplanSyntaxError, compile_codeplan
from runtime.sandbox.types import Limits
from runtime.sandbox.wire import PLAIN_TYPES_TEXT, Channel, WireError, encode

MIB = 1024 * 1024  # bytes
_DEPTH_HEADROOM = 40  # frames for the worker's own code around the codeplan
_CALL_HEADROOM = 200  # extra frames while a proxied call talks to the host
_MAX_ERROR_CHARS = 300  # per error message shown to the planner

ApiNames = Mapping[str, Sequence[str]]


def start_worker(api_names: ApiNames, limits: Limits) -> tuple[int, socket.socket]:
    """Fork a worker; returns its pid (also its process group) and the host's socket end."""
    host_sock, worker_sock = socket.socketpair()
    pid = os.fork()
    if pid == 0:  # the worker: never return into the host's stack
        status = 1
        try:
            host_sock.close()
            _isolate(worker_sock.fileno(), limits.max_memory_mb)
            serve(Channel(worker_sock), api_names, limits)
            status = 0
        except BaseException:  # nothing sane to report to; the host sees EOF
            pass
        finally:
            os._exit(status)
    worker_sock.close()
    with contextlib.suppress(OSError):  # both sides set it: no race with an early kill
        os.setpgid(pid, pid)
    return pid, host_sock


def _vm_bytes() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        pages = int(statm.read().split()[0])
    return pages * os.sysconf("SC_PAGE_SIZE")


def _isolate(keep_fd: int, memory_mb: int) -> None:
    """Detach the worker: own process group, no inherited files, capped address space.

    The memory cap is the worker's size at fork plus ``memory_mb``, because a forked
    worker inherits the host's mappings (a host with PyTorch maps gigabytes).
    """
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the host's business
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    gc.freeze()  # never collect (or finalise) the host's inherited objects here
    os.environ.clear()  # defence in depth: no API keys for a codeplan that got out
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    vm = _vm_bytes()
    os.closerange(3, keep_fd)
    os.closerange(keep_fd + 1, os.sysconf("SC_OPEN_MAX"))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    limit = vm + memory_mb * MIB
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def serve(chan: Channel, api_names: ApiNames, limits: Limits) -> None:
    """Run codeplans until the host closes the channel or a run leaves the worker unsound."""
    while True:
        try:
            message = chan.recv()
        except EOFError:
            return
        if not (type(message) is list and len(message) == 2 and message[0] == "run"
                and type(message[1]) is str):
            return
        result = run_codeplan(chan, message[1], api_names, limits)
        chan.send(["done", result])
        if result["recycle"]:
            return


class HostCalls:
    """Proxies for the API functions: each call is a round trip to the host."""

    def __init__(self, chan: Channel, state: RunState) -> None:
        self.chan = chan
        self.state = state
        self.unsound = False  # a round trip broke off half way: retire this worker

    def proxy(self, module: str, name: str) -> Callable[..., object]:
        call = self.call

        def api_function(*args: object, **kwargs: object) -> object:
            return call(module, name, args, kwargs)

        api_function.__name__ = name
        api_function.__qualname__ = f"{module}.{name}"
        return api_function

    def call(self, module: str, name: str, args: tuple, kwargs: dict) -> object:
        self.state.check()  # a codeplan over budget may not act any more
        if any(key.startswith("_") for key in kwargs):
            raise TypeError(f"{name}(): keyword arguments may not start with '_'")
        prints = "".join(self.state.chunks)  # taken only once the message is encoded
        try:
            data = encode(["call", module, name, list(args), kwargs, prints, self.state.steps])
        except WireError as exc:
            raise TypeError(
                f"{name}(): arguments must be plain data ({PLAIN_TYPES_TEXT}); {exc}") from None
        self.state.chunks.clear()
        return self._answer(name, self._round_trip(data))

    def _round_trip(self, data: bytes) -> object:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(limit + _CALL_HEADROOM)  # no RecursionError half way
        started = time.monotonic()
        try:
            self.chan.send_bytes(data)
            return self.chan.recv()
        except BaseException:
            self.unsound = True
            raise
        finally:
            self.state.call_s += time.monotonic() - started
            sys.setrecursionlimit(limit)

    def _answer(self, name: str, reply: object) -> object:
        if type(reply) is list and len(reply) == 2:
            tag, body = reply
            if tag == "ret":
                return body
            if tag == "err" and type(body) is str:
                raise PrimitiveError(body)
            if tag == "budget" and type(body) is str:
                raise BudgetExceeded(body)
            if tag == "stop" and type(body) is str:
                raise HostStop(body)
        self.unsound = True
        raise HostStop(f"{name}(): malformed reply from the host")


def run_codeplan(chan: Channel, source: str, api_names: ApiNames, limits: Limits) -> dict:
    """Compile and run one codeplan; returns the plain-data result for the host."""
    state = RunState(limits)
    calls = HostCalls(chan, state)
    try:
        code = compile_codeplan(source)
    except CodeplanSyntaxError as exc:
        kind, error, line, recycle = exc.kind, "; ".join(exc.errors), _first_line(exc.errors), False
    else:
        modules = {mod: ApiModule(mod, {fn: calls.proxy(mod, fn) for fn in fns})
                   for mod, fns in api_names.items()}
        kind, error, line, recycle = _execute(code, build_globals(state, modules), limits)
        if kind == "runtime" and error and "NameError" in error:
            error += _import_hint(error, api_names)
    return {"kind": kind, "error": error, "line": line, "steps": state.steps,
            "prints": state.take_prints(), "recycle": recycle or calls.unsound}


def _first_line(errors: Sequence[str]) -> int | None:
    head = errors[0].split(":", 1)[0] if errors else ""
    number = head.removeprefix("Line ").strip()
    return int(number) if number.isdigit() else None


def _import_hint(error: str, api_names: ApiNames) -> str:
    """Planners often call an API function they forgot to import; say where it lives."""
    for module, names in api_names.items():
        for name in names:
            if f"name '{name}' is not defined" in error:
                return f" (import it: from {module} import {name})"
    return ""


def _stack_depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth


def _execute(code: object, env: dict, limits: Limits) -> tuple[str, str | None, int | None, bool]:
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(_stack_depth() + limits.max_depth + _DEPTH_HEADROOM)
    try:
        exec(code, env)  # restricted code, restricted globals
        return "ok", None, None, False
    except BaseException as exc:  # every way out of a codeplan is reported, none escapes
        return _classify(exc, limits)
    finally:
        sys.setrecursionlimit(old_limit)
        env.clear()  # break cycles through the codeplan's functions


def _codeplan_line(tb: TracebackType | None) -> int | None:
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == CODEPLAN_FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _text(exc: BaseException) -> str:
    try:
        text = " ".join(str(exc).split())
    except Exception:  # e.g. an int too large to print
        text = "<unprintable message>"
    return text if len(text) <= _MAX_ERROR_CHARS else text[:_MAX_ERROR_CHARS] + "..."


def _classify(exc: BaseException, limits: Limits) -> tuple[str, str, int | None, bool]:
    """Map how a codeplan ended to (kind, one-line error, line, retire the worker)."""
    line = _codeplan_line(exc.__traceback__)
    where = f"Line {line}: " if line else ""
    at = f" (line {line})" if line else ""
    if isinstance(exc, BudgetExceeded):
        return "budget", f"{_text(exc)}{at}", line, False
    if isinstance(exc, SandboxViolation):
        return "violation", f"{where}{_text(exc)}", line, False
    if isinstance(exc, MemoryError):
        return "killed", f"killed: memory limit {limits.max_memory_mb} MiB exceeded{at}", line, True
    if isinstance(exc, HostStop):
        return "runtime", f"{where}stopped by the host: {_text(exc)}", line, False
    if isinstance(exc, Exception):
        return "runtime", f"{where}{type(exc).__name__}: {_text(exc)}", line, False
    return "violation", f"{where}{type(exc).__name__} is not allowed in a codeplan", line, True
