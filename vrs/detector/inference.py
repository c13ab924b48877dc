"""The detector's inference form: the same maps as `DetectorNet` (to float rounding), faster.

Why: at batch 1 on a CPU this network is bound by passes over memory, not by multiply-adds
(measured on the 2-core reference machine: concatenations 36% of the time, upsampling 10%,
BatchNorm and the input scaling a pass each). Training needs the plain form (BatchNorm
statistics move, gradients flow through the concatenations); inference does not, so a trained
model is rewritten once, at load:

- every BatchNorm is folded into the convolution before it (`fuse_conv_bn_eval`);
- the input scaling and the two coordinate channels go into the stem: its first convolution
  has kernel = stride and no padding, so `conv(cat(x/127.5 - 1, xs, ys))` equals
  `conv_rgb(x)/127.5` plus a constant map of the image size, computed once per size;
- each decoder step `conv(cat(up, skip))` becomes `conv_up(up) + conv_skip(skip)`, with no
  concatenated tensor; the last step's 1x1 convolution is applied *before* upsampling (a 1x1
  convolution and bilinear upsampling are both linear and the upsampling weights sum to one,
  so they commute), which upsamples 16 channels instead of 32;
- activations are kept channels-last, the layout the CPU convolution kernels prefer.
"""

from __future__ import annotations

import copy

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.fusion import fuse_conv_bn_eval

from vrs.detector.model import DetectorNet, add_context, backbone_context


def fused_for_inference(model: DetectorNet) -> DetectorNet:
    """An eval-mode copy of `model` whose BatchNorms are folded into the convolutions before
    them (the first rewrite of the module docstring; `FastDetector` builds on it)."""
    fused = copy.deepcopy(model).eval()
    for seq in [m for m in fused.modules() if isinstance(m, nn.Sequential)]:
        for i in range(len(seq) - 1):
            if isinstance(seq[i], nn.Conv2d) and isinstance(seq[i + 1], nn.BatchNorm2d):
                seq[i] = fuse_conv_bn_eval(seq[i], seq[i + 1])
                seq[i + 1] = nn.Identity()
    return fused


def _split(conv: nn.Conv2d, first: int) -> tuple[nn.Conv2d, nn.Conv2d]:
    """`conv` over cat(a, b) as two convolutions, over a (its first `first` input channels,
    keeping the bias) and over b (no bias), whose outputs sum to the original's."""
    like = {"device": conv.weight.device, "dtype": conv.weight.dtype}
    a, b = (nn.Conv2d(n, conv.out_channels, conv.kernel_size, conv.stride, conv.padding,
                      bias=bias, **like)
            for n, bias in ((first, True), (conv.in_channels - first, False)))
    with torch.no_grad():
        a.weight.copy_(conv.weight[:, :first])
        a.bias.copy_(conv.bias)
        b.weight.copy_(conv.weight[:, first:])
    return a, b


class FastDetector(nn.Module):
    """(B, 3, H, W) uint8-range float image -> the maps `DetectorNet` would give (see the
    module docstring for how)."""

    def __init__(self, model: DetectorNet) -> None:
        super().__init__()
        fused = fused_for_inference(model)
        self.config = model.config
        stem_conv = fused.stages[0][0]  # Conv(5 -> c0, kernel = stride), BatchNorm folded in
        self.stem_rgb = nn.Conv2d(3, stem_conv.out_channels, stem_conv.kernel_size,
                                  stem_conv.stride, bias=False, device=stem_conv.weight.device,
                                  dtype=stem_conv.weight.dtype)
        with torch.no_grad():
            self.stem_rgb.weight.copy_(stem_conv.weight[:, :3] / 127.5)
        self.stem_const = copy.deepcopy(stem_conv)  # weights for the constant part
        self.stem_rest = nn.Sequential(*list(fused.stages[0])[2:])  # ReLU, then the 3x3 conv
        self.stages = nn.ModuleList(fused.stages[1:])
        self.ups_up, self.ups_skip = nn.ModuleList(), nn.ModuleList()
        for up, skip in zip(fused.ups, model.config.channels[-2::-1], strict=True):
            conv = up[0]
            a, b = _split(conv, conv.in_channels - skip)
            self.ups_up.append(a)
            self.ups_skip.append(b)
        self.head = fused.head
        # the pretrained context stem, as trained (its BatchNorms folded like the rest)
        self.backbone, self.inject, self.tap_stage = fused.backbone, fused.inject, fused.tap_stage
        self._const: dict[tuple, torch.Tensor] = {}  # by (H, W, device, dtype)
        self.eval().to(memory_format=torch.channels_last)

    def _stem_constant(self, h: int, w: int) -> torch.Tensor:
        """(1, c0, H/s, W/s): the stem's response to the -1 offset and the coordinate
        channels, which depend on the image size alone (and where the weights live)."""
        weight = self.stem_const.weight
        key = (h, w, weight.device, weight.dtype)
        if key not in self._const:
            like = {"device": weight.device, "dtype": weight.dtype}
            ys = torch.linspace(-1, 1, h, **like).view(1, 1, h, 1).expand(1, 1, h, w)
            xs = torch.linspace(-1, 1, w, **like).view(1, 1, 1, w).expand(1, 1, h, w)
            x = torch.cat([torch.full((1, 3, h, w), -1.0, **like), xs, ys], 1)
            with torch.no_grad():
                self._const[key] = self.stem_const(x).contiguous(
                    memory_format=torch.channels_last)
        return self._const[key]

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        h, w = image.shape[-2:]
        x = image.contiguous(memory_format=torch.channels_last)
        context = backbone_context(self.backbone, image)
        x = add_context(self.stem_rest(self.stem_rgb(x) + self._stem_constant(h, w)), 0,
                        context, self.inject, self.tap_stage)
        skips = [x]
        for i, stage in enumerate(self.stages, start=1):
            x = add_context(stage(x), i, context, self.inject, self.tap_stage)
            skips.append(x)
        last = len(self.ups_up) - 1
        for i, (conv_up, conv_skip) in enumerate(zip(self.ups_up, self.ups_skip, strict=True)):
            skip = skips[len(skips) - 2 - i]
            if i == last and conv_up.kernel_size == (1, 1):  # 1x1 commutes with upsampling
                x = F.interpolate(conv_up(x), size=skip.shape[-2:], mode="bilinear",
                                  align_corners=False)
            else:
                x = conv_up(F.interpolate(x, size=skip.shape[-2:], mode="bilinear",
                                          align_corners=False))
            x = F.relu(x + conv_skip(skip))
        return self.head(x)
