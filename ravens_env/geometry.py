"""Workspace bounds, pixel <-> world conversion and yaw/quaternion helpers.

Conventions follow Ravens/CLIPort: the robot base sits at the world origin, the table top is
z = 0, the workspace is x in [0.25, 0.75], y in [-0.5, 0.5], z in [0, 0.28] metres, and the
top-down heightmap has 320 rows along y and 160 columns along x at 3.125 mm per pixel, so
pixel (row, col) = ((y - y_min) / 3.125 mm, (x - x_min) / 3.125 mm).
"""

from __future__ import annotations

import math

import numpy as np

# (3, 2) metres: rows x, y, z; columns min, max.
BOUNDS = np.array([[0.25, 0.75], [-0.5, 0.5], [0.0, 0.28]])
PIXEL_SIZE = 0.003125  # metres per heightmap pixel
HEIGHTMAP_SHAPE = (320, 160)  # (rows along y, cols along x)


def in_workspace(xyz: tuple[float, float, float] | np.ndarray, margin: float = 0.0) -> bool:
    """True when a point lies inside the workspace box shrunk by `margin` metres (NaN -> False)."""
    p = np.asarray(xyz, dtype=float)
    if p.shape != (3,) or not np.all(np.isfinite(p)):
        return False
    lo, hi = BOUNDS[:, 0] + margin, BOUNDS[:, 1] - margin
    lo[2], hi[2] = BOUNDS[2, 0], BOUNDS[2, 1]  # the margin is horizontal only
    return bool(np.all(p >= lo) and np.all(p <= hi))


def xy_to_pixel(x: float, y: float) -> tuple[int, int]:
    """World (x, y) metres -> heightmap (row, col), clipped to the image."""
    row = round((y - BOUNDS[1, 0]) / PIXEL_SIZE)
    col = round((x - BOUNDS[0, 0]) / PIXEL_SIZE)
    return (
        min(max(row, 0), HEIGHTMAP_SHAPE[0] - 1),
        min(max(col, 0), HEIGHTMAP_SHAPE[1] - 1),
    )


def pixel_to_xyz(row: int, col: int,
                 height: np.ndarray | None = None) -> tuple[float, float, float]:
    """Heightmap (row, col) -> world (x, y, z) of that pixel's centre; z from `height` if given."""
    x = BOUNDS[0, 0] + col * PIXEL_SIZE
    y = BOUNDS[1, 0] + row * PIXEL_SIZE
    z = float(height[row, col]) if height is not None else 0.0
    return (float(x), float(y), z)


def yaw_to_quat(yaw: float) -> tuple[float, float, float, float]:
    """Rotation about +z by `yaw` radians as an (x, y, z, w) quaternion (PyBullet order)."""
    return (0.0, 0.0, math.sin(yaw / 2.0), math.cos(yaw / 2.0))


def quat_to_yaw(quat: tuple[float, float, float, float]) -> float:
    """Yaw (radians, about +z) of an (x, y, z, w) quaternion."""
    x, y, z, w = quat
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def tilt(quat: tuple[float, float, float, float]) -> float:
    """Angle in radians between the body's +z axis and world +z (0 = upright)."""
    x, y, _, _ = quat
    cos_t = 1.0 - 2.0 * (x * x + y * y)
    return math.acos(max(-1.0, min(1.0, cos_t)))


def cube_tilt(quat: tuple[float, float, float, float]) -> float:
    """Angle in radians between world +z and the nearest of a cube's six face normals: a cube
    that rolled onto a side face rests flat again (tilt 0), unlike `tilt`."""
    x, y, z, w = quat
    # Column 3 of the rotation matrix gives the world z component of each body axis.
    zs = (2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))
    return math.acos(max(-1.0, min(1.0, max(abs(v) for v in zs))))


def wrap_angle(a: float) -> float:
    """Wrap an angle to [-pi, pi)."""
    return (a + math.pi) % (2.0 * math.pi) - math.pi
