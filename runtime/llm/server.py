"""The local OpenAI-compatible LLM server (llama.cpp's own, from the `xllamacpp` wheel).

Why a child process: in this xllamacpp `Server(params)` runs llama.cpp's server on threads of the
process that creates it, holds the GIL for the whole model load (every other Python thread stops
for seconds), has no stop method (only its destructor stops it, once the last reference is gone),
and reports any load failure as one generic RuntimeError with the cause only in llama.cpp's log.
So it runs in a child Python process in its own session: the child prints the address it listens
on once the model is loaded, then blocks reading its stdin; closing that pipe (or the parent
dying) makes it exit at once, and a process-group SIGKILL backs that up.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from runtime.llm.manifest import DEFAULT_MODEL

INSTALL_COMMAND = 'pip install -e ".[llm]"'
_STOP_GRACE_S = 10.0

# Runs in the child: configure, load (Server() returns once the model is loaded), report the
# address on stdout, then live until stdin closes. `model_alias` is a set in xllamacpp: a plain
# string would become a set of its characters.
_CHILD = r"""
import json, os, sys
cfg = json.loads(sys.argv[1])
import xllamacpp as xlc
p = xlc.CommonParams()
p.model.path = cfg["model"]
p.model_alias = {cfg["alias"]}
p.n_ctx = cfg["n_ctx"]
p.n_parallel = cfg["n_parallel"]
p.cpuparams.n_threads = cfg["threads"]
p.cpuparams_batch.n_threads = cfg["threads"]
p.hostnames = [cfg["host"]]
p.port = cfg["port"]
p.cache_prompt = True
try:
    server = xlc.Server(p)
except Exception as e:
    print(json.dumps({"error": str(e)}), flush=True)
    os._exit(1)
print(json.dumps({"address": server.listening_address}), flush=True)
sys.stdin.buffer.read()
os._exit(0)
"""


class LLMRuntimeMissingError(ModuleNotFoundError):
    """The optional runtime (`xllamacpp`) is not installed."""


class LLMServerError(RuntimeError):
    """The local server did not come up (or died); the message names its log."""


def require_runtime() -> None:
    """Fail early, with the install command, when the `llm` extra is not installed."""
    if importlib.util.find_spec("xllamacpp") is None:
        raise LLMRuntimeMissingError(
            f"the local LLM runtime (xllamacpp) is not installed: {INSTALL_COMMAND}",
            name="xllamacpp")


@dataclass
class LocalLLMServer:
    """llama.cpp's server on 127.0.0.1 for one GGUF, as a context manager.

    `n_ctx` is per request slot; the server gets `n_ctx * n_parallel` in all. `port` 0 lets the
    server pick a free port. One thread by default: two collapse on a 2-core machine.
    """

    model_path: Path
    alias: str = DEFAULT_MODEL.alias
    threads: int = 1
    n_ctx: int = 4096
    n_parallel: int = 1
    host: str = "127.0.0.1"
    port: int = 0
    ready_timeout_s: float = 300.0
    log_path: Path | None = None  # the server's own log; None: a temporary file
    base_url: str = field(init=False, default="")
    model_id: str = field(init=False, default="")
    _proc: subprocess.Popen | None = field(init=False, default=None, repr=False)
    _log_is_temp: bool = field(init=False, default=False, repr=False)

    def __enter__(self) -> LocalLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def pid(self) -> int | None:
        """The child process's id while it is held."""
        return self._proc.pid if self._proc else None

    @property
    def running(self) -> bool:
        """Whether the child is still alive (it can die on its own, e.g. out of memory)."""
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> LocalLLMServer:
        """Start the child, wait until it serves `/v1/models`; stop it again on any failure."""
        require_runtime()
        if self._proc is not None:
            raise LLMServerError("the local LLM server is already running")
        self._open_log()
        deadline = time.monotonic() + self.ready_timeout_s
        try:
            self._spawn()
            address = self._await_address(deadline)
            self.base_url = f"{address.rstrip('/')}/v1"
            self.model_id = self._await_models(deadline)
        except BaseException:
            self.stop(keep_log=True)
            raise
        return self

    def stop(self, keep_log: bool = False) -> None:
        """Close the child's stdin (it exits), then SIGKILL its process group if it lingers.

        A temporary log is deleted unless `keep_log`: an error message may still name it.
        """
        proc, self._proc = self._proc, None
        if proc is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
            try:
                proc.wait(timeout=_STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            with contextlib.suppress(OSError):
                proc.stdout.close()
        if self._log_is_temp and not keep_log and self.log_path is not None:
            self.log_path.unlink(missing_ok=True)
            self.log_path = None
        self._log_is_temp = False  # a kept log now belongs to whoever reads the error

    def _open_log(self) -> None:
        if self.log_path is None:
            fd, name = tempfile.mkstemp(prefix="codeplan-llm-", suffix=".log")
            os.close(fd)
            self.log_path, self._log_is_temp = Path(name), True

    def _spawn(self) -> None:
        cfg = {"model": str(self.model_path), "alias": self.alias, "threads": self.threads,
               "n_ctx": self.n_ctx * self.n_parallel, "n_parallel": self.n_parallel,
               "host": self.host, "port": self.port}
        with self.log_path.open("ab") as log:
            self._proc = subprocess.Popen(
                [sys.executable, "-c", _CHILD, json.dumps(cfg)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                start_new_session=True)

    def _await_address(self, deadline: float) -> str:
        """The address the child reports once the model is loaded, or a clear failure."""
        lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=lambda: lines.put(self._proc.stdout.readline()),
                         daemon=True).start()
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise self._failure(
                f"no model loaded within {self.ready_timeout_s:.0f} s") from None
        try:
            report = json.loads(line) if line.strip() else {}
        except ValueError:
            report = {}
        if "address" not in report:
            why = report.get("error") or f"exited with status {self._proc.wait()}"
            raise self._failure(why)
        return str(report["address"])

    def _await_models(self, deadline: float) -> str:
        """Poll `GET /v1/models` until it answers; the first model's id is what clients send."""
        while True:
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=5) as resp:
                    return _first_model_id(json.load(resp)) or self.alias
            except (urllib.error.URLError, OSError, ValueError) as e:
                if time.monotonic() > deadline or self._proc.poll() is not None:
                    raise self._failure(f"{self.base_url}/models did not answer: {e}") from None
                time.sleep(0.2)

    def _failure(self, why: str) -> LLMServerError:
        said = _log_error(self.log_path) if self.log_path else ""
        said = f" (llama.cpp: {said})" if said else ""
        return LLMServerError(f"the local LLM server for {self.model_path} did not start: "
                              f"{why}{said}; its log: {self.log_path}")


def _first_model_id(body: object) -> str:
    """`data[0].id` of an OpenAI model list, or '' when the body has another shape."""
    data = body.get("data") if isinstance(body, dict) else None
    if isinstance(data, list) and data and isinstance(data[0], dict):
        return str(data[0].get("id") or "")
    return ""


def _log_error(log: Path) -> str:
    """The most telling error line of llama.cpp's log: the model-loading one, else the last."""
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    errors = [ln.split(" E ", 1)[1].strip() for ln in lines if " E " in ln]
    loading = [e for e in errors if "error loading model" in e]
    return ((loading or errors or [""])[-1])[:300]
