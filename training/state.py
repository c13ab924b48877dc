"""Resumable training state of every model family (written by `training.loop`):
`OUT/checkpoints/step_XXXXXXX/` directories.

Each holds what `accelerate` saves (model weights as safetensors, optimizer, RNG states per
process), the model's `config.json` and `trainer_state.json` with the step counter. A directory
is written under a temporary name and renamed when complete, so the latest *complete*
checkpoint is always the one with the highest step; only the newest `keep` are kept.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Protocol

from accelerate import Accelerator


class SavableConfig(Protocol):
    """A model config that writes itself as JSON (every `common.model_family.FamilyConfig`)."""

    def save(self, path: Path) -> None: ...

STATE_FILE = "trainer_state.json"
_STEP_DIR = re.compile(r"^step_(\d{7,})$")


def checkpoints_dir(out: str | Path) -> Path:
    """Where a training run keeps its resumable checkpoints."""
    return Path(out) / "checkpoints"


def latest_checkpoint(out: str | Path) -> Path | None:
    """The complete checkpoint with the highest step, or None."""
    root = checkpoints_dir(out)
    if not root.is_dir():
        return None
    found = [(int(m.group(1)), p) for p in root.iterdir()
             if (m := _STEP_DIR.match(p.name)) and (p / STATE_FILE).is_file()]
    return max(found)[1] if found else None


def checkpoint_to_resume(out: str | Path, resume: bool) -> Path | None:
    """The checkpoint a run continues from: the latest under `out` when `resume`; a fresh run
    refuses an `out` that already has checkpoints (it would mix two runs' states)."""
    ckpt = latest_checkpoint(out)
    if ckpt is not None and not resume:
        raise ValueError(f"{out} already has training checkpoints (latest: {ckpt.name}); "
                         "pass --resume to continue that run or choose another --out")
    return ckpt


def save_training_state(accelerator: Accelerator, out: str | Path, step: int,
                        config: SavableConfig, extra: dict, keep: int = 2) -> Path:
    """Save everything needed to resume at `step` (all processes must call it)."""
    root = checkpoints_dir(out)
    final = root / f"step_{step:07d}"
    tmp = root / f".tmp_step_{step:07d}"
    if accelerator.is_main_process:
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
    accelerator.wait_for_everyone()
    accelerator.save_state(str(tmp))
    accelerator.wait_for_everyone()
    if accelerator.is_main_process:
        config.save(tmp / "config.json")
        (tmp / STATE_FILE).write_text(json.dumps({"step": step, **extra}, indent=2) + "\n")
        shutil.rmtree(final, ignore_errors=True)
        os.replace(tmp, final)
        _prune(root, keep)
    accelerator.wait_for_everyone()
    return final


def _prune(root: Path, keep: int) -> None:
    steps = sorted((int(m.group(1)), p) for p in root.iterdir() if (m := _STEP_DIR.match(p.name)))
    for _, path in steps[:-keep] if keep > 0 else []:
        shutil.rmtree(path, ignore_errors=True)


def load_training_state(accelerator: Accelerator, checkpoint: Path) -> dict:
    """Restore model, optimizer and RNG states; returns trainer_state.json (with 'step')."""
    accelerator.load_state(str(checkpoint))
    return json.loads((checkpoint / STATE_FILE).read_text())
