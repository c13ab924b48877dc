"""Physical plausibility for the parsed scene: two blocks cannot share the same space.

Why: the detector's height head learned the common case (a block on the table or in a bowl,
centre 2-2.6 cm high) and under-predicts stacked blocks (measured: every stacked block of the
validation scenes came out at ~2.5 cm). Cast at the wrong height, a stacked block's centre
lands 3-4 cm from the block under it — inside it. So, as NS-VQA-style parsers use priors on
the scene, we resolve interpenetration: when two blocks at about the same height would
overlap, the one higher in the image (smaller v: farther up the ray) rests on the other, and
its centre is re-cast through its pixel at the height one block up. Repeated until stable,
which also builds towers and the pyramid's upper rows.
"""

from __future__ import annotations

import math

import numpy as np

from ravens_env.dimensions import BLOCK_SIZE
from vrs.ns.camera import PinholeCamera

OVERLAP = BLOCK_SIZE  # metres: closer centres (xy) at one level would interpenetrate
SAME_LEVEL = 0.03  # metres: centre heights closer than this are one level
MAX_ROUNDS = 6  # a tower of six blocks at most


def resolve_stacks(uv: np.ndarray, z: np.ndarray, is_block: np.ndarray,
                   camera: PinholeCamera) -> np.ndarray:
    """World centres (N, 3) from pixels (N, 2) and heights (N,) metres, lifting blocks that
    would interpenetrate another block onto it."""
    z = np.asarray(z, float).copy()
    xyz = camera.unproject_to_height(uv, z)
    blocks = [i for i in range(len(z)) if is_block[i]]
    for _ in range(MAX_ROUNDS):
        moved = False
        for a in blocks:
            for b in blocks:
                if a == b or uv[a, 1] >= uv[b, 1] or abs(z[a] - z[b]) >= SAME_LEVEL:
                    continue
                if math.dist(xyz[a, :2], xyz[b, :2]) < OVERLAP:
                    z[a] = z[b] + BLOCK_SIZE
                    xyz[a] = camera.unproject_to_height(uv[a:a + 1], z[a:a + 1])[0]
                    moved = True
        if not moved:
            break
    return xyz
