"""Host side of the sandbox: the worker handle and the conversation of one run.

Everything the worker sends is treated as hostile: each message is checked for shape,
types and sizes, API calls are served only for names in the API mapping, and time spent
waiting on the worker is bounded. Time spent in the host's own callables is not, since
the simulator and the VQA model are trusted and may legitimately be slow.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import weakref
from collections.abc import Callable, Mapping

from runtime.sandbox.types import KINDS, Limits
from runtime.sandbox.wire import Channel, WireError, check_plain, encode
from runtime.sandbox.worker import start_worker

Api = Mapping[str, Mapping[str, Callable[..., object]]]

IO_TIMEOUT_S = 5.0  # a live worker takes a message at once; longer means it is wedged
_MAX_ERROR_CHARS = 2000  # longest error line accepted from the worker
_MAX_HOST_ERROR_CHARS = 500  # longest host exception text passed to the codeplan
_TRUNCATION_NOTE_CHARS = 64  # room for the worker's "[... truncated]" note, characters


class ProtocolError(ValueError):
    """The worker sent a message that is not part of the protocol."""


def _reap(pid: int, chan: Channel, owner: int) -> int | None:
    """Kill the worker's process group and collect its exit status.

    Only the process that forked the worker does so: a copy of the host made by a later
    fork (a data-loader process, say) must not kill the host's worker when it exits.
    """
    chan.close()
    if os.getpid() != owner:
        return None
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return None


class Worker:
    """A live worker process; killed and reaped by ``stop()`` or when garbage-collected."""

    def __init__(self, api_names: Mapping[str, list[str]], limits: Limits) -> None:
        self.pid, sock = start_worker(api_names, limits)
        self.chan = Channel(sock)
        self._finalizer = weakref.finalize(self, _reap, self.pid, self.chan, os.getpid())

    def stop(self) -> int | None:
        """Kill and reap; returns the wait status (None if already reaped)."""
        return self._finalizer()


def describe_status(status: int | None) -> str:
    if status is None:
        return "already reaped"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        with contextlib.suppress(ValueError):
            return f"signal {signal.Signals(sig).name}"
        return f"signal {sig}"
    return f"exit status {os.WEXITSTATUS(status)}"


def _one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def parse_done(message: list) -> dict:
    """Validate the worker's final report of a run."""
    body = message[1] if len(message) == 2 else None
    if type(body) is not dict or set(body) != {"kind", "error", "line", "steps", "prints",
                                               "recycle"}:
        raise ProtocolError("malformed 'done' message")
    ok = (body["kind"] in KINDS and type(body["error"]) in (str, type(None))
          and type(body["line"]) in (int, type(None)) and type(body["steps"]) is int
          and type(body["prints"]) is str and type(body["recycle"]) is bool)
    if not ok or (body["kind"] == "ok") != (body["error"] is None):
        raise ProtocolError("malformed 'done' message")
    if body["error"] is not None:
        body["error"] = _one_line(body["error"], _MAX_ERROR_CHARS)
    return body


class HostRun:
    """One run's conversation with the worker: serve API calls until it reports 'done'."""

    def __init__(self, api: Api, limits: Limits,
                 on_print: Callable[[str], None] | None = None) -> None:
        self.api = api
        self.limits = limits
        self.on_print = on_print
        self.chunks: list[str] = []
        self.printed = 0  # characters kept, capped at limits.max_print_chars
        self.calls = 0
        self.steps = 0
        self.waited = 0.0  # s spent waiting for the worker (the killable part)
        self.pending: BaseException | None = None  # host-side stop, re-raised after the run

    def drive(self, worker: Worker) -> dict:
        """Serve the worker's calls until 'done'; raises TimeoutError/EOFError/ProtocolError."""
        while True:
            message = self._next(worker)
            if message[0] == "done":
                body = parse_done(message)
                self._add_prints(body["prints"])
                self.steps = max(self.steps, body["steps"])
                return body
            worker.chan.send_bytes(self._reply(message), timeout=IO_TIMEOUT_S)

    def _reply(self, message: list) -> bytes:
        reply = self._serve(*self._parse_call(message))
        try:
            return encode(reply)
        except WireError as exc:  # e.g. a result over the frame limit
            return encode(["err", f"{message[2]}: returned data the sandbox cannot pass on: {exc}"])

    def _next(self, worker: Worker) -> list:
        budget = self.limits.max_seconds + self.limits.kill_grace_s - self.waited
        started = time.monotonic()
        try:
            message = worker.chan.recv(timeout=budget)
        finally:
            self.waited += time.monotonic() - started
        if type(message) is not list or not message or message[0] not in ("call", "done"):
            raise ProtocolError("unexpected message from the worker")
        return message

    def _parse_call(self, message: list) -> tuple[str, str, list, dict]:
        if len(message) != 7:
            raise ProtocolError("malformed 'call' message")
        _, module, name, args, kwargs, prints, steps = message
        functions = self.api.get(module) if type(module) is str else None
        if (functions is None or type(name) is not str or name not in functions
                or type(args) is not list or type(kwargs) is not dict
                or any(type(k) is not str or k.startswith("_") for k in kwargs)
                or type(prints) is not str or type(steps) is not int):
            raise ProtocolError("malformed 'call' message")
        self._add_prints(prints)
        self.steps = max(self.steps, steps)
        return module, name, args, kwargs

    def _serve(self, module: str, name: str, args: list, kwargs: dict) -> list:
        if self.pending is not None:
            return ["stop", f"{type(self.pending).__name__} in the host"]
        self.calls += 1
        if self.calls > self.limits.max_calls:
            return ["budget", f"budget: call limit {self.limits.max_calls} exceeded"]
        try:
            value = self.api[module][name](*args, **kwargs)
        except Exception as exc:  # becomes PrimitiveError in the codeplan
            text = _one_line(f"{type(exc).__name__}: {exc}", _MAX_HOST_ERROR_CHARS)
            return ["err", f"{name}: {text}"]
        except BaseException as exc:  # KeyboardInterrupt, a controller's stop: after the run
            self.pending = exc
            return ["stop", f"{type(exc).__name__} in the host"]
        try:
            check_plain(value)
        except WireError as exc:
            return ["err", f"{name}: returned data the sandbox cannot pass on: {exc}"]
        return ["ret", value]

    def _add_prints(self, text: str) -> None:
        room = self.limits.max_print_chars + _TRUNCATION_NOTE_CHARS - self.printed
        text = text[:max(room, 0)]
        if not text:
            return
        self.printed += len(text)
        self.chunks.append(text)
        if self.on_print is not None:
            self.on_print(text)

    def prints(self) -> list[str]:
        return "".join(self.chunks).splitlines()
