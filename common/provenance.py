"""Where a published number came from: date, commit, machine, library versions.

Every results directory records this beside its tables, so a figure in docs/RESULTS.md can be
traced to the code and the machine that produced it.
"""

from __future__ import annotations

import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def git_commit(root: Path = ROOT) -> str | None:
    """HEAD's short hash, with "+dirty" when tracked files changed; None outside a checkout,
    including an installed copy (site-packages) that happens to sit inside someone else's git
    work tree: the checkout must be the one whose top level is `root`."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}  # never take the index lock to read it
    try:
        top, head = subprocess.run(
            ["git", "rev-parse", "--show-toplevel", "--short", "HEAD"], cwd=root, text=True,
            capture_output=True, timeout=10, check=True, env=env).stdout.split()
        if Path(top).resolve() != Path(root).resolve():
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=root, text=True, capture_output=True, timeout=10,
                               env=env).stdout
    except (OSError, subprocess.SubprocessError, ValueError):  # ValueError: unexpected output
        return None
    return head + ("+dirty" if dirty.strip() else "")


def provenance() -> dict:
    """{'date', 'commit', 'machine', 'python', 'torch'} for a results file."""
    try:
        import torch

        torch_version = torch.__version__
    except ImportError:  # pragma: no cover - torch is a dependency
        torch_version = None
    return {"date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": git_commit(),
            "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores, "
                       f"{platform.system()} {platform.release()}",
            "python": platform.python_version(), "torch": torch_version}
