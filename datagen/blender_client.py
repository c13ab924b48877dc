"""The host's side of the Blender worker: find a Python that has `bpy`, start the worker, talk
to it, and fail at once with the exact install command when there is no such Python.

Why a subprocess even when `bpy` is installed in the project's own environment: one Blender
per process, with global state that must not mix with PyBullet's process, and `bpy` 4.5/5.0
pin numpy<2, so some setups can only have it in a venv of its own. The interpreter is
`$CODEPLAN_BLENDER_PYTHON` when set, else this Python if it can import `bpy`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ENV_VAR = "CODEPLAN_BLENDER_PYTHON"
BPY_VERSION = "4.2.23"  # the newest bpy without a numpy<2 pin (imports fine with numpy 2.4)
WORKER = Path(__file__).resolve().parent / "blender_worker.py"
VENV = "~/.venvs/codeplan-blender"
INSTALL_HELP = (f"install bpy with `pip install -e '.[blender]'` in the codeplan checkout "
                f"(bpy=={BPY_VERSION}, Python 3.11 only, a ~374 MB download), or in a venv of "
                f"its own: `python3.11 -m venv {VENV} && {VENV}/bin/pip install "
                f"bpy=={BPY_VERSION}` and `export {ENV_VAR}={VENV}/bin/python`")


class BlenderUnavailableError(ValueError):
    """No Python that can import `bpy`; the message says what to install (a ValueError, so the
    CLI prints it as one line and exits 2)."""


def blender_python() -> str:
    """The interpreter that will run the worker; BlenderUnavailableError when there is none."""
    configured = os.environ.get(ENV_VAR, "").strip()
    if configured:
        path = Path(configured).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise BlenderUnavailableError(
                f"--renderer blender: {ENV_VAR}={configured} is not an executable Python; "
                f"{INSTALL_HELP}")
        return str(path)
    if not _bpy_importable():
        raise BlenderUnavailableError(
            f"--renderer blender needs Blender's Python module `bpy`, which {sys.executable} "
            f"cannot import; {INSTALL_HELP}")
    return sys.executable


def _bpy_importable() -> bool:
    return importlib.util.find_spec("bpy") is not None


def check_blender(python: str | None = None, timeout: float = 120.0) -> str:
    """Blender's version string from `python` (default: `blender_python()`), after importing
    `bpy` there once (~1 s); BlenderUnavailableError with the install command otherwise."""
    python = python or blender_python()
    code = "import bpy, sys; sys.stdout.write(bpy.app.version_string)"
    try:
        done = subprocess.run([python, "-c", code], capture_output=True, text=True,
                              timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BlenderUnavailableError(f"--renderer blender: cannot run {python} ({e}); "
                                      f"{INSTALL_HELP}") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise BlenderUnavailableError(f"--renderer blender: {python} cannot import bpy "
                                      f"({last}); {INSTALL_HELP}")
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "unknown"


class BlenderProcess:
    """One worker process (`blender_worker.py`) and its line protocol."""

    def __init__(self, python: str | None = None):
        self.python = python or blender_python()
        self._stderr = tempfile.TemporaryFile()  # tracebacks at start-up, warnings
        self._proc = subprocess.Popen(
            [self.python, "-u", str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self._stderr, text=True, bufsize=1)
        hello = self._receive()
        self.blender_version: str = hello["blender"]

    def request(self, message: dict) -> dict:
        """Send one request and return its reply; RuntimeError when the worker failed."""
        if self._proc.poll() is not None:
            raise RuntimeError(f"the Blender worker has exited: {self._stderr_tail()}")
        try:
            self._proc.stdin.write(json.dumps(message) + "\n")
            self._proc.stdin.flush()
        except BrokenPipeError:
            raise RuntimeError(f"the Blender worker died: {self._stderr_tail()}") from None
        return self._receive()

    def close(self) -> None:
        """End the worker (EOF on its stdin) and wait for it; idempotent."""
        if self._proc.poll() is None:
            try:
                self._proc.stdin.close()
                self._proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
        self._stderr.close()

    def _receive(self) -> dict:
        line = self._proc.stdout.readline()
        if not line:
            self._proc.wait()
            raise RuntimeError(f"the Blender worker ({self.python}) exited with status "
                               f"{self._proc.returncode}: {self._stderr_tail()}")
        reply = json.loads(line)
        if not reply.get("ok"):
            raise RuntimeError(f"the Blender worker failed: {reply.get('error')}")
        return reply

    def _stderr_tail(self, lines: int = 15) -> str:
        self._stderr.seek(0)
        text = self._stderr.read().decode("utf-8", "replace").strip().splitlines()
        return "\n".join(text[-lines:]) or "(no output on stderr)"
