"""The shipped checkpoints, found by name wherever codeplan runs from.

Why a package: the checkpoint directories beside this file are package data (pyproject.toml),
so they travel with `pip install .` as well as living in a checkout; code asks `find(name)`
instead of building a path from its own location, which breaks once installed.

The search path, first match wins:

1. every directory in `$CODEPLAN_CHECKPOINTS` (`os.pathsep`-separated), so a user can point at
   checkpoints kept elsewhere (or shadow a shipped one) without editing code;
2. this package's own directory (the checkout's `checkpoints/`, or the installed copy).

A checkpoint is a directory holding `config.json`. This module imports nothing of the project
(tests/test_layering.py): any layer may use it.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "CODEPLAN_CHECKPOINTS"
PACKAGE_DIR = Path(__file__).resolve().parent


class CheckpointNotFound(FileNotFoundError):
    """No directory of the search path holds the named checkpoint; the message says where it
    looked and how to get one."""


def search_path() -> list[Path]:
    """The directories `find` looks in, in order (read from the environment on every call, so
    a test or a user can change it at run time)."""
    extra = [Path(p).expanduser() for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p]
    return [*extra, PACKAGE_DIR]


def find(name: str) -> Path:
    """The directory of the shipped checkpoint `name` (e.g. 'cliport-cpu', 'detector-tiny');
    CheckpointNotFound naming every place looked in when none holds it."""
    places = [d / name for d in search_path()]
    for place in places:
        if (place / "config.json").is_file():
            return place
    looked = "; ".join(str(p) for p in places)
    raise CheckpointNotFound(
        f"no checkpoint {name!r} (a directory with config.json): looked in {looked}. Shipped "
        f"checkpoints come with codeplan (reinstall it, or in a checkout `git checkout -- "
        f"checkpoints/{name}`); or set {ENV_VAR} to a directory holding {name}/ "
        "(checkpoints/README.md has the command that trains each one)")


def shipped() -> list[str]:
    """The names of the checkpoints found on the search path, sorted."""
    return sorted({p.name for d in search_path() if d.is_dir() for p in d.iterdir()
                   if (p / "config.json").is_file()})
