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
from the detected centre to it, and when it lies about a slot away (an end slot) the centre is
one slot from it along that line (the board's detected centre, half hidden, was off by 5.6 mm
on average and up to 24 mm; one slot from the block, 3.0 and 8.5 mm: dev pyramids 5100-5129
after one oracle place). A lone block near the middle, or further out than an end slot (the
detector reads the board's own end as a brown block on a few scenes: 1 of 100 empty dev
stands, 5100-5199), shows no direction: the board's yaw is taken (and in the second case its
centre, since the board is then in view around it). Otherwise the detected
centre is kept, because the stand's own directions ("left of the stand") are asked about too.

With no block seated the board itself gives the pose (`read_board`): the pixels around the
detected centre that share its colour, cast onto the board's top plane, form a 7 x 17 cm
rectangle whose long axis is the row's and whose middle is the centre. Without it an empty
stand read yaw 0, and the grounded place tool put the first base block 6-10 cm from any slot
(dev pyramids 5100-5106: 0 of 7 first places landed; the board's axis came out within 1 degree
on each, and its centre 2.9 mm off at the median, max 5.4, against the detector's 3.9 and 9.8:
dev stands 5100-5159).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import ndimage

from ravens_env.dimensions import BLOCK_SIZE, STAND_SIZE
from vrs.detector.camera import PinholeCamera
from vrs.detector.config import ON_STAND_Z
from vrs.detector.support import RAISED

STAND_REACH = 0.10  # metres: a seated block is this close (xy) to the detected stand centre
SEATED_Z = STAND_SIZE[2] + BLOCK_SIZE / 2  # metres: centre of a block on the stand
SLOT = 0.05  # metres between neighbouring base slots (stack_block_pyramid.stand_slots)
SNAP_TOL = 0.015  # metres: a lone seated block this close to a slot from the centre is in it
BOARD_COLOUR_TOL = 30  # 0-255 per channel: a board pixel is this close to the centre's colour
BOARD_WINDOW = 50  # pixels (at the camera's size) each side of the centre searched for the board
BOARD_ELONGATION = 3.0  # variance ratio of the board's long to short axis (a bare board: ~6)
BOARD_SPREAD = (0.025, 0.07)  # metres: the long axis' standard deviation (a bare board: 4.9 cm)

Board = tuple[float, tuple[float, float]]  # (yaw rad, centre (x, y) metres), `read_board`


def seat_on_stand(uv: np.ndarray, z: np.ndarray, raised: np.ndarray, is_block: np.ndarray,
                  stand: int, camera: PinholeCamera, stand_z: float = ON_STAND_Z,
                  board: Board | None = None) -> tuple[np.ndarray, tuple, float]:
    """(heights (N,) with seated blocks at SEATED_Z, stand centre (x, y, z), stand yaw rad)
    from pixels (N, 2), predicted heights (N,) metres, raised and block masks (N,), and the
    index of the stand's detection; a level-0 block is seated when its predicted centre is
    above `stand_z` metres. `board` is the pose read off the board itself (`read_board`):
    its centre and yaw when no block is seated, its yaw when the one seated block shows no
    direction."""
    z = np.asarray(z, float).copy()
    xyz = camera.unproject_to_height(uv, z)
    centre = (float(xyz[stand, 0]), float(xyz[stand, 1]), STAND_SIZE[2] / 2)  # on the table
    near = np.linalg.norm(xyz[:, :2] - xyz[stand, :2], axis=1) < STAND_REACH
    seated = np.flatnonzero(is_block & ~raised & (z > stand_z) & (z < RAISED) & near)
    if len(seated) == 0:
        if board is None:
            return z, centre, 0.0
        return z, (*board[1], centre[2]), board[0]
    z[seated] = SEATED_Z
    base = camera.unproject_to_height(uv[seated], z[seated])[:, :2]  # (K, 2)
    detected = np.array(centre[:2])
    if len(seated) == 1:
        axis, mid = base[0] - detected, detected
        reach = float(np.linalg.norm(axis))
        if reach < SLOT / 2:  # at the middle slot: no direction to read
            return z, centre, 0.0 if board is None else board[0]
        if abs(reach - SLOT) <= SNAP_TOL:  # at an end slot: the centre is one slot inwards
            mid = base[0] - SLOT * axis / reach
        elif board is not None:  # not in a slot (the board's own end read as a block)
            return z, (*board[1], centre[2]), board[0]
    else:
        mid = base.mean(0)
        axis = np.linalg.svd(base - mid)[2][0]  # the row's direction
        mid = mid + np.clip(np.dot(detected - mid, axis), -SLOT, SLOT) * axis
    # The row runs along the stand's local y axis, (-sin yaw, cos yaw).
    yaw = math.atan2(axis[1], axis[0]) - math.pi / 2 if np.linalg.norm(axis) > 1e-6 else 0.0
    return z, (float(mid[0]), float(mid[1]), centre[2]), yaw


def read_board(image: np.ndarray, uv: tuple[float, float], camera: PinholeCamera
               ) -> Board | None:
    """The stand's (yaw rad modulo pi, centre (x, y) metres) from the board seen around its
    detected centre `uv` (camera pixels) in `image` (H, W, 3|4 uint8, any size), or None when
    the pixels of the centre's colour do not form a board-sized elongated patch (a block
    covers the centre, or the board merges into a table of its colour)."""
    img = np.asarray(image)[..., :3].astype(np.int16)
    h, w = img.shape[:2]
    sx, sy = w / camera.width, h / camera.height
    u, v = int(uv[0] * sx), int(uv[1] * sy)
    if not (0 <= u < w and 0 <= v < h):
        return None
    u0, v0 = max(u - int(BOARD_WINDOW * sx), 0), max(v - int(BOARD_WINDOW * sy), 0)
    crop = img[v0:v + int(BOARD_WINDOW * sy) + 1, u0:u + int(BOARD_WINDOW * sx) + 1]
    ref = np.median(crop[max(v - v0 - 1, 0):v - v0 + 2, max(u - u0 - 1, 0):u - u0 + 2]
                    .reshape(-1, 3), axis=0)
    labels, _ = ndimage.label(np.abs(crop - ref).max(axis=2) < BOARD_COLOUR_TOL)
    rows, cols = np.nonzero(labels == labels[v - v0, u - u0])
    pixels = np.stack([(cols + u0 + 0.5) / sx, (rows + v0 + 0.5) / sy], 1)
    xy = camera.unproject_to_height(pixels, np.full(len(pixels), STAND_SIZE[2]))[:, :2]
    if len(xy) < 3:
        return None
    variances, axes = np.linalg.eigh(np.cov((xy - xy.mean(0)).T))
    long_sd = math.sqrt(max(variances[1], 0.0))
    if variances[1] < BOARD_ELONGATION * max(variances[0], 1e-12) \
            or not BOARD_SPREAD[0] <= long_sd <= BOARD_SPREAD[1]:
        return None
    axis = axes[:, 1]  # along the row: (-sin yaw, cos yaw)
    middle = xy.mean(0)
    return math.atan2(axis[1], axis[0]) - math.pi / 2, (float(middle[0]), float(middle[1]))
