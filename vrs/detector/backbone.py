"""An ImageNet-pretrained context stem for the detector: MobileNetV2's feature layers.

Why: the detector is trained only on rendered tables, and on looks it never saw it reads table
texture as objects and loses counts (issue 27). A backbone that learned edges, textures and
objects from a million photographs is the usual remedy (OFA and CLIPort both start from
ImageNet weights). MobileNetV2 (Sandler et al. 2018) is small enough for the 10 ms budget.

The layers are written here with the state-dict names of torchvision's `mobilenet_v2`
(`features.<i>...`), so its ImageNet-1k weights (`mobilenet_v2-b0353104.pth`, 71.9% top-1, as
torchvision reports) load as they are; the file itself comes from a package on the index
(`training/detector/pretrained.py`). Only `features.0` to `features.13` are built (the maps at
its strides 4, 8 and 16, `TAPS`), and the detector feeds it the image at half size: the full
network at full size took 15.7 ms per image on the 2-core VM, this 3.3 ms, and what the
detector lacks is context (is this blob a block or a pattern in the table?), which the coarse
maps hold, not detail, which its own stem at stride 2 keeps.
"""

from __future__ import annotations

import torch
from torch import nn

# (expansion t, channels c, repeats n, first stride s): MobileNetV2's Table 2.
SETTINGS = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
            (6, 160, 3, 2), (6, 320, 1, 1))
# features index whose output is tapped -> (stride in its own input, channels)
TAPS: dict[int, tuple[int, int]] = {3: (4, 24), 6: (8, 32), 13: (16, 96)}
LAST = max(TAPS)  # the deepest layer built
MEAN = (0.485, 0.456, 0.406)  # ImageNet statistics of RGB in [0, 1], as the weights expect
STD = (0.229, 0.224, 0.225)


def _conv_bn(cin: int, cout: int, kernel: int, stride: int = 1, groups: int = 1,
             act: bool = True) -> nn.Sequential:
    layers: list[nn.Module] = [nn.Conv2d(cin, cout, kernel, stride, (kernel - 1) // 2,
                                         groups=groups, bias=False), nn.BatchNorm2d(cout)]
    if act:
        layers.append(nn.ReLU6(inplace=True))
    return nn.Sequential(*layers)


class InvertedResidual(nn.Module):
    """Expand (1x1), filter (3x3 depthwise), project (1x1, linear); a skip when shapes agree."""

    def __init__(self, cin: int, cout: int, stride: int, expand: int) -> None:
        super().__init__()
        hidden = cin * expand
        layers: list[nn.Module] = [] if expand == 1 else [_conv_bn(cin, hidden, 1)]
        layers += [_conv_bn(hidden, hidden, 3, stride, groups=hidden),
                   nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.conv = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.conv(x) if self.residual else self.conv(x)


class MobileNetV2Features(nn.Module):
    """RGB in 0-255 -> the feature maps of `TAPS`, finest first. Its weights take no gradient
    (training may opt in: `train detector --backbone-lr`) and its batch norms always keep
    ImageNet's statistics (`train()` leaves them in eval mode): batch statistics of rendered
    tables are what would wash out what it learned from photographs."""

    def __init__(self) -> None:
        super().__init__()
        layers: list[nn.Module] = [_conv_bn(3, 32, 3, 2)]
        cin = 32
        for t, c, n, s in SETTINGS:
            for i in range(n):
                layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        self.features = nn.Sequential(*layers[:LAST + 1])
        self.register_buffer("mean", torch.tensor(MEAN).view(1, 3, 1, 1) * 255, persistent=False)
        self.register_buffer("std", torch.tensor(STD).view(1, 3, 1, 1) * 255, persistent=False)
        self.requires_grad_(False)

    def train(self, mode: bool = True) -> MobileNetV2Features:
        super().train(False)
        return self

    def forward(self, image: torch.Tensor) -> list[torch.Tensor]:
        x = (image - self.mean) / self.std
        out = []
        for i, layer in enumerate(self.features):
            x = layer(x)
            if i in TAPS:
                out.append(x)
        return out

    def load_imagenet(self, state: dict[str, torch.Tensor]) -> None:
        """Load torchvision's `mobilenet_v2` state dict; its classifier and the layers after
        `LAST` are not built here and are skipped. Any other key missing or left over, or a
        shape that differs, is an error: the file is not MobileNetV2's."""
        wanted = {k: v for k, v in state.items() if k.startswith("features.")
                  and int(k.split(".")[1]) <= LAST}
        try:
            missing, unexpected = self.load_state_dict(wanted, strict=False)
        except RuntimeError as e:  # a shape that differs
            raise ValueError(f"not a torchvision mobilenet_v2 state dict: {e}") from None
        if missing or unexpected:
            raise ValueError(f"not a torchvision mobilenet_v2 state dict: missing "
                             f"{missing[:4]}, unexpected {unexpected[:4]}")
