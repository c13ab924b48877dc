"""Training targets for the detector from a CLEVR-layout scene (what `codeplan datagen` writes).

Each visible object becomes a peak on its type's heatmap at the cell holding its projected
centre (`pixel_coords`), with a Gaussian around it (CenterNet), and regression targets at that
cell: the sub-cell offset, its height and its color. Objects the generator counts as barely
visible (1-19 px), and visible objects whose centre falls outside the image, are neither
positives nor negatives: the loss ignores a 3x3 cell window around them (at the nearest border
cell for the latter), so the detector is not punished for seeing, or not seeing, a sliver.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vrs.detector.config import DetectorConfig

MIN_VISIBLE = 20  # px: SceneObject.visible's threshold


@dataclass
class Targets:
    """Per-image targets; T types, (R, C) the output grid."""

    heat: np.ndarray  # (H, R, C) float32 in 0-1, H heatmaps (config.heat_channels())
    ignore: np.ndarray  # (R, C) bool: no heatmap loss here
    cells: np.ndarray  # (N, 3) int64 (type, row, col) of each visible object's centre
    offset: np.ndarray  # (N, 2) float32 sub-cell (dx, dy) in 0-1
    z: np.ndarray  # (N,) float32 centre height, metres
    color: np.ndarray  # (N,) int64 index into config.colors
    level: np.ndarray  # (N,) int64 support level (config.level_of)


def _resize_uv(obj: dict, image_size: tuple[int, int],
               config: DetectorConfig) -> tuple[float, float]:
    """The object's projected centre in the detector's input pixels."""
    u, v = obj["pixel_coords"][:2]
    w, h = image_size
    return u * config.width / w, v * config.height / h


def make_targets(scene: dict, image_size: tuple[int, int], config: DetectorConfig,
                 flip: bool = False) -> Targets:
    """Targets for one scene; `image_size` (W, H) of the image the scene was rendered at;
    `flip` mirrors left-right (the augmentation: the default camera sits on the y = 0 plane)."""
    rows, cols = config.grid
    heat = np.zeros((len(config.heat_channels()), rows, cols), np.float32)
    ignore = np.zeros((rows, cols), bool)
    yy, xx = np.mgrid[0:rows, 0:cols]
    cells, offsets, zs, colors = [], [], [], []
    for obj in scene["objects"]:
        if obj["type"] not in config.types:
            continue
        u, v = _resize_uv(obj, image_size, config)
        if flip:
            u = config.width - u
        cx, cy = u / config.stride, v / config.stride
        col, row = math.floor(cx), math.floor(cy)
        inside = 0 <= row < rows and 0 <= col < cols
        visible = obj.get("visible_pixels", MIN_VISIBLE)
        if not inside or visible < MIN_VISIBLE:
            if visible > 0:
                r, c = min(max(row, 0), rows - 1), min(max(col, 0), cols - 1)
                ignore[max(r - 1, 0):r + 2, max(c - 1, 0):c + 2] = True
            continue
        t = config.types.index(obj["type"])
        h = config.heat_channel(t, config.level_of(obj["3d_coords"][2]))
        sigma = config.sigma_cells[t]
        blob = np.exp(-((xx - col) ** 2 + (yy - row) ** 2) / (2 * sigma**2))
        np.maximum(heat[h], blob, out=heat[h])
        cells.append((t, row, col))
        offsets.append((cx - col, cy - row))
        zs.append(obj["3d_coords"][2])
        colors.append(config.colors.index(obj["color"]))
    return Targets(heat, ignore, np.asarray(cells, np.int64).reshape(-1, 3),
                   np.asarray(offsets, np.float32).reshape(-1, 2), np.asarray(zs, np.float32),
                   np.asarray(colors, np.int64),
                   np.asarray([config.level_of(z) for z in zs], np.int64))
