"""Load a reasoner from a checkpoint directory or a name: one entry point for every caller.

Why one place: `codeplan run`, `codeplan ask`, `codeplan serve vrs`, `codeplan eval vqa` and
`codeplan bench vqa` all turn a user's `--model`/`--reasoner` value into a `Reasoner`. A
checkpoint directory holds `config.json` whose `"kind"` says which model family wrote it:

    "ofa-vqa"   the OFA-style encoder-decoder (`vrs.ofa`)
    "ns-vqa"    the neuro-symbolic reasoner: object detector + question programs (`vrs.detector`)

Each family registers a loader `(directory, device) -> Reasoner` in `LOADERS`; the import is
lazy so that loading one family never imports the other's dependencies.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from vrs.allocator import keep_freed_memory

if TYPE_CHECKING:
    from vrs.reasoner import Reasoner

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINTS = ROOT / "checkpoints"
# Shipped checkpoints by short name (`--reasoner ns`); "default" is what `codeplan run` uses.
SHIPPED = {"ns": CHECKPOINTS / "detector-tiny", "ofa": CHECKPOINTS / "ofa-tiny"}
DEFAULT = "ns"
# kind -> "module:function" taking (directory: Path, device: str) and returning a Reasoner.
LOADERS = {"ofa-vqa": "vrs.ofa.reasoner:load_ofa_reasoner",
           "ns-vqa": "vrs.detector.reasoner:load_detector_reasoner"}


class CheckpointError(ValueError):
    """A checkpoint that is missing, unreadable or of an unknown kind; the message names it."""


def resolve_checkpoint(spec: str | Path) -> Path:
    """A directory from a shipped name ('ns', 'ofa', 'default') or a path; raises
    CheckpointError naming the path and what is missing."""
    name = str(spec)
    if name in ("default", "learned"):  # "learned": the paper benchmark's word for it
        name = DEFAULT
    path = SHIPPED.get(name, Path(name))
    if not path.is_dir():
        known = ", ".join(["default", "learned", *SHIPPED])
        raise CheckpointError(f"no checkpoint directory at {path} (shipped names: {known})")
    if not (path / "config.json").is_file():
        raise CheckpointError(f"{path} has no config.json; is it a checkpoint directory?")
    return path


def checkpoint_kind(path: Path) -> str:
    """The `kind` field of a checkpoint's config.json."""
    try:
        config = json.loads((path / "config.json").read_text())
    except json.JSONDecodeError as e:
        raise CheckpointError(f"{path / 'config.json'} is not valid JSON: {e}") from e
    if not isinstance(config, dict):
        raise CheckpointError(f"{path / 'config.json'} holds a JSON {type(config).__name__}, "
                              "not an object with a 'kind'")
    kind = config.get("kind")
    if kind not in LOADERS:
        raise CheckpointError(f"{path / 'config.json'} has kind {kind!r}; "
                              f"known kinds: {', '.join(LOADERS)}")
    return kind


def load_reasoner(spec: str | Path = "default", device: str = "cpu") -> Reasoner:
    """The Reasoner stored in a checkpoint directory (or a shipped name). Loading one also
    keeps freed memory in the process (`vrs.allocator`): a reasoner is called many times."""
    path = resolve_checkpoint(spec)
    keep_freed_memory()
    module, function = LOADERS[checkpoint_kind(path)].split(":")
    return getattr(importlib.import_module(module), function)(path, device)
