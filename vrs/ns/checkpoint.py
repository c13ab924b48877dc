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

from vrs.ns.config import KIND, NsConfig
from vrs.ns.model import DetectorNet

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
    config_data = json.loads((path / "config.json").read_text())
    if config_data.get("kind") != KIND:
        raise ValueError(f"{path} holds a {config_data.get('kind')!r} checkpoint, not {KIND!r}")
    if not (path / WEIGHTS).is_file():
        raise ValueError(f"{path} has no {WEIGHTS}")
    config_data.pop("training", None)
    model = DetectorNet(NsConfig.from_json(config_data))
    model.load_state_dict(load_file(str(path / WEIGHTS), device="cpu"))
    return model.to(torch.device(device)).eval()


def init_from(model: DetectorNet, path: Path) -> DetectorNet:
    """Copy a saved detector's weights into `model`, whose head may add output channels (a
    level head): the layout keeps the old channels as a prefix, so they carry over and only
    the new ones start fresh. Fine-tuning then costs minutes, not a run from scratch."""
    old = load_detector(Path(path))
    if old.config.out_channels > model.config.out_channels:
        raise ValueError(f"{path}'s head has more outputs than the new model's")
    state = old.state_dict()
    own = model.state_dict()
    for key, value in state.items():
        if key not in own:
            raise ValueError(f"{path} does not fit this detector (unexpected weight {key})")
        if own[key].shape == value.shape:
            own[key] = value
        elif own[key].shape[1:] == value.shape[1:]:  # the head's last layer: a channel prefix
            own[key][:len(value)] = value
        else:
            raise ValueError(f"{path} does not fit this detector ({key}: {tuple(value.shape)} "
                             f"vs {tuple(own[key].shape)})")
    model.load_state_dict(own)
    return model
