"""CLIPort actor checkpoints: a directory with `config.json` + `model.safetensors`.

The project's checkpoint format, shared by every model family (`common.model_family`):
safetensors, not pickles, so loading a checkpoint can never run code; the config alone rebuilds
the network; each file is written to a temporary name and renamed, weights first, so a crash
never leaves a config that points at half-written weights. A training run's record (command,
commit, machine, losses) is config.json's "training"; checkpoints shipped before that record
moved there keep it under `extra.training`, and load unchanged.
"""

from __future__ import annotations

from pathlib import Path

import torch

from common import model_family
from ravens_env.cliport.config import CliportConfig
from ravens_env.cliport.policy import CliportModel

CONFIG_FILE = model_family.CONFIG_FILE
WEIGHTS_FILE = model_family.WEIGHTS_FILE


def save_checkpoint(directory: str | Path, model: CliportModel,
                    config: CliportConfig | None = None, *,
                    training: dict | None = None) -> Path:
    """Write `config.json` (`config`, default the model's; `training` under "training") and
    `model.safetensors` into `directory` (created if needed); returns it."""
    return model_family.save_checkpoint(directory, model, config or model.config,
                                        training=training)


def load_checkpoint(directory: str | Path,
                    device: str | torch.device = "cpu") -> tuple[CliportModel, CliportConfig]:
    """Rebuild the model from `config.json`, load its weights strictly, put it in eval mode."""
    model, config, _ = model_family.load_checkpoint(directory, CliportConfig, CliportModel,
                                                    device=device)
    return model, config
