"""Detector training data: images and CLEVR scenes from `codeplan datagen vqa` output dirs.

The detector needs only images and scene annotations (no questions), so it reads the CLEVR
files (`<root>/<split>/scenes.json` + `images/`), decodes every image once into memory
((N, 3, 240, 320) uint8: ~230 KB each) and builds heatmap targets per batch, where the
left-right flip augmentation is decided.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
from PIL import Image

from vrs.detector.config import DetectorConfig
from vrs.detector.targets import make_targets


def find_splits(root: Path) -> list[Path]:
    """Split directories of one datagen output (those holding scenes.json)."""
    root = Path(root)
    if not root.is_dir():
        raise ValueError(f"no dataset directory at {root}")
    splits = sorted(p.parent for p in root.glob("*/scenes.json"))
    if not splits:
        raise ValueError(f"{root} holds no <split>/scenes.json; "
                         "is it `codeplan datagen vqa` output?")
    return splits


class SceneImages:
    """Every image + scene of some datagen outputs, held in memory."""

    def __init__(self, roots: list[Path], config: DetectorConfig, splits: list[str] | None = None,
                 limit: int | None = None) -> None:
        self.config = config
        images, self.scenes, self.sizes, self.splits = [], [], [], []
        for root in roots:
            for split_dir in find_splits(root):
                if splits and split_dir.name not in splits:
                    continue
                scenes = json.loads((split_dir / "scenes.json").read_text())["scenes"]
                for scene in scenes[:limit]:
                    img = Image.open(split_dir / "images" / scene["image_filename"]).convert("RGB")
                    self.sizes.append(img.size)
                    if img.size != (config.width, config.height):
                        img = img.resize((config.width, config.height), Image.BILINEAR)
                    images.append(np.asarray(img).transpose(2, 0, 1))
                    self.scenes.append(scene)
                    self.splits.append(split_dir.name)
        if not images:
            raise ValueError(f"no images found under {', '.join(map(str, roots))}")
        self.images = torch.from_numpy(np.stack(images))  # (N, 3, H, W) uint8

    def __len__(self) -> int:
        return len(self.scenes)

    def batch(self, index: list[int], rng: np.random.Generator | None,
              dim: float | None = None) -> dict:
        """Tensors for `index`; with an rng, flips half the images and jitters photometry,
        and with `dim` darkens half of them first (`_darken`)."""
        flips = (rng.random(len(index)) < 0.5) if rng is not None else np.zeros(len(index), bool)
        imgs = self.images[index].float()
        targets = [make_targets(self.scenes[i], self.sizes[i], self.config, bool(f))
                   for i, f in zip(index, flips, strict=True)]
        if flips.any():
            imgs[torch.from_numpy(flips)] = imgs[torch.from_numpy(flips)].flip(-1)
        if rng is not None and dim is not None:
            imgs = _darken(imgs, rng, dim)
        if rng is not None:
            imgs = _photometric(imgs, rng)
        return collate(imgs, targets)


def _darken(imgs: torch.Tensor, rng: np.random.Generator, low: float) -> torch.Tensor:
    """Half the images times a gain log-uniform in [low, 1]: the whole frame darker, as a
    camera's lower exposure or a weaker light makes it, so that a white block under a dim
    light stays white while the table darkens with it (the linen look read 136 white objects
    as gray under its low side light; session 32). The labels do not change."""
    pick = rng.random(len(imgs)) < 0.5
    gain = np.where(pick, np.exp(rng.uniform(np.log(low), 0.0, len(imgs))), 1.0)
    return imgs * torch.from_numpy(gain).float().view(-1, 1, 1, 1)


def _photometric(imgs: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
    """Brightness/contrast +-15% and pixel noise: robustness to other renderers, no hue change
    (hue is the label)."""
    b = len(imgs)
    gain = torch.from_numpy(rng.uniform(0.85, 1.15, (b, 1, 1, 1))).float()
    bias = torch.from_numpy(rng.uniform(-15, 15, (b, 1, 1, 1))).float()
    mean = imgs.mean(dim=(1, 2, 3), keepdim=True)
    noise = torch.from_numpy(rng.normal(0, 3, imgs.shape)).float()
    return ((imgs - mean) * gain + mean + bias + noise).clamp(0, 255)


def collate(images: torch.Tensor, targets: list) -> dict:
    """Stack per-image targets; object rows carry their batch index in `cells[:, 0]`."""
    cells = [np.concatenate([np.full((len(t.cells), 1), i), t.cells], 1)
             for i, t in enumerate(targets)]
    return {
        "image": images,  # (B, 3, H, W) float 0-255
        "heat": torch.from_numpy(np.stack([t.heat for t in targets])),  # (B, H, R, C)
        "ignore": torch.from_numpy(np.stack([t.ignore for t in targets])),  # (B, R, C)
        "cells": torch.from_numpy(np.concatenate(cells).astype(np.int64)),  # (N, 4) b,t,r,c
        "offset": torch.from_numpy(np.concatenate([t.offset for t in targets])),  # (N, 2)
        "z": torch.from_numpy(np.concatenate([t.z for t in targets])),  # (N,) metres
        "color": torch.from_numpy(np.concatenate([t.color for t in targets])),  # (N,)
        "level": torch.from_numpy(np.concatenate([t.level for t in targets])),  # (N,)
    }
