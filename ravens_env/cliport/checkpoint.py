"""CLIPort actor checkpoints: a directory with `config.json` + `model.safetensors`.

The project's checkpoint format (the design brief): safetensors, not pickles, so loading a
checkpoint can never run code; the config alone rebuilds the network. Each file is written
to a temporary name and renamed, weights first, so a crash never leaves a config that points
at half-written weights.
"""

from __future__ import annotations

import os
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file
from torch import nn

from ravens_env.cliport.config import CliportConfig
from ravens_env.cliport.policy import CliportModel

CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"


def save_checkpoint(model: nn.Module, config: CliportConfig, directory: str | Path) -> Path:
    """Write `config.json` and `model.safetensors` into `directory` (created if needed)."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().to("cpu").contiguous() for k, v in model.state_dict().items()}
    tmp = out / (WEIGHTS_FILE + ".tmp")
    save_file(state, str(tmp), metadata={"format": "codeplan-cliport/1"})
    os.replace(tmp, out / WEIGHTS_FILE)
    tmp = out / (CONFIG_FILE + ".tmp")
    config.save(tmp)
    os.replace(tmp, out / CONFIG_FILE)
    return out


def load_checkpoint(directory: str | Path,
                    device: str | torch.device = "cpu") -> tuple[CliportModel, CliportConfig]:
    """Rebuild the model from `config.json`, load its weights strictly, put it in eval mode."""
    src = Path(directory)
    missing = [name for name in (CONFIG_FILE, WEIGHTS_FILE) if not (src / name).is_file()]
    if missing:
        raise FileNotFoundError(f"{src} is not a CLIPort checkpoint: missing "
                                f"{', '.join(missing)} (expected {CONFIG_FILE} + {WEIGHTS_FILE})")
    config = CliportConfig.load(src / CONFIG_FILE)
    model = CliportModel(config)
    model.load_state_dict(load_file(str(src / WEIGHTS_FILE), device="cpu"), strict=True)
    return model.to(device).eval(), config
