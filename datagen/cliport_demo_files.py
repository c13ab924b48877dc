"""The demo file format: one compressed `.npz` per episode, readable without the simulator.

Kept apart from the recorder (`datagen.cliport_demos`, which needs PyBullet) so that training
can read demonstrations on a machine that has torch but no simulator (a lent GPU machine).
Metadata is JSON in a 0-d unicode array, so files load with `allow_pickle=False`; writes are atomic.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

DEMO_FORMAT = "codeplan-demo/1"


def episode_path(out: str | Path, task: str, seed: int) -> Path:
    """Where the episode of `task` with `seed` lives in a demo directory."""
    return Path(out) / f"{task}-{seed:06d}.npz"


def write_episode(path: str | Path, arrays: dict[str, np.ndarray]) -> None:
    """Atomic write: a temp file in the same directory, then a rename over `path`."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as f:  # a file object: numpy must not append its own suffix
            np.savez_compressed(f, **arrays)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def load_episode(path: str | Path) -> tuple[dict[str, np.ndarray], dict]:
    """(arrays, metadata) of one demo file; no pickles are ever loaded."""
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files if k != "meta"}
        meta = json.loads(str(data["meta"]))
    if meta.get("format") != DEMO_FORMAT:
        raise ValueError(f"{path}: demo format {meta.get('format')!r} is not {DEMO_FORMAT!r}")
    return arrays, meta


def demo_instructions(demo_dir: str | Path) -> list[str]:
    """Every step instruction of every episode in `demo_dir`, in file order (with repeats)."""
    files = sorted(Path(demo_dir).glob("*.npz"))
    if not files:
        raise FileNotFoundError(f"no demo files (*.npz) in {demo_dir}")
    return [step["instruction"] for path in files for step in load_episode(path)[1]["steps"]]
