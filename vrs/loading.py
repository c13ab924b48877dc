"""Load a reasoner from a checkpoint directory or a name: one entry point for every caller.

Why one place: `codeplan run`, `codeplan ask`, `codeplan serve vrs`, `codeplan eval vqa` and
`codeplan bench vqa` all turn a user's `--model`/`--reasoner` value into a `Reasoner`. A
checkpoint directory holds `config.json` whose `"kind"` says which model family wrote it:

    "ofa-vqa"   the OFA-style encoder-decoder (`vrs.ofa`)
    "ofa-official"  an official OFA checkpoint, converted (`vrs.ofa.official`)
    "ns-vqa"    the detector reasoner: object detector + question programs (`vrs.detector`)

The kinds keep their historical names ("ns-vqa": neuro-symbolic) because they are file-format
identifiers written into shipped and user checkpoints; the short names on the command line are
`detector` and `ofa` (`ns` is still accepted for `detector`, for old command lines).

Each family registers a loader `(directory, device) -> Reasoner` in `LOADERS`; the import is
lazy so that loading one family never imports the other's dependencies. Shipped checkpoints
are found through `checkpoints.find`, so an installed codeplan finds them too.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

import checkpoints
from vrs.allocator import keep_freed_memory

if TYPE_CHECKING:
    from vrs.reasoner import Reasoner

# Shipped checkpoints by short name (`--reasoner detector`) -> directory name for
# `checkpoints.find`; "default" is what `codeplan run` uses. The OFA-style model comes as the
# seed paper's Table 1 rows: "ofa-pretrained" (the multi-task stage alone; it never saw VQA),
# "ofa-custom" (fine-tuned on the PyBullet VQA data) and "ofa-mixture" (then on PyBullet +
# Blender renders); "ofa" is the one the loop uses, the mixture model since it scored above
# `ofa-custom` on the PyBullet dev images too (docs/RESULTS.md, issue 25).
SHIPPED = {"detector": "detector-tiny", "detector-dr": "detector-dr",
           "detector-dr-wide": "detector-dr-wide", "detector-pyramid": "detector-pyramid",
           "ofa": "ofa-mixture", "ofa-mixture": "ofa-mixture", "ofa-custom": "ofa-custom",
           "ofa-pretrained": "ofa-pretrained"}
DEFAULT = "detector"
# Old short names still accepted: "ns" (neuro-symbolic) was the detector reasoner's first name.
ALIASES = {"default": DEFAULT, "learned": DEFAULT,  # "learned": the paper benchmark's word
           "ns": "detector"}
# kind -> "module:function" taking (directory: Path, device: str) and returning a Reasoner.
# The kind strings are file-format identifiers stored in checkpoints' config.json: keep them.
LOADERS = {"ofa-vqa": "vrs.ofa.reasoner:load_ofa_reasoner",
           "ofa-official": "vrs.ofa.reasoner:load_official_reasoner",
           "ns-vqa": "vrs.detector.reasoner:load_detector_reasoner"}


class CheckpointError(ValueError):
    """A checkpoint that is missing, unreadable or of an unknown kind; the message names it."""


def canonical_name(spec: str | Path) -> str:
    """A shipped short name for what the user typed ('ns' -> 'detector', 'default' ->
    DEFAULT); anything else (a path) unchanged, as a string."""
    return ALIASES.get(str(spec), str(spec))


def resolve_checkpoint(spec: str | Path) -> Path:
    """A directory from a shipped name ('detector', 'ofa', 'default', or an alias) or a path;
    raises CheckpointError naming the path (or the places searched) and what is missing."""
    name = canonical_name(spec)
    if name in SHIPPED:
        try:
            return checkpoints.find(SHIPPED[name])
        except checkpoints.CheckpointNotFound as e:
            raise CheckpointError(str(e)) from e
    path = Path(name)
    if not path.is_dir():
        known = ", ".join([*SHIPPED, *ALIASES])
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
