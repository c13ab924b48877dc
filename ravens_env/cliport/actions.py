"""Conversions between world actions and the pixel/rotation-bin labels of the CLIPort actor.

One module for both directions, so demonstrations (world -> pixels) and acting (pixels ->
world) cannot drift apart. Pixels are heightmap (row, col), row = y, col = x, 3.125 mm each
(`ravens_env.geometry`); rotation bin k of n means a yaw change of 2 pi k / n radians.
"""

from __future__ import annotations

import math

import numpy as np

from ravens_env.geometry import BOUNDS, pixel_to_xyz, wrap_angle, xy_to_pixel
from ravens_env.types import PickPlace


def world_to_pixel(x: float, y: float) -> tuple[int, int]:
    """World (x, y) metres -> heightmap (row, col), clipped to the image."""
    return xy_to_pixel(x, y)


def pixel_to_world(row: int, col: int, height: np.ndarray) -> tuple[float, float, float]:
    """Heightmap (row, col) -> world (x, y, z) of the pixel centre; z is the heightmap's height
    there (metres), clipped to the workspace so a noisy pixel cannot make an invalid action."""
    x, y, z = pixel_to_xyz(int(row), int(col), height)
    return (x, y, float(np.clip(z, BOUNDS[2, 0], BOUNDS[2, 1])))


def yaw_to_bin(yaw: float, n_rotations: int) -> int:
    """Yaw change (radians) -> nearest rotation bin in [0, n)."""
    step = 2.0 * math.pi / n_rotations
    return round(wrap_angle(yaw) / step) % n_rotations


def bin_to_yaw(k: int, n_rotations: int) -> float:
    """Rotation bin -> yaw change in radians, wrapped to [-pi, pi)."""
    return wrap_angle(2.0 * math.pi * k / n_rotations)


def action_to_labels(action: PickPlace, n_rotations: int) -> dict:
    """A demonstrated PickPlace -> {'pick': (row, col), 'place': (row, col), 'rotation': k}.

    The rotation label is the yaw change the action applies (place_yaw - pick_yaw): the
    transport network predicts how the pick neighbourhood is turned, not absolute yaws.
    """
    return {
        "pick": world_to_pixel(action.pick[0], action.pick[1]),
        "place": world_to_pixel(action.place[0], action.place[1]),
        "rotation": yaw_to_bin(action.place_yaw - action.pick_yaw, n_rotations),
    }


def labels_to_action(pick: tuple[int, int], place: tuple[int, int], rotation: int,
                     height: np.ndarray, n_rotations: int) -> PickPlace:
    """Pixels + rotation bin -> a world PickPlace (pick_yaw 0, place_yaw from the bin)."""
    return PickPlace(pick=pixel_to_world(*pick, height), place=pixel_to_world(*place, height),
                     pick_yaw=0.0, place_yaw=bin_to_yaw(rotation, n_rotations))
