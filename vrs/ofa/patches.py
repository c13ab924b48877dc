"""Per-patch object labels: which objects (colour x type) each image token's patch holds.

Why (the from-scratch probe, ../shared/notes; issue 25): the OFA-style models learned counts and
types from the multi-task rows but named colours at chance -- nothing forced a token to say
*which* colour is *where*, and the answer decoder can only read what the tokens hold. An
auxiliary loss on every image token (multi-label: "this patch holds a red block and part of a
blue bowl") gives each token a dense, direct colour-at-place signal from labels the generator
already has (every object's pixel box, colour and type). The head is used in training only.

A patch holds an object when the object's pixel box, scaled to the model's input size, covers
at least `MIN_COVER` of the smaller of the two (the box or the patch), or its centre lies in the
patch: a small block inside one patch and a large bowl over several are both labelled where
they are.
"""

from __future__ import annotations

import numpy as np

from ravens_env.colors import ALL_COLORS

PATCH_TYPES = ("block", "bowl")
PATCH_CLASSES: tuple[str, ...] = tuple(f"{c} {t}" for t in PATCH_TYPES for c in ALL_COLORS)
MIN_COVER = 0.25


def patch_targets(objects: list[dict], image_size: tuple[int, int], model_size: tuple[int, int],
                  grid: tuple[int, int], stride: int) -> np.ndarray:
    """(rows * cols, len(PATCH_CLASSES)) float32 0/1 targets for one image.

    objects: scene objects with "pixel_box" [x0, y0, x1, y1] in image pixels, "color", "type"
    and optionally "visible" (hidden objects get no label; other types, e.g. a stand, none).
    image_size / model_size: (width, height) of the image and of the model's input; patches
    are `stride` model pixels square, row-major over `grid` (rows, cols), as the stem's tokens.
    """
    rows, cols = grid
    out = np.zeros((rows, cols, len(PATCH_CLASSES)), np.float32)
    sx, sy = model_size[0] / image_size[0], model_size[1] / image_size[1]
    index = {name: k for k, name in enumerate(PATCH_CLASSES)}
    for o in objects:
        k = index.get(f"{o.get('color')} {o.get('type')}")
        box = o.get("pixel_box")
        if k is None or not box or not o.get("visible", True):
            continue
        x0, y0, x1, y1 = box[0] * sx, box[1] * sy, box[2] * sx, box[3] * sy
        cover = _cover(x0, y0, x1, y1, rows, cols, stride)
        cy, cx = int((y0 + y1) / 2 // stride), int((x0 + x1) / 2 // stride)
        if 0 <= cy < rows and 0 <= cx < cols:
            cover[cy, cx] = True
        out[cover, k] = 1.0
    return out.reshape(rows * cols, -1)


def _cover(x0: float, y0: float, x1: float, y1: float, rows: int, cols: int, stride: int
           ) -> np.ndarray:
    """(rows, cols) bool: patches the box overlaps by >= MIN_COVER of min(box, patch) area."""
    edges_y = np.arange(rows + 1) * stride
    edges_x = np.arange(cols + 1) * stride
    oy = np.clip(np.minimum(edges_y[1:], y1) - np.maximum(edges_y[:-1], y0), 0, None)  # (rows,)
    ox = np.clip(np.minimum(edges_x[1:], x1) - np.maximum(edges_x[:-1], x0), 0, None)  # (cols,)
    overlap = oy[:, None] * ox[None, :]
    smaller = min(max(x1 - x0, 0.0) * max(y1 - y0, 0.0), float(stride * stride))
    return overlap >= MIN_COVER * smaller if smaller > 0 else overlap > 0
