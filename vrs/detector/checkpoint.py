"""Save and load the neuro-symbolic reasoner: `config.json` + `model.safetensors`.

Why safetensors: loading must not execute code (a checkpoint may come from anyone), and the
format is what the rest of the project ships. BatchNorm running statistics are tensors of the
state dict, so they travel with the weights.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from vrs.detector.config import KIND, DetectorConfig
from vrs.detector.model import DetectorNet

WEIGHTS = "model.safetensors"


def save_detector(model: DetectorNet, out: Path, extra: dict | None = None) -> Path:
    """Write the checkpoint directory (atomically per file); `extra` goes into config.json
    under "training" (the command, data and figures that reproduce it)."""
    out.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    tmp = out / (WEIGHTS + ".tmp")
    save_file(state, str(tmp))
    tmp.replace(out / WEIGHTS)
    config = model.config.to_json()
    if extra:
        config["training"] = extra
    (out / "config.json.tmp").write_text(json.dumps(config, indent=2) + "\n")
    (out / "config.json.tmp").replace(out / "config.json")
    return out


def load_detector(path: Path, device: str = "cpu") -> DetectorNet:
    """The detector in eval mode; raises ValueError naming a wrong kind or missing weights."""
    if not (path / "config.json").is_file():
        raise ValueError(f"no detector checkpoint at {path} (config.json missing)")
    config_data = json.loads((path / "config.json").read_text())
    if config_data.get("kind") != KIND:
        raise ValueError(f"{path} holds a {config_data.get('kind')!r} checkpoint, not {KIND!r}")
    if not (path / WEIGHTS).is_file():
        raise ValueError(f"{path} has no {WEIGHTS}")
    config_data.pop("training", None)
    model = DetectorNet(DetectorConfig.from_json(config_data))
    model.load_state_dict(load_file(str(path / WEIGHTS), device="cpu"))
    return model.to(torch.device(device)).eval()


def init_from(model: DetectorNet, path: Path) -> DetectorNet:
    """Copy a saved detector's weights into `model`, whose head may add output channels (level
    logits or level heatmaps). Every layer but the head's last is copied as is; of the last,
    each part of the old head layout is copied into the same part of the new one, and a part
    the old model lacks starts fresh. Fine-tuning then costs minutes, not a run from scratch.
    A part both have with another size (e.g. level logits for 2 vs 4 levels) is an error:
    copying by position would put weights into channels that mean something else."""
    old = load_detector(Path(path))
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
