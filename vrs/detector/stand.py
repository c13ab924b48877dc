"""The pyramid stand's pose from the blocks standing on it.

Why: the stand is a flat 7 x 17 cm board whose middle is usually hidden under the pyramid's
base blocks, so the detector places its centre centimetres off and says nothing of its yaw;
"on the stand" then fails for the base blocks at its ends (measured: 17 of 98 block-on-stand
relations of the validation pyramids, with every block found). The base blocks themselves are
well placed, and they stand in a row along the stand's long axis (`stand_slots`, 5 cm apart),
so they give the stand's pose: a scene prior, as NS-VQA-style parsers use.

A block is taken to stand on the stand when it is not raised (level 0), its predicted centre
is above a table block's (the stand lifts it 1 cm) but below a stacked one's, and it lies
within reach of the detected stand. The seated blocks get the exact height of a block on the
stand. With two or more, the stand's long axis is the line through them, and its centre the
detected one moved onto that line (at most a slot from their middle); with one, the axis points
from the detected centre to it. The detected centre is kept as far as it can be, because the
stand's own directions ("left of the stand") are asked about too.
"""

from __future__ import annotations

import math

import numpy as np

from ravens_env.dimensions import BLOCK_SIZE, STAND_SIZE
from vrs.detector.camera import PinholeCamera
from vrs.detector.config import ON_STAND_Z
from vrs.detector.support import RAISED

STAND_REACH = 0.10  # metres: a seated block is this close (xy) to the detected stand centre
SEATED_Z = STAND_SIZE[2] + BLOCK_SIZE / 2  # metres: centre of a block on the stand
SLOT = 0.05  # metres between neighbouring base slots (stack_block_pyramid.stand_slots)


def seat_on_stand(uv: np.ndarray, z: np.ndarray, raised: np.ndarray, is_block: np.ndarray,
                  stand: int, camera: PinholeCamera, stand_z: float = ON_STAND_Z
                  ) -> tuple[np.ndarray, tuple, float]:
    """(heights (N,) with seated blocks at SEATED_Z, stand centre (x, y, z), stand yaw rad)
    from pixels (N, 2), predicted heights (N,) metres, raised and block masks (N,), and the
    index of the stand's detection; a level-0 block is seated when its predicted centre is
    above `stand_z` metres."""
    z = np.asarray(z, float).copy()
    xyz = camera.unproject_to_height(uv, z)
    centre = (float(xyz[stand, 0]), float(xyz[stand, 1]), STAND_SIZE[2] / 2)  # on the table
    near = np.linalg.norm(xyz[:, :2] - xyz[stand, :2], axis=1) < STAND_REACH
    seated = np.flatnonzero(is_block & ~raised & (z > stand_z) & (z < RAISED) & near)
    if len(seated) == 0:
        return z, centre, 0.0
    z[seated] = SEATED_Z
    base = camera.unproject_to_height(uv[seated], z[seated])[:, :2]  # (K, 2)
    detected = np.array(centre[:2])
    if len(seated) == 1:
        axis, mid = base[0] - detected, detected
    else:
        mid = base.mean(0)
        axis = np.linalg.svd(base - mid)[2][0]  # the row's direction
        mid = mid + np.clip(np.dot(detected - mid, axis), -SLOT, SLOT) * axis
    # The row runs along the stand's local y axis, (-sin yaw, cos yaw).
    yaw = math.atan2(axis[1], axis[0]) - math.pi / 2 if np.linalg.norm(axis) > 1e-6 else 0.0
    return z, (float(mid[0]), float(mid[1]), centre[2]), yaw
