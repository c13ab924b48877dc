"""The detector network: a small U-Net from the RGB image to per-cell object evidence.

Two coordinate channels are appended to the image (CoordConv) because an object's height and
size depend on where it is in a perspective image. A patchify stem goes straight to the output
stride (the images are flat-shaded: a 2x2 patch is enough to see color and edges), then an
encoder down to stride 16 for context (is this blob a block in a bowl or a bowl?) and a
decoder back to the output stride with skip connections. ~0.48 GMAC per 320x240 image.
With `global_context`, every encoder stage's channel means over the whole image steer the
bottleneck and the head's input (`GlobalContext`): a colour name depends on the light the
whole scene is in, which no cell's window sees.
"""

from __future__ import annotations

import itertools

import torch
import torch.nn.functional as F
from torch import nn

from vrs.detector.config import DetectorConfig


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


class GlobalContext(nn.Module):
    """Image-wide context for the per-cell decisions. Why: whether a light patch is a white or
    a gray object, or a red one pink, depends on the light on the whole scene (a gray bowl
    under a bright lamp is as light as a white one in a dim room), and the encoder's deepest
    cell sees about a tenth of the image. The means of every encoder stage's channels over the
    image (colours, brightness, the table) go through a small MLP to one offset per channel
    of the bottleneck and of the head's input. Both output layers start at zero, so adding the
    block to a trained detector keeps its maps until training moves them."""

    def __init__(self, channels: tuple[int, ...], hidden: int = 64) -> None:
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(sum(channels), hidden), nn.ReLU(inplace=True))
        self.deep = nn.Linear(hidden, channels[-1])
        self.top = nn.Linear(hidden, channels[0])
        for layer in (self.deep, self.top):
            nn.init.zeros_(layer.weight)
            nn.init.zeros_(layer.bias)

    def forward(self, stages: list[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        """(bottleneck offsets, head-input offsets), each (B, C, 1, 1) to broadcast."""
        g = self.mlp(torch.cat([s.mean((2, 3)) for s in stages], 1))
        return self.deep(g)[:, :, None, None], self.top(g)[:, :, None, None]


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
        self.context = GlobalContext(c) if config.global_context else None
        self.head = nn.Sequential(_conv(cin, config.head_channels),
                                  nn.Conv2d(config.head_channels, config.out_channels, 1))
        with torch.no_grad():  # every heatmap starts at p = 0.1 (CenterNet)
            for part in ("heat", "stack_heat"):
                self.head[-1].bias[config.head_layout()[part]] = -2.2

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        b, _, h, w = image.shape
        x = image / 127.5 - 1.0
        ys = torch.linspace(-1, 1, h, device=x.device).view(1, 1, h, 1).expand(b, 1, h, w)
        xs = torch.linspace(-1, 1, w, device=x.device).view(1, 1, 1, w).expand(b, 1, h, w)
        x = torch.cat([x, xs, ys], 1)
        skips = []
        for stage in self.stages:
            x = stage(x)
            skips.append(x)
        top = None
        if self.context is not None:
            deep, top = self.context(skips)
            x = x + deep
        for i, up in enumerate(self.ups):
            skip = skips[len(skips) - 2 - i]
            x = F.interpolate(x, size=skip.shape[-2:], mode="bilinear", align_corners=False)
            x = up(torch.cat([x, skip], 1))
        return self.head(x if top is None else x + top)
