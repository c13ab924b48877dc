"""Block heights from the front camera's depth image: what one RGB image cannot tell.

Why: from the front camera a block one level up and a block on the table a few centimetres
further back cast to nearly the same pixels, so the detector's support level decides where a
raised block is, and one level off puts it 4-5 cm away (`support.py`). In part-built pyramids
that was the common case: on dev pyramids 5300-5329 (rows built by the oracle, upper places
up to 12 mm off), the middle row's xy error was 6.5 mm at the median, 32.7 mm at p90, the top
block's 9.0 and 44.7. The simulator's front camera renders depth too (`Observation.
front_depth`, as an RGB-D camera would), and the pixel at a block's detected centre shows its
top face (the camera looks down at ~47 degrees, so the ray through the centre leaves the top
face within 1.9 cm of it, inside the block's 2 cm half-width): the face's height less half a
block is the centre's height, with no support level to guess. Cast at that height, the middle
row came within 6.4 mm at p90 and the top block within 7.9 mm (the same scenes).

Only blocks the detector itself found are measured so: a block read back under another
(`hidden.py`) shows no pixel of its own, and its place comes from the block on it.
"""

from __future__ import annotations

import numpy as np

from ravens_env.dimensions import BLOCK_SIZE
from vrs.detector.camera import PinholeCamera
from vrs.detector.config import LEVEL0_Z

WINDOW = 1  # pixels each side of the centre: the median of a 3 x 3 patch of depths


def centre_heights(depth: np.ndarray, uv: np.ndarray, camera: PinholeCamera) -> np.ndarray:
    """Heights (N,) metres of the centres of blocks detected at camera pixels `uv` (N, 2),
    from `depth` (H, W) metres along the view axis at any size: the surface each pixel shows,
    less half a block, and never below a block on the table."""
    depth = np.asarray(depth, float)
    if depth.ndim != 2:
        raise ValueError(f"expected an (H, W) depth image, got shape {depth.shape}")
    uv = np.asarray(uv, float).reshape(-1, 2)
    h, w = depth.shape
    cols = np.clip((uv[:, 0] * w / camera.width).astype(int), 0, w - 1)
    rows = np.clip((uv[:, 1] * h / camera.height).astype(int), 0, h - 1)
    d = np.array([np.median(depth[max(r - WINDOW, 0):r + WINDOW + 1,
                                  max(c - WINDOW, 0):c + WINDOW + 1])
                  for r, c in zip(rows, cols, strict=True)])
    surface = camera.unproject_depth(uv, d)
    return np.maximum(surface[:, 2] - BLOCK_SIZE / 2, LEVEL0_Z)
