"""The detector's losses: CenterNet's focal loss on heatmaps, L1 (offsets), squared error
(heights) and cross-entropy (colors, support levels) at centres.

Why a focal loss: a 60x80 grid has ~4,800 cells per type and a handful of objects; the
penalty-reduced focal loss (Law & Deng's CornerNet, used by CenterNet) keeps the easy
background from drowning the peaks, and (1 - target)^4 spares the cells next to a peak.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from vrs.detector.config import DetectorConfig
from vrs.detector.decode import heat_logits

# Height is a squared error, weighted up: an L1 loss is median-seeking, and since most blocks
# rest on the table, the first detector learned to answer ~2.5 cm for every block, stacked
# or not (measured on the validation scenes).
Z_WEIGHT = 10.0
# The support level (0 on the table, k on k blocks) as classes: a stacked block is a distinct
# class rather than a rare large target of a regression that the common case pulls down.
LEVEL_WEIGHT = 1.0


def focal_loss(logits: torch.Tensor, target: torch.Tensor, ignore: torch.Tensor) -> torch.Tensor:
    """(B, H, R, C) logits and Gaussian targets, H heatmaps (`DetectorConfig.heat_channels`);
    `ignore` (B, R, C) cells add nothing."""
    pos = target.eq(1).float()
    keep = (~ignore).unsqueeze(1).float()
    p = torch.sigmoid(logits)
    log_p, log_not_p = F.logsigmoid(logits), F.logsigmoid(-logits)
    pos_term = -log_p * (1 - p) ** 2 * pos
    neg_term = -log_not_p * p**2 * (1 - target) ** 4 * (1 - pos) * keep
    return (pos_term.sum() + neg_term.sum()) / pos.sum().clamp(min=1)


def detector_losses(maps: torch.Tensor, batch: dict, config: DetectorConfig) -> dict:
    """{'heat', 'offset', 'z', 'color', 'loss'} for a batch from `perception_data.collate`."""
    lay = config.head_layout()
    b, _, rows, cols = maps.shape
    t, c = len(config.types), len(config.colors)
    heat = focal_loss(heat_logits(maps, config), batch["heat"], batch["ignore"])
    bi, ti, r, col = batch["cells"].unbind(1)
    if len(bi) == 0:
        zero = maps.sum() * 0
        parts = ("offset", "z", "color") + (("level",) if config.has_level_logits else ())
        return {"heat": heat, **dict.fromkeys(parts, zero), "loss": heat}
    offset = maps[:, lay["offset"]].view(b, t, 2, rows, cols)[bi, ti, :, r, col]  # (N, 2)
    z = maps[:, lay["z"]][bi, ti, r, col]  # (N,)
    color = maps[:, lay["color"]].view(b, t, c, rows, cols)[bi, ti, :, r, col]  # (N, C)
    losses = {"heat": heat,
              "offset": F.l1_loss(offset, batch["offset"]),
              "z": Z_WEIGHT * F.mse_loss(z, batch["z"] * config.z_scale),
              "color": F.cross_entropy(color, batch["color"])}
    if config.has_level_logits:
        n = config.levels
        level = maps[:, lay["level"]].view(b, t, n, rows, cols)[bi, ti, :, r, col]  # (N, L)
        losses["level"] = LEVEL_WEIGHT * F.cross_entropy(level, batch["level"])
    losses["loss"] = sum(losses.values())
    return losses
