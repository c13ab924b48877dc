"""Run LLM-written codeplans safely: RestrictedPython in a killable, memory-capped worker.

A codeplan is untrusted Python that imports ``control_actions``, ``plan_actions`` and
``reasoning_actions``. Defence is layered:

1. compile time (``runtime.sandbox.policy``): RestrictedPython's policy plus step
   guards in every loop/function, abort-safe ``try`` handlers, no ``with``;
2. run time (``runtime.sandbox.guards``): guarded attribute/item/write access, a short
   list of builtins, an import hook that knows only the API modules;
3. process (``runtime.sandbox.worker``): the code runs in a forked worker with its own
   process group and an address-space cap, which the host kills when it overstays;
4. wire (``runtime.sandbox.wire``): only plain data crosses between worker and host;
   the API's real callables run in the host, so the simulator never leaves it.

Usage::

    with Sandbox({"control_actions": {"put_first_on_second": put}, ...}) as sandbox:
        result = sandbox.run(source)
        if not result.ok:
            feedback = result.error  # "Line 3: NameError: name 'x' is not defined"
"""

from __future__ import annotations

import keyword
import time
from collections.abc import Callable

from runtime.sandbox.guards import PrimitiveError
from runtime.sandbox.host import IO_TIMEOUT_S, Api, HostRun, ProtocolError, Worker, describe_status
from runtime.sandbox.policy import CodeplanSyntaxError, compile_codeplan
from runtime.sandbox.types import Kind, Limits, SandboxResult
from runtime.sandbox.wire import WireError

__all__ = [
    "DEFAULT_LIMITS",
    "CodeplanSyntaxError",
    "Kind",
    "Limits",
    "PrimitiveError",
    "Sandbox",
    "SandboxResult",
    "compile_codeplan",
]

DEFAULT_LIMITS = Limits()


def _valid_name(name: object) -> bool:
    return (isinstance(name, str) and name.isidentifier() and not name.startswith("_")
            and not keyword.iskeyword(name))


def _checked_api(api: Api) -> dict[str, dict[str, Callable[..., object]]]:
    """Copy the API mapping, refusing names a codeplan could not import or that hide dunders."""
    checked: dict[str, dict[str, Callable[..., object]]] = {}
    for module, functions in api.items():
        if not _valid_name(module):
            raise ValueError(f"invalid API module name {module!r}")
        checked[module] = {}
        for name, func in functions.items():
            if not _valid_name(name) or not callable(func):
                raise ValueError(f"invalid API function {module}.{name!s}")
            checked[module][name] = func
    return checked


class Sandbox:
    """A persistent worker that runs codeplans against an API of host callables.

    ``api`` maps module name -> {function name -> callable}; a codeplan may import only
    those modules and names. Each call is proxied to the host, which runs the callable
    and sends back its (plain-data) result; an ``Exception`` it raises reaches the
    codeplan as a catchable ``PrimitiveError``, while a ``BaseException`` (e.g. a
    controller's own stop signal) ends the codeplan and is re-raised from ``run()``.

    The worker is forked in the constructor, ideally before the host starts threads.
    """

    def __init__(self, api: Api, limits: Limits = DEFAULT_LIMITS, *,
                 on_print: Callable[[str], None] | None = None) -> None:
        self._api = _checked_api(api)
        self._names = {module: sorted(fns) for module, fns in self._api.items()}
        self.limits = limits
        self._on_print = on_print  # gets printed text as it arrives, before each API call
        self._busy = False
        self._worker: Worker | None = Worker(self._names, limits)

    @property
    def worker_pid(self) -> int | None:
        """The current worker's pid (tests and diagnostics)."""
        return None if self._worker is None else self._worker.pid

    def run(self, source: str) -> SandboxResult:
        """Run one codeplan to completion or to its first stop; never raises for the plan's sake."""
        started = time.perf_counter()
        if not isinstance(source, str):
            raise TypeError("codeplan source must be str")
        if self._busy:
            raise RuntimeError("Sandbox.run() is not re-entrant (called from an API function?)")
        if len(source) > self.limits.max_source_chars:
            error = (f"codeplan is {len(source)} characters long; "
                     f"the limit is {self.limits.max_source_chars}")
            return SandboxResult("violation", error, wall_s=time.perf_counter() - started)
        self._busy = True
        try:
            return self._run(source, started)
        finally:
            self._busy = False

    def _run(self, source: str, started: float) -> SandboxResult:
        session = HostRun(self._api, self.limits, self._on_print)
        kind, error, line = "killed", "", None
        try:
            body = session.drive(self._start_run(source))
            kind, error, line = body["kind"], body["error"], body["line"]
            if body["recycle"]:
                self._retire()
        except TimeoutError:
            self._retire()
            error = f"killed: wall-clock limit {self.limits.max_seconds} s exceeded"
        except (EOFError, OSError):
            error = f"killed: worker died ({describe_status(self._retire())})"
        except (WireError, ProtocolError) as exc:
            self._retire()
            kind, error = "violation", f"sandbox protocol violation: {exc}"
        except BaseException:
            self._retire()  # e.g. KeyboardInterrupt in the host: the worker state is unknown
            raise
        if session.pending is not None:
            raise session.pending
        return SandboxResult(kind, error, line, session.prints(), session.steps,
                             session.calls, time.perf_counter() - started)

    def _start_run(self, source: str) -> Worker:
        """Hand the source to a live worker, replacing one that died between runs."""
        for attempt in range(2):
            worker = self._worker or self._spawn()
            try:
                worker.chan.send(["run", source], timeout=IO_TIMEOUT_S)
                return worker
            except OSError:
                self._retire()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def _spawn(self) -> Worker:
        self._worker = Worker(self._names, self.limits)
        return self._worker

    def _retire(self) -> int | None:
        worker, self._worker = self._worker, None
        return None if worker is None else worker.stop()

    def close(self) -> None:
        """Kill the worker; the sandbox restarts one if ``run()`` is called again."""
        self._retire()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
