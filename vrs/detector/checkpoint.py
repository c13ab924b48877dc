"""Save and load the neuro-symbolic reasoner's detector: `config.json` + `model.safetensors`.

The format every model family shares (`common.model_family`). Why safetensors: loading must not
execute code (a checkpoint may come from anyone), and the format is what the rest of the project
ships. BatchNorm running statistics are tensors of the state dict, so they travel with the
weights. config.json's `"kind": "ns-vqa"` is what `vrs.loading` dispatches on, and its
"training" record says how the model was made (data, options, commit, figures; `codeplan tune
perception` adds `training.tuned`).
"""

from __future__ import annotations

from pathlib import Path

import torch

from common import model_family
from vrs.detector.config import DetectorConfig
from vrs.detector.model import DetectorNet


def save_checkpoint(directory: str | Path, model: DetectorNet,
                    config: DetectorConfig | None = None, *,
                    training: dict | None = None) -> Path:
    """Write the checkpoint directory (atomically per file, weights first); `training` goes
    into config.json under "training" (the command, data and figures that reproduce it)."""
    return model_family.save_checkpoint(directory, model, config or model.config,
                                        training=training)


def load_checkpoint(directory: str | Path, device: str | torch.device = "cpu") -> DetectorNet:
    """The detector in eval mode; raises ValueError naming a wrong kind or missing files."""
    return model_family.load_checkpoint(directory, DetectorConfig, DetectorNet,
                                        device=device).model


def init_from(model: DetectorNet, path: Path) -> DetectorNet:
    """Copy a saved detector's weights into `model`, whose head may add output channels (level
    logits or level heatmaps). Every layer but the head's last is copied as is; of the last,
    each part of the old head layout is copied into the same part of the new one, and a part
    the old model lacks starts fresh. Fine-tuning then costs minutes, not a run from scratch.
    A part both have with another size (e.g. level logits for 2 vs 4 levels) is an error:
    copying by position would put weights into channels that mean something else."""
    old = load_checkpoint(path)
    state, own = old.state_dict(), model.state_dict()
    last = f"head.{len(model.head) - 1}."
    for key, value in state.items():
        if key not in own:
            raise ValueError(f"{path} does not fit this detector (unexpected weight {key})")
        if key.startswith(last):
            _copy_head(own[key], value, old.config, model.config, path)
        elif own[key].shape == value.shape:
            own[key] = value
        else:
            raise ValueError(f"{path} does not fit this detector ({key}: {tuple(value.shape)} "
                             f"vs {tuple(own[key].shape)})")
    model.load_state_dict(own)
    return model


def _copy_head(new: torch.Tensor, old: torch.Tensor, old_config: DetectorConfig,
               config: DetectorConfig, path: Path) -> None:
    """Copy the head's last layer (weight or bias, channels first) part by part, in place."""
    before, after = old_config.head_layout(), config.head_layout()
    for part, src in before.items():
        dst = after[part]
        if src.stop - src.start == 0:
            continue
        if dst.stop - dst.start != src.stop - src.start:
            raise ValueError(f"{path}'s head has {src.stop - src.start} {part!r} channels and "
                             f"this detector {dst.stop - dst.start}: they cannot be matched")
        new[dst] = old[src]
