"""Colour-match maps: how much each pixel looks like each colour the instruction names.

Why: with 100 demonstrations the semantic stream's only route from words to pixels is CLIPort's
multiplicative gating of decoder channels, which must learn, colour by colour, which channels
mean "red". Its failures were exactly that: the right kind of object of the wrong colour
(docs/RESULTS.md). CLIPort does not have this problem because CLIP's towers already agree on
what "red" looks like; we have no CLIP weights, so we give the network a learned colour metric
instead. Pixels and the lexicon RGB of each colour the step names (`color_words`: the picked
object's colour, then the target's) are compared in RGB space through one shared linear map A
(E x 3): the map for mention m is exp(-|A (rgb_pixel - (alpha rgb_word_m + s))|^2 / E), a
Mahalanobis distance whose shape is learned from every pixel of every demo, with one global
gain alpha and shift s that carry the lexicon's palette onto the simulator's. Trained through
the policy loss and, with `--color-match-loss W`, directly
(`training.cliport.train.color_match_loss`).

Why linear and shared, with one global shift on the word side: fit on CLIPort's 7 seen
colours, this metric tells every colour of a put-block-in-bowl episode from the others, seen
split and unseen split alike (`tests/ravens_env/cliport/test_color_match.py`). With no word-side
shift
the lexicon's gray lands on the simulator's brown; with a small MLP per side, fit to the seven
anchors, only 1 of the 8 unseen shades (plain and dark) was found, against 6 with a shared
linear map (a one-off comparison made while designing this module).

The maps are extra input channels of the semantic stream (`TwoStream`); the spatial stream stays
language-free, as in CLIPort. With `color_prior` their log (`prior`) is also added straight to
the pick and place logits (`transport.py`). Needs a "+rgb" language (the lexicon RGB is the
vector's tail).
"""

from __future__ import annotations

import torch
from torch import nn

from ravens_env.cliport.color_words import MENTIONS, RGB_DIM
from ravens_env.cliport.config import CliportConfig

INIT_STD = 3.0  # of the metric's entries at initialisation (why: `ColorMatch.__init__`)


class ColorMatch(nn.Module):
    """Normalised RGB (B, 3, H, W) + instruction vector (B, L) -> maps (B, MENTIONS, H, W) in
    (0, 1]; channel m is 1 where a pixel has exactly the m-th named colour's lexicon RGB."""

    def __init__(self, config: CliportConfig) -> None:
        super().__init__()
        self.register_buffer("mean", torch.tensor(config.color_mean).view(1, 3, 1, 1),
                             persistent=False)
        self.std = config.color_std
        self.metric = nn.Linear(3, config.color_match_dim, bias=False)  # A: (E, 3)
        # Start sharp: with PyTorch's default init two palette colours 0.3 apart (in [-1, 1]
        # units) both scored 0.8-1.0, and Adam at lr 3e-4 moves A too slowly to sharpen it in
        # a few thousand steps; at std 3 such a pair scores ~e^-2 from the start.
        nn.init.normal_(self.metric.weight, std=INIT_STD)
        # The lexicon's palette is not the simulator's (CSS gray (128, 128, 128) is nearer the
        # simulator's brown than its gray (186, 176, 172)): one global affine colour shift,
        # alpha * word + shift (4 numbers, identity at start), is all the words get, so that
        # what it learns from seven colours is a property of the palette, not of those colours.
        self.word_gain = nn.Parameter(torch.ones(1))
        self.word_shift = nn.Parameter(torch.zeros(3))

    def _load_from_state_dict(self, state_dict: dict, prefix: str, *args: object) -> None:
        # Checkpoints made before the word-side shift existed (2026-11-24, commit e0f938d)
        # behaved as gain 1, shift 0: load them as exactly that.
        state_dict.setdefault(prefix + "word_gain", torch.ones(1))
        state_dict.setdefault(prefix + "word_shift", torch.zeros(3))
        super()._load_from_state_dict(state_dict, prefix, *args)

    def forward(self, rgb: torch.Tensor, lang: torch.Tensor) -> torch.Tensor:
        return torch.exp(-self.distances(rgb, lang))

    def distances(self, rgb: torch.Tensor, lang: torch.Tensor) -> torch.Tensor:
        """(B, MENTIONS, H, W) squared metric distances, -log of the maps (finite where the
        maps underflow to 0, which is why the grounding loss uses them)."""
        b = rgb.shape[0]
        pixels = 2.0 * (rgb * self.std + self.mean) - 1.0  # back to RGB in [-1, 1], like words
        words = lang[:, -RGB_DIM:].reshape(b, MENTIONS, 3)  # (B, M, 3) lexicon RGB in [-1, 1]
        words = self.word_gain * words + self.word_shift
        diff = pixels[:, None] - words[:, :, :, None, None]  # (B, M, 3, H, W)
        proj = torch.einsum("ec,bmchw->bmehw", self.metric.weight, diff)  # (B, M, E, H, W)
        return proj.pow(2).mean(dim=2)

    def prior(self, rgb: torch.Tensor, lang: torch.Tensor, mention: int) -> torch.Tensor:
        """(B, 1, H, W) log-map of one mention, -distance, for adding to logits; 0 for samples
        whose instruction does not name that colour (its RGB slot is all zeros), so a step
        naming no colour is left to the network alone."""
        d2 = self.distances(rgb, lang)[:, mention:mention + 1]  # (B, 1, H, W)
        words = lang[:, -RGB_DIM:].reshape(-1, MENTIONS, 3)[:, mention]  # (B, 3)
        named = (words != 0).any(dim=1).to(d2.dtype)[:, None, None, None]  # (B, 1, 1, 1)
        return -d2 * named

