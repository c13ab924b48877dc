"""An installed codeplan (not editable) runs `codeplan run` from any directory.

Why: shipped checkpoints and prompts must come from the installed package, not from a path
relative to a checkout; this installs a copy of the working tree into a fresh venv and runs the
default closed loop from outside it. The venv sees the already-installed dependencies
(`--system-site-packages`, `--no-deps`, `--no-build-isolation`), so nothing is downloaded. The
working tree is copied first so that the build leaves no build/ or egg-info behind in the
checkout, and the main environment's (editable) install is left alone (checked at the end).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOT_SOURCE = shutil.ignore_patterns(".git", "*.egg-info", "build", "dist", "runs", "results",
                                    "data", "__pycache__", ".venv", ".pytest_cache",
                                    ".ruff_cache")
MAIN = "import runtime; print(runtime.__file__)"
WHERE = ("import checkpoints, common, prompts, runtime; "
         "print(*(m.__file__ for m in (checkpoints, common, prompts, runtime)), sep='\\n')")


def _env() -> dict[str, str]:
    """The caller's environment minus anything that would point imports or checkpoints back
    at the checkout."""
    drop = ("PYTHONPATH", "CODEPLAN_CHECKPOINTS", "VIRTUAL_ENV")
    return {k: v for k, v in os.environ.items() if k not in drop} | {
        "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def _run(args: list, cwd: Path, timeout: int) -> tuple[str, float]:
    """Run a command; its stdout and wall time, or a failure showing its output."""
    start = time.perf_counter()
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=_env(), capture_output=True,
                          text=True, timeout=timeout)
    wall = time.perf_counter() - start
    assert done.returncode == 0, f"{args} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout, wall


def _see_this_environment(venv: Path) -> None:
    """Let the new venv import what this interpreter has installed, when this interpreter is
    itself a venv: `--system-site-packages` shows only the base Python's packages, and where
    the dependencies live in a venv (the README's install), the base's setuptools 65 without
    `wheel` could not build (session 37). A .pth line only appends the directory, so this
    environment's editable-install hook (a .pth of its own there) is not run: imports of
    codeplan still resolve to the copy installed in the new venv, which comes first."""
    import sysconfig

    mine = {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}
    if sys.prefix == sys.base_prefix:
        return
    site = next((venv / "lib").glob("python3*/site-packages"))
    (site / "_parent_env.pth").write_text("\n".join(sorted(mine)) + "\n")


@pytest.mark.slow
def test_a_non_editable_install_runs_codeplan_run_from_elsewhere(tmp_path: Path) -> None:
    src, venv, work = tmp_path / "src", tmp_path / "venv", tmp_path / "work"
    shutil.copytree(ROOT, src, ignore=NOT_SOURCE)
    work.mkdir()
    main_before, _ = _run([sys.executable, "-c", MAIN], work, 120)
    # --without-pip: a venv's own pip comes with Python's bundled setuptools 65, which would
    # shadow the installed one and cannot build a wheel offline; this interpreter's pip
    # installs into the venv instead (`--python`), building with the installed setuptools.
    _run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", venv],
         tmp_path, 120)
    _see_this_environment(venv)
    _, install_s = _run([sys.executable, "-m", "pip", "--python", venv / "bin" / "python",
                         "install", "--no-deps", "--no-build-isolation", "--no-index", src],
                        tmp_path, 600)
    shutil.rmtree(src)  # nothing may still be read from the copy
    where, _ = _run([venv / "bin" / "python", "-c", WHERE], work, 120)
    site = next((venv / "lib").glob("python3*/site-packages"))
    assert all(Path(p).is_relative_to(site) for p in where.split()), where
    out, run_s = _run([venv / "bin" / "codeplan", "run"], work, 600)
    print(f"\ninstall {install_s:.1f} s, codeplan run {run_s:.1f} s")
    assert "result: SUCCESS" in out, out
    assert (work / "runs").is_dir()
    main_after, _ = _run([sys.executable, "-c", MAIN], work, 120)
    assert main_after == main_before, f"the main install moved: {main_before} -> {main_after}"
