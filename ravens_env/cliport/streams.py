"""The two streams of a CLIPort network, both fully convolutional and trained from scratch.

- spatial stream: a residual hourglass (encoder-decoder with skips, Transporter-style) on RGB-D,
  which is where precise geometry (edges, heights) comes from;
- semantic stream: an encoder-decoder on RGB only whose decoder is conditioned on the sentence
  embedding by element-wise products with tiled linear projections (CLIPort's multiplicative
  language fusion), and which receives the spatial decoder's features by lateral connections.

CLIPort's semantic encoder is a frozen CLIP ResNet50; no CLIP image weights are available
offline, so ours learns from scratch — the language fusion is the same.
The two streams' outputs are added (CLIPort's final fusion). With `color_match_dim` the semantic
stream also reads colour-match maps (`color_match.py`), our stand-in for CLIP's grounding.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ravens_env.cliport.color_match import ColorMatch
from ravens_env.cliport.color_words import MENTIONS
from ravens_env.cliport.config import CliportConfig


def _norm(channels: int) -> nn.GroupNorm:
    """GroupNorm: independent of batch size, so batch 1 at act() matches training batches."""
    groups = 8 if channels % 8 == 0 else 1
    return nn.GroupNorm(groups, channels)


class ResBlock(nn.Module):
    """Two 3x3 convolutions with a residual path; `stride=2` halves H and W."""

    def __init__(self, cin: int, cout: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.norm1 = _norm(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.norm2 = _norm(cout)
        self.skip = (nn.Identity() if cin == cout and stride == 1
                     else nn.Conv2d(cin, cout, 1, stride, bias=False))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # (B, cin, H, W) -> (B, cout, H / stride, W / stride)
        y = F.relu(self.norm1(self.conv1(x)))
        y = self.norm2(self.conv2(y))
        return F.relu(y + self.skip(x))


def _stage(cin: int, cout: int, n_blocks: int, stride: int) -> nn.Sequential:
    blocks = [ResBlock(cin, cout, stride)]
    blocks += [ResBlock(cout, cout) for _ in range(n_blocks - 1)]
    return nn.Sequential(*blocks)


class Encoder(nn.Module):
    """Stem at full resolution, then one stride-2 stage per entry of `config.widths`."""

    def __init__(self, in_channels: int, config: CliportConfig) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(in_channels, config.stem_width, 3, 1, 1, bias=False),
                                  _norm(config.stem_width), nn.ReLU())
        chans = [config.stem_width, *config.widths]
        self.stages = nn.ModuleList(
            _stage(chans[i], chans[i + 1], config.blocks_per_stage, 2)
            for i in range(len(config.widths)))

    def forward(self, x: torch.Tensor) -> list[torch.Tensor]:
        # (B, C, H, W) -> [(B, stem, H, W), (B, w0, H/2, W/2), ..., (B, wN, H/2^N, W/2^N)]
        feats = [self.stem(x)]
        for stage in self.stages:
            feats.append(stage(feats[-1]))
        return feats


def decoder_widths(config: CliportConfig) -> list[int]:
    """Output channels of each decoder stage, coarse to fine (ending at full resolution)."""
    chans = [config.stem_width, *config.widths]
    return [chans[k] for k in range(len(config.widths) - 1, -1, -1)]


class Decoder(nn.Module):
    """Upsample x2, concatenate the encoder skip, one residual stage; coarse to fine."""

    def __init__(self, config: CliportConfig) -> None:
        super().__init__()
        chans = [config.stem_width, *config.widths]
        outs = decoder_widths(config)
        ins = [chans[-1], *outs[:-1]]
        skips = chans[-2::-1]  # encoder features at the scale each stage outputs
        self.stages = nn.ModuleList(
            _stage(cin + skip, cout, config.blocks_per_stage, 1)
            for cin, skip, cout in zip(ins, skips, outs, strict=True))

    def stage(self, i: int, x: torch.Tensor, skip: torch.Tensor) -> torch.Tensor:
        """Decoder stage i: (B, C, h, w) + skip (B, S, 2h, 2w) -> (B, out_i, 2h, 2w)."""
        x = F.interpolate(x, size=skip.shape[-2:], mode="bilinear", align_corners=False)
        return self.stages[i](torch.cat([x, skip], dim=1))


class SpatialStream(nn.Module):
    """Residual hourglass on RGB-D; returns its output and every decoder feature map."""

    def __init__(self, config: CliportConfig, out_dim: int) -> None:
        super().__init__()
        self.encoder = Encoder(config.in_channels, config)
        self.decoder = Decoder(config)
        self.head = nn.Conv2d(config.stem_width, out_dim, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        # x (B, 4, H, W) -> out (B, out_dim, H, W), laterals [(B, out_i, h_i, w_i)] coarse->fine
        feats = self.encoder(x)
        y, laterals = feats[-1], []
        for i, skip in enumerate(reversed(feats[:-1])):
            y = self.decoder.stage(i, y, skip)
            laterals.append(y)
        return self.head(y), laterals


class SemanticStream(nn.Module):
    """RGB encoder-decoder; each decoder stage takes a lateral from the spatial stream, then is
    multiplied by a tiled projection of the sentence embedding (CLIPort's `mult` fusion)."""

    def __init__(self, config: CliportConfig, out_dim: int) -> None:
        super().__init__()
        self.match = ColorMatch(config) if config.color_match_dim else None
        self.encoder = Encoder(3 + (MENTIONS if self.match else 0), config)
        self.decoder = Decoder(config)
        outs = decoder_widths(config)
        self.laterals = nn.ModuleList(nn.Conv2d(c, c, 1) for c in outs)
        self.lang = nn.ModuleList(nn.Linear(config.lang_dim, c) for c in outs)
        self.norms = nn.ModuleList(_norm(c) for c in outs)
        self.head = nn.Conv2d(config.stem_width, out_dim, 1)

    def forward(self, rgb: torch.Tensor, lang: torch.Tensor,
                laterals: list[torch.Tensor]) -> torch.Tensor:
        # rgb (B, 3, H, W), lang (B, lang_dim), laterals from SpatialStream -> (B, out_dim, H, W)
        if self.match is not None:  # + colour-match maps (B, MENTIONS, H, W)
            rgb = torch.cat([rgb, self.match(rgb, lang)], dim=1)
        feats = self.encoder(rgb)
        y = feats[-1]
        for i, skip in enumerate(reversed(feats[:-1])):
            y = self.decoder.stage(i, y, skip) + self.laterals[i](laterals[i])
            gate = self.lang[i](lang)[:, :, None, None]  # (B, C_i, 1, 1), tiled by broadcast
            y = F.relu(self.norms[i](y * gate))
        return self.head(y)


class TwoStream(nn.Module):
    """Spatial + language-conditioned semantic stream, outputs added (CLIPort's fusion)."""

    def __init__(self, config: CliportConfig, out_dim: int) -> None:
        super().__init__()
        self.spatial = SpatialStream(config, out_dim)
        self.semantic = SemanticStream(config, out_dim)

    def forward(self, x: torch.Tensor, lang: torch.Tensor) -> torch.Tensor:
        # x (B, 4, H, W) normalised RGB + height, lang (B, lang_dim) -> (B, out_dim, H, W)
        spatial, laterals = self.spatial(x)
        return spatial + self.semantic(x[:, :3], lang, laterals)
