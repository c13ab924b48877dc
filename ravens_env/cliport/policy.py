"""`CliportModel`: the pick and place networks together, with input normalisation and decoding.

Training calls `forward` with the demonstrated pick pixel (teacher forcing, as Transporter);
acting calls `predict`, which feeds the network's own best pick pixel to the place network.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ravens_env.cliport.config import CliportConfig
from ravens_env.cliport.transport import PickNet, PlaceNet


def to_input(color: torch.Tensor | np.ndarray, height: torch.Tensor | np.ndarray,
             config: CliportConfig) -> torch.Tensor:
    """Heightmap images -> normalised network input.

    color (..., H, W, 3) uint8, height (..., H, W) metres -> (..., 4, H, W) float32:
    RGB as (c / 255 - mean) / std, then height / height_std (the table is 0).
    """
    color = torch.as_tensor(color)
    height = torch.as_tensor(height).to(torch.float32)
    rgb = color.to(torch.float32) / 255.0  # (..., H, W, 3)
    mean = torch.tensor(config.color_mean, dtype=torch.float32, device=rgb.device)
    rgb = ((rgb - mean) / config.color_std).movedim(-1, -3)  # (..., 3, H, W)
    return torch.cat([rgb, (height / config.height_std).unsqueeze(-3)], dim=-3)


@dataclass(frozen=True)
class Prediction:
    """One sample's decoded action in pixels: pick (row, col), place (row, col), rotation bin."""

    pick: tuple[int, int]
    place: tuple[int, int]
    rotation: int
    pick_score: float  # softmax probability of the chosen pick pixel
    place_score: float  # softmax probability of the chosen (rotation, place pixel)


class CliportModel(nn.Module):
    """Two-stream attention (pick) + two-stream transport (place), CLIPort's architecture."""

    def __init__(self, config: CliportConfig) -> None:
        super().__init__()
        self.config = config
        self.pick = PickNet(config)
        self.place = PlaceNet(config)

    def forward(self, x: torch.Tensor, lang: torch.Tensor,
                pick: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # x (B, 4, H, W), lang (B, lang_dim), pick (B, 2) (row, col)
        # -> pick logits (B, 1, H, W), place logits (B, R, H, W)
        return self.pick(x, lang), self.place(x, lang, pick)

    @torch.no_grad()
    def predict(self, x: torch.Tensor, lang: torch.Tensor) -> list[Prediction]:
        """Greedy decoding: argmax pick pixel, then argmax (rotation, place pixel) given it."""
        pick_logits = self.pick(x, lang)  # (B, 1, H, W)
        b, _, h, w = pick_logits.shape
        pick_p = pick_logits.flatten(1).softmax(dim=1)  # (B, H*W)
        pick_score, pick_idx = pick_p.max(dim=1)
        pick = torch.stack([pick_idx // w, pick_idx % w], dim=1)  # (B, 2) (row, col)
        place_logits = away_from_pick(self.place(x, lang, pick), pick,
                                      self.config.min_place_distance_px)
        place_p = place_logits.flatten(1).softmax(dim=1)  # (B, R*H*W)
        place_score, place_idx = place_p.max(dim=1)
        rot, rest = place_idx // (h * w), place_idx % (h * w)
        return [Prediction((int(pick[i, 0]), int(pick[i, 1])),
                           (int(rest[i] // w), int(rest[i] % w)), int(rot[i]),
                           float(pick_score[i]), float(place_score[i])) for i in range(b)]


def away_from_pick(place_logits: torch.Tensor, pick: torch.Tensor,
                   radius_px: float) -> torch.Tensor:
    """Place logits (B, R, H, W) with every pixel closer than `radius_px` to the pick (B, 2)
    set to -inf. Why: placing where the object already is does nothing, yet the transport
    correlation scores the picked object's own location highly (a crop matches itself best),
    which was the main failure on stacking steps ("put the blue block on the purple block"
    answered by putting it back down)."""
    if radius_px <= 0:
        return place_logits
    h, w = place_logits.shape[-2:]
    rows = torch.arange(h, device=pick.device)[None, :, None] - pick[:, 0, None, None]
    cols = torch.arange(w, device=pick.device)[None, None, :] - pick[:, 1, None, None]
    near = (rows**2 + cols**2) < radius_px**2  # (B, H, W)
    return place_logits.masked_fill(near[:, None], float("-inf"))


def count_parameters(model: nn.Module) -> dict[str, int]:
    """Trainable parameters per top-level part and in total."""
    parts = {name: sum(p.numel() for p in child.parameters() if p.requires_grad)
             for name, child in model.named_children()}
    parts["total"] = sum(parts.values())
    return parts
