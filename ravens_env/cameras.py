"""Cameras: the actor's top-down heightmap and the VQA model's front RGB-D view.

The heightmap is rendered by one *orthographic* camera looking straight down, so each pixel is
exactly one 3.125 mm cell of the workspace and its depth is a height: no point-cloud fusion
of three perspective cameras as in Ravens (which costs 0.3-0.7 s per camera there). PyBullet's
TinyRenderer converts its depth buffer as if every projection were perspective, with near/far
read back from the matrix; `_linear_depth` undoes that exactly (checked in the tests).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ravens_env.bullet import pb
from ravens_env.geometry import BOUNDS, HEIGHTMAP_SHAPE

TOP_CAMERA_HEIGHT = 1.0  # metres above the table
LIGHT_DIRECTION = (0.4, -0.3, 1.0)
# TinyRenderer's own light defaults, passed on every call: PyBullet keeps the light of the last
# `getCameraImage` that set one, so a randomised-look render (datagen/render_look.py) would
# otherwise leak into every later image of the process. Same pixels as omitting them.
LIGHT = {"lightDirection": LIGHT_DIRECTION, "lightColor": (1.0, 1.0, 1.0), "lightDistance": 2.0,
         "lightAmbientCoeff": 0.6, "lightDiffuseCoeff": 0.35, "lightSpecularCoeff": 0.05}


@dataclass(frozen=True)
class FrontCameraConfig:
    """A perspective RGB-D camera in front of the table, facing the robot (the VQA input).

    Seen from it, +y is to the right and +x is towards the camera ("front"). Defaults frame the
    whole workspace at 320x240; every field can be changed for renderer/camera variants.
    """

    width: int = 320
    height: int = 240
    eye: tuple[float, float, float] = (1.10, 0.0, 0.70)  # metres
    target: tuple[float, float, float] = (0.45, 0.0, 0.0)
    up: tuple[float, float, float] = (0.0, 0.0, 1.0)
    fov_deg: float = 62.0  # vertical field of view (degrees)
    near: float = 0.05
    far: float = 4.0

    def view_matrix(self) -> np.ndarray:
        """(4, 4) world -> camera (OpenGL convention, camera looks down -z)."""
        flat = pb.computeViewMatrix(self.eye, self.target, self.up)
        return np.asarray(flat, dtype=float).reshape(4, 4).T

    def projection_matrix(self) -> np.ndarray:
        """(4, 4) camera -> clip space."""
        flat = pb.computeProjectionMatrixFOV(self.fov_deg, self.width / self.height, self.near,
                                             self.far)
        return np.asarray(flat, dtype=float).reshape(4, 4).T

    def project(self, points: np.ndarray) -> np.ndarray:
        """World points (N, 3) metres -> (N, 3) of (u px, v px, depth m along the view axis)."""
        pts = np.concatenate([np.asarray(points, float), np.ones((len(points), 1))], axis=1)
        cam = pts @ self.view_matrix().T
        clip = cam @ self.projection_matrix().T
        ndc = clip[:, :3] / clip[:, 3:4]
        u = (ndc[:, 0] + 1.0) / 2.0 * self.width
        v = (1.0 - ndc[:, 1]) / 2.0 * self.height
        return np.stack([u, v, -cam[:, 2]], axis=1)


@dataclass
class FrontImage:
    rgb: np.ndarray  # (H, W, 3) uint8
    depth: np.ndarray  # (H, W) float32 metres along the view axis
    segmentation: np.ndarray  # (H, W) int32 PyBullet body id, -1 for background


@dataclass
class Heightmap:
    color: np.ndarray  # (320, 160, 3) uint8, row = y, col = x
    height: np.ndarray  # (320, 160) float32 metres above the table


def image_footprint(client: int, body: int, config: FrontCameraConfig
                    ) -> tuple[tuple[int, int, int, int], tuple[float, float, float]]:
    """(pixel box (u0, v0, u1, v1) px of the body's world AABB, clipped to the image;
    CLEVR pixel_coords (u px, v px, depth m) of its origin) as `config` sees them."""
    pos, _ = pb.getBasePositionAndOrientation(body, physicsClientId=client)
    lo, hi = pb.getAABB(body, physicsClientId=client)
    corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                        for z in (lo[2], hi[2])])  # (8, 3) metres
    uvd = config.project(np.vstack([corners, pos]))  # (9, 3): u px, v px, depth m
    size = (config.width - 1, config.height - 1)
    u0, v0 = np.clip(uvd[:8, :2].min(0), 0, size)
    u1, v1 = np.clip(uvd[:8, :2].max(0), 0, size)
    box = (int(u0), int(v0), int(np.ceil(u1)), int(np.ceil(v1)))
    return box, tuple(round(float(v), 3) for v in uvd[8])


def render_front(client: int, config: FrontCameraConfig) -> FrontImage:
    """Render the front camera (no shadows: 5-10x cheaper, and shadows confuse colors)."""
    flat_view = config.view_matrix().T.reshape(-1).tolist()
    flat_proj = config.projection_matrix().T.reshape(-1).tolist()
    _, _, rgba, depth, seg = pb.getCameraImage(
        config.width, config.height, flat_view, flat_proj, shadow=0, **LIGHT,
        renderer=pb.ER_TINY_RENDERER, physicsClientId=client,
    )
    shape = (config.height, config.width)
    rgb = np.asarray(rgba, dtype=np.uint8).reshape(*shape, 4)[..., :3]
    z = _linear_depth(np.asarray(depth, np.float32).reshape(shape), flat_proj)
    return FrontImage(rgb.copy(), z, np.asarray(seg, np.int32).reshape(shape))


def render_heightmap(client: int) -> Heightmap:
    """Top-down orthographic render of the workspace into (320, 160) color and height."""
    rows, cols = HEIGHTMAP_SHAPE
    cx = float(BOUNDS[0].mean())
    half_x = (BOUNDS[0, 1] - BOUNDS[0, 0]) / 2  # 0.25 m across the 160 columns
    half_y = (BOUNDS[1, 1] - BOUNDS[1, 0]) / 2  # 0.5 m across the 320 rows
    near, far = 0.1, 2.0
    # Looking down with image-up = -y puts y along rows (increasing downwards) and x along
    # columns mirrored; the flip below restores x increasing with the column.
    view = pb.computeViewMatrix((cx, 0.0, TOP_CAMERA_HEIGHT), (cx, 0.0, 0.0), (0.0, -1.0, 0.0))
    proj = _orthographic(-half_x, half_x, -half_y, half_y, near, far)
    _, _, rgba, depth, _ = pb.getCameraImage(
        cols, rows, view, proj, shadow=0, **LIGHT, renderer=pb.ER_TINY_RENDERER,
        flags=pb.ER_NO_SEGMENTATION_MASK, physicsClientId=client,
    )
    color = np.asarray(rgba, np.uint8).reshape(rows, cols, 4)[:, ::-1, :3]
    dist = _linear_depth(np.asarray(depth, np.float32).reshape(rows, cols), proj)[:, ::-1]
    height = np.clip(TOP_CAMERA_HEIGHT - dist, 0.0, None).astype(np.float32)
    height[height < 1e-4] = 0.0  # the table top renders at exactly 0 up to float error
    return Heightmap(np.ascontiguousarray(color), np.ascontiguousarray(height))


def _orthographic(left: float, right: float, bottom: float, top: float, near: float,
                  far: float) -> list[float]:
    """OpenGL orthographic projection, column-major flat list as PyBullet expects."""
    m = np.array([
        [2 / (right - left), 0, 0, -(right + left) / (right - left)],
        [0, 2 / (top - bottom), 0, -(top + bottom) / (top - bottom)],
        [0, 0, -2 / (far - near), -(far + near) / (far - near)],
        [0, 0, 0, 1],
    ])
    return m.T.reshape(-1).tolist()


def _linear_depth(buffer: np.ndarray, flat_proj: list[float]) -> np.ndarray:
    """Depth-buffer values -> metres along the view axis.

    TinyRenderer writes d = f'(1 - n'/z) / (f' - n') with n', f' recovered from the matrix as
    n' = P23 / (P22 - 1), f' = P23 / (P22 + 1) (true near/far for a perspective matrix, stand-ins
    for an orthographic one); inverting that gives z for both kinds.
    """
    p22, p23 = flat_proj[10], flat_proj[14]
    n, f = p23 / (p22 - 1.0), p23 / (p22 + 1.0)
    return (f * n / (f - (f - n) * buffer)).astype(np.float32)
