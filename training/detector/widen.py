"""Widen a trained detector without forgetting it (Net2WiderNet; Chen, Goodfellow and Shlens,
"Net2Net", ICLR 2016): each new channel of a layer copies an existing one, and the layers that
read the copied channel divide their weights by the number of copies, so the wider network
computes what the narrow one did. Fine-tuning then starts from the trained function instead of
from scratch, which on two CPU cores is the difference between an hour and a day.

Why per feature *group*: the U-Net concatenates encoder skips into the decoder, so one
feature map is read by two layers (the next stage and a decoder layer); every layer that reads
a group must use that group's one copy map. BatchNorm statistics are copied with their channel,
so a copy normalises exactly as its source. Copies are identical and would stay identical
under gradient descent; `noise` perturbs their incoming weights to let them diverge (the
function is then preserved only approximately, to the order of `noise`).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch

from vrs.detector.config import DetectorConfig
from vrs.detector.model import DetectorNet

BN_TENSORS = ("weight", "bias", "running_mean", "running_var")


@dataclasses.dataclass(frozen=True)
class Layer:
    """One convolution: its state-dict prefix, its BatchNorm's (None for the last head
    layer), the groups it reads (concatenated in order) and the group it writes."""

    conv: str
    bn: str | None
    reads: tuple[str, ...]
    writes: str


def layers(config: DetectorConfig) -> list[Layer]:
    """The network's convolutions in order, as `DetectorNet` builds them."""
    n = len(config.channels)
    out = [Layer("stages.0.0", "stages.0.1", ("in",), "A0"),
           Layer("stages.0.3.0", "stages.0.3.1", ("A0",), "S0")]
    for i in range(1, n):
        out += [Layer(f"stages.{i}.0.0", f"stages.{i}.0.1", (f"S{i - 1}",), f"A{i}"),
                Layer(f"stages.{i}.1.0", f"stages.{i}.1.1", (f"A{i}",), f"S{i}")]
    x = f"S{n - 1}"
    for i in range(n - 1):
        out.append(Layer(f"ups.{i}.0", f"ups.{i}.1", (x, f"S{n - 2 - i}"), f"U{i}"))
        x = f"U{i}"
    return [*out, Layer("head.0.0", "head.0.1", (x,), "H"), Layer("head.1", None, ("H",), "out")]


def group_sizes(config: DetectorConfig) -> dict[str, int]:
    """Channels of every feature group: the input (RGB + 2 coordinates), each stage's two
    convolutions, each decoder layer (a skip's width), the head's hidden layer and output."""
    c, n = config.channels, len(config.channels)
    sizes = {"in": 5, "H": config.head_channels, "out": config.out_channels}
    sizes.update({f"{k}{i}": c[i] for i in range(n) for k in "AS"})
    sizes.update({f"U{i}": c[n - 2 - i] for i in range(n - 1)})
    return sizes


def widen(old: DetectorNet, config: DetectorConfig, *, seed: int = 0,
          noise: float = 0.01) -> DetectorNet:
    """A `DetectorNet(config)` computing `old`'s function (exactly when `noise` is 0): each
    group at least as wide as `old`'s, the same depth and head layout. `noise` is relative to
    each layer's weight spread, added to the copies' incoming weights only."""
    before, after = group_sizes(old.config), group_sizes(config)
    problems = [f"{g}: {before[g]} -> {after.get(g)}" for g in before
                if g not in after or after[g] < before[g]]
    if old.config.head_layout() != config.head_layout() or len(before) != len(after):
        problems.append("the depth and the head's outputs must stay the same")
    if problems:
        raise ValueError("can only widen a detector (same depth and head): " + "; ".join(problems))
    rng = np.random.default_rng(seed)
    maps = {g: _copy_map(before[g], after[g], rng) for g in before}
    maps["in"], maps["out"] = np.arange(5), np.arange(before["out"])
    src, new = old.state_dict(), DetectorNet(config)
    state = new.state_dict()
    for layer in layers(config):
        _widen_layer(layer, src, state, maps, before, noise, rng)
    new.load_state_dict(state)
    return new


def _copy_map(old: int, new: int, rng: np.random.Generator) -> np.ndarray:
    """Which old channel each new one copies: the old ones in place, then random picks."""
    return np.concatenate([np.arange(old), rng.integers(0, old, new - old)])


def _widen_layer(layer: Layer, src: dict, state: dict, maps: dict, before: dict,
                 noise: float, rng: np.random.Generator) -> None:
    """Fill `state`'s tensors of one layer from `src` through the groups' copy maps."""
    cols, scale, offset = [], [], 0
    for g in layer.reads:  # input columns: each old one, divided among its copies
        m = maps[g]
        cols.append(m + offset)
        scale.append(1.0 / np.bincount(m, minlength=before[g])[m])
        offset += before[g]
    cols, scale = np.concatenate(cols), torch.tensor(np.concatenate(scale), dtype=torch.float32)
    rows = maps[layer.writes]
    w = src[f"{layer.conv}.weight"][rows][:, cols] * scale.view(1, -1, 1, 1)
    copies = np.arange(len(rows)) >= before[layer.writes]
    if noise > 0 and copies.any():
        jitter = torch.from_numpy(rng.standard_normal(w[copies].shape).astype(np.float32))
        w[copies] += noise * float(src[f"{layer.conv}.weight"].std()) * jitter
    state[f"{layer.conv}.weight"] = w
    if layer.bn is None:
        state[f"{layer.conv}.bias"] = src[f"{layer.conv}.bias"][rows].clone()
        return
    for t in BN_TENSORS:
        state[f"{layer.bn}.{t}"] = src[f"{layer.bn}.{t}"][rows].clone()
    state[f"{layer.bn}.num_batches_tracked"] = src[f"{layer.bn}.num_batches_tracked"].clone()
