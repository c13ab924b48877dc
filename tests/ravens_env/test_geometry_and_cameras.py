"""Pixel <-> world conversion, the heightmap's metric accuracy and the front camera geometry."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ravens_env.assets import BLOCK_SIZE
from ravens_env.bullet import pb
from ravens_env.geometry import (
    HEIGHTMAP_SHAPE,
    in_workspace,
    pixel_to_xyz,
    quat_to_yaw,
    xy_to_pixel,
    yaw_to_quat,
)


@pytest.mark.parametrize("xy", [(0.25, -0.5), (0.5, 0.0), (0.7, 0.31), (0.74, 0.49)])
def test_pixel_world_round_trip(xy):
    row, col = xy_to_pixel(*xy)
    x, y, _ = pixel_to_xyz(row, col)
    assert abs(x - xy[0]) <= 0.003125 / 2 + 1e-9
    assert abs(y - xy[1]) <= 0.003125 / 2 + 1e-9


def test_pixel_indices_are_clipped_to_the_image():
    assert xy_to_pixel(-1.0, -5.0) == (0, 0)
    assert xy_to_pixel(9.0, 9.0) == (HEIGHTMAP_SHAPE[0] - 1, HEIGHTMAP_SHAPE[1] - 1)


@pytest.mark.parametrize("yaw", [0.0, 0.3, -2.0, 3.1])
def test_yaw_quaternion_round_trip(yaw):
    assert math.isclose(quat_to_yaw(yaw_to_quat(yaw)), yaw, abs_tol=1e-9)


def test_in_workspace_rejects_outside_and_nan():
    assert in_workspace((0.5, 0.0, 0.0))
    assert not in_workspace((0.2, 0.0, 0.0))
    assert not in_workspace((0.5, 0.0, float("nan")))
    assert not in_workspace((0.5, 0.0))


def test_heightmap_is_metric_at_the_block(env):
    """A block at a known pose must appear at its pixel with its height (within 2 mm)."""
    obs = env.reset("stack-blocks", 0)
    for o in env.scene(visibility=False).objects:
        row, col = xy_to_pixel(*o.position[:2])
        assert abs(obs.height[row, col] - BLOCK_SIZE) < 0.002
    empty = obs.height[obs.height.shape[0] // 2 - 2:obs.height.shape[0] // 2 + 2, 2:4]
    assert obs.color.shape == (320, 160, 3) and obs.height.shape == (320, 160)
    assert obs.height.min() == 0.0 and empty.max() <= 0.04


def test_heightmap_color_matches_the_object_color(env):
    env.reset("put-block-in-bowl", 0)
    obs = env.observe()
    target = env.scene(visibility=False).get(env.task.target[0])
    row, col = xy_to_pixel(*target.position[:2])
    visual = pb.getVisualShapeData(target.body_id, physicsClientId=env.client)[0][7]
    assert np.abs(obs.color[row, col] / 255.0 - np.asarray(visual[:3])).max() < 0.25


def test_front_depth_is_metric(env):
    """Depth at the image centre equals the distance from the eye to the table along the axis."""
    obs = env.reset("put-block-in-bowl", 0)
    cam = env.front_camera
    eye, target = np.asarray(cam.eye), np.asarray(cam.target)
    axis = (target - eye) / np.linalg.norm(target - eye)
    ray_t = -eye[2] / axis[2]  # metres to the table plane along the axis
    centre = obs.front_depth[cam.height // 2, cam.width // 2]
    assert abs(centre - ray_t) < 0.01


def test_pixel_boxes_contain_the_visible_pixels(env):
    env.reset("put-blocks-in-matching-bowls", 2)
    front = env._front()
    for o in env.scene().objects:
        vs, us = np.nonzero(front.segmentation == o.body_id)
        u0, v0, u1, v1 = o.pixel_box
        assert us.min() >= u0 - 1 and us.max() <= u1 + 1
        assert vs.min() >= v0 - 1 and vs.max() <= v1 + 1


@pytest.mark.parametrize(("euler", "expected"), [
    ((0.0, 0.0, 0.7), 0.0), ((math.pi / 2, 0.0, 0.3), 0.0), ((0.0, math.pi / 2, 0.0), 0.0),
    ((0.3, 0.0, 0.0), 0.3), ((math.pi / 2 + 0.2, 0.0, 0.0), 0.2),
])
def test_a_cube_on_any_face_is_flat(euler, expected):
    from ravens_env.geometry import cube_tilt

    assert abs(cube_tilt(pb.getQuaternionFromEuler(euler)) - expected) < 1e-6
