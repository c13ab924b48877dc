"""The detector network: a small U-Net from the RGB image to per-cell object evidence.

Two coordinate channels are appended to the image (CoordConv) because an object's height and
size depend on where it is in a perspective image. A patchify stem goes straight to the output
stride (the images are flat-shaded: a 2x2 patch is enough to see color and edges), then an
encoder down to stride 16 for context (is this blob a block in a bowl or a bowl?) and a
decoder back to the output stride with skip connections. ~0.48 GMAC per 320x240 image.
Optionally (`config.backbone`) an ImageNet-pretrained context stem adds its maps into the
encoder (backbone.py; `add_context`).
"""

from __future__ import annotations

import itertools

import torch
import torch.nn.functional as F
from torch import nn

from vrs.detector.backbone import TAPS, MobileNetV2Features
from vrs.detector.config import DetectorConfig

BACKBONE_DOWNSCALE = 2  # the backbone sees the image at half size (backbone.py says why)


def _conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


def encoder_stages(channels: tuple[int, ...], stride: int) -> nn.ModuleList:
    """The encoder: a patchify stem to `stride` (RGB + 2 coordinate channels in), then one
    stride-2 stage per further width. Shared with the OFA-style model's `detector` stem, which
    starts from these weights (its state-dict keys are the same)."""
    c = channels
    stem = nn.Sequential(nn.Conv2d(5, c[0], stride, stride, bias=False), nn.BatchNorm2d(c[0]),
                         nn.ReLU(inplace=True), _conv(c[0], c[0]))
    stages = nn.ModuleList([stem])
    for cin, width in itertools.pairwise(c):
        stages.append(nn.Sequential(_conv(cin, width, 2), _conv(width, width)))
    return stages


class DetectorNet(nn.Module):
    """(B, 3, H, W) uint8-range float image -> (B, out_channels, H/stride, W/stride) maps."""

    def __init__(self, config: DetectorConfig) -> None:
        super().__init__()
        self.config = config
        c = config.channels
        self.stages = encoder_stages(c, config.stride)
        # Decoder: back up to the output stride, merging the encoder skips (1x1 at the last).
        self.ups = nn.ModuleList()
        cin = c[-1]
        for i in range(len(c) - 1):
            skip = c[len(c) - 2 - i]
            last = i == len(c) - 2
            self.ups.append(nn.Sequential(nn.Conv2d(cin + skip, skip, 1 if last else 3,
                                                    padding=0 if last else 1, bias=False),
                                          nn.BatchNorm2d(skip), nn.ReLU(inplace=True)))
            cin = skip
        self.head = nn.Sequential(_conv(cin, config.head_channels),
                                  nn.Conv2d(config.head_channels, config.out_channels, 1))
        with torch.no_grad():  # every heatmap starts at p = 0.1 (CenterNet)
            for part in ("heat", "stack_heat"):
                self.head[-1].bias[config.head_layout()[part]] = -2.2
        self.backbone, self.inject, self.tap_stage = self._context_stem(config)

    @staticmethod
    def _context_stem(config: DetectorConfig) -> tuple[nn.Module | None, nn.ModuleList,
                                                       tuple[int, ...]]:
        """The optional pretrained backbone, one 1x1 convolution per tapped map into the
        encoder stage of the same or the nearest coarser stride, and that stage's index. The
        convolutions start at zero, so a detector given a backbone computes at first exactly
        what it computed without one, and fine-tuning starts from the trained function."""
        if config.backbone is None:
            return None, nn.ModuleList(), ()
        backbone = MobileNetV2Features()
        deepest = len(config.channels) - 1
        stages, inject = [], nn.ModuleList()
        for tap_stride, width in TAPS.values():
            stride = tap_stride * BACKBONE_DOWNSCALE
            stage = min(deepest, max(0, (stride // config.stride).bit_length() - 1))
            conv = nn.Conv2d(width, config.channels[stage], 1, bias=False)
            nn.init.zeros_(conv.weight)
            stages.append(stage)
            inject.append(conv)
        return backbone, inject, tuple(stages)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        b, _, h, w = image.shape
        x = image / 127.5 - 1.0
        ys = torch.linspace(-1, 1, h, device=x.device).view(1, 1, h, 1).expand(b, 1, h, w)
        xs = torch.linspace(-1, 1, w, device=x.device).view(1, 1, 1, w).expand(b, 1, h, w)
        x = torch.cat([x, xs, ys], 1)
        context = backbone_context(self.backbone, image)
        skips = []
        for i, stage in enumerate(self.stages):
            x = add_context(stage(x), i, context, self.inject, self.tap_stage)
            skips.append(x)
        for i, up in enumerate(self.ups):
            skip = skips[len(skips) - 2 - i]
            x = F.interpolate(x, size=skip.shape[-2:], mode="bilinear", align_corners=False)
            x = up(torch.cat([x, skip], 1))
        return self.head(x)


def backbone_context(backbone: nn.Module | None, image: torch.Tensor) -> list[torch.Tensor]:
    """The backbone's maps of the image at 1/`BACKBONE_DOWNSCALE` size ([] without one)."""
    if backbone is None:
        return []
    small = F.interpolate(image, scale_factor=1 / BACKBONE_DOWNSCALE, mode="bilinear",
                          align_corners=False, antialias=True)
    return backbone(small)


def add_context(x: torch.Tensor, stage: int, context: list[torch.Tensor], inject: nn.ModuleList,
                tap_stage: tuple[int, ...]) -> torch.Tensor:
    """`x`, the output of encoder stage `stage`, plus the backbone maps that go into it, each
    through its 1x1 convolution and resized to `x` (the training and the inference forms)."""
    for tap, conv, into in zip(context, inject, tap_stage, strict=True):
        if into == stage:
            x = x + F.interpolate(conv(tap), size=x.shape[-2:], mode="bilinear",
                                  align_corners=False)
    return x
