"""Colour-match maps: how much each pixel looks like each colour the instruction names.

Why: with 100 demonstrations the semantic stream's only route from words to pixels is CLIPort's
multiplicative gating of decoder channels, which must learn, colour by colour, which channels
mean "red". Its failures were exactly that: the right kind of object of the wrong colour
(docs/RESULTS.md). CLIPort does not have this problem because CLIP's towers already agree on
what "red" looks like; we have no CLIP weights, so we give the network a learned colour metric
instead. Pixels and the lexicon RGB of each colour the step names (`color_words`: the picked
object's colour, then the target's) are compared in RGB space through one shared linear map A
(E x 3): the map for mention m is exp(-|A (rgb_pixel - rgb_word_m)|^2 / E), a Mahalanobis
distance whose shape is learned from every pixel of every demo.

Why linear and shared: on the simulator's 11 colours, a metric fit to CLIPort's 7 seen colours
finds 6 of the 8 unseen shades (plain and dark) when pixel and word share A, against 1 of 8 when
each side has its own small MLP, which bends the colour space to fit the seven anchors
(`tests/ravens_env/test_color_match.py` keeps that property).

The maps are extra input channels of the semantic stream (`TwoStream`); the spatial stream stays
language-free, as in CLIPort. Needs a "+rgb" language (the lexicon RGB is the vector's tail).
"""

from __future__ import annotations

import torch
from torch import nn

from ravens_env.models.color_words import MENTIONS, RGB_DIM
from ravens_env.models.config import CliportConfig


class ColorMatch(nn.Module):
    """Normalised RGB (B, 3, H, W) + instruction vector (B, L) -> maps (B, MENTIONS, H, W) in
    (0, 1]; channel m is 1 where a pixel has exactly the m-th named colour's lexicon RGB."""

    def __init__(self, config: CliportConfig) -> None:
        super().__init__()
        self.register_buffer("mean", torch.tensor(config.color_mean).view(1, 3, 1, 1),
                             persistent=False)
        self.std = config.color_std
        self.metric = nn.Linear(3, config.color_match_dim, bias=False)  # A: (E, 3)

    def forward(self, rgb: torch.Tensor, lang: torch.Tensor) -> torch.Tensor:
        b = rgb.shape[0]
        pixels = 2.0 * (rgb * self.std + self.mean) - 1.0  # back to RGB in [-1, 1], like words
        words = lang[:, -RGB_DIM:].reshape(b, MENTIONS, 3)  # (B, M, 3) lexicon RGB in [-1, 1]
        diff = pixels[:, None] - words[:, :, :, None, None]  # (B, M, 3, H, W)
        proj = torch.einsum("ec,bmchw->bmehw", self.metric.weight, diff)  # (B, M, E, H, W)
        return torch.exp(-proj.pow(2).mean(dim=2))
