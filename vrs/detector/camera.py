"""A pinhole camera in numpy: project world points and cast pixels back onto horizontal planes.

Why not `ravens_env.cameras`: that module needs PyBullet for its matrices, and the reasoner runs
in places that never load the simulator (the HTTP service, `codeplan ask`). The conventions are
the same (OpenGL look-at, vertical field of view) and a test checks both agree to 1e-6 px.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class PinholeCamera:
    """Look-at camera; (u, v) pixels with v down, like the simulator's front camera."""

    width: int = 320
    height: int = 240
    eye: tuple[float, float, float] = (1.10, 0.0, 0.70)  # metres
    target: tuple[float, float, float] = (0.45, 0.0, 0.0)
    up: tuple[float, float, float] = (0.0, 0.0, 1.0)
    fov_deg: float = 62.0  # vertical

    def to_dict(self) -> dict:
        """Plain fields for a checkpoint's config.json (the detector config's "camera")."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> PinholeCamera:
        """Inverse of `to_dict` (lists become tuples)."""
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})

    def _axes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(forward, right, true up) unit vectors in the world frame (computed once: the
        reasoner casts a few pixels per block, and np.cross dominated that cost)."""
        return self._frame

    @cached_property
    def _frame(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        f = np.subtract(self.target, self.eye, dtype=float)
        f /= np.linalg.norm(f)
        s = np.cross(f, self.up)
        s /= np.linalg.norm(s)
        return f, s, np.cross(s, f)

    def _tan(self) -> tuple[float, float]:
        """Half-extents of the image plane at unit depth: (horizontal, vertical)."""
        ty = float(np.tan(np.radians(self.fov_deg) / 2))
        return ty * self.width / self.height, ty

    def project(self, points: np.ndarray) -> np.ndarray:
        """World points (N, 3) metres -> (N, 3) of (u px, v px, depth m along the view axis)."""
        f, s, u = self._axes()
        rel = np.asarray(points, float) - np.asarray(self.eye)
        depth = rel @ f
        tx, ty = self._tan()
        ndc_x = (rel @ s) / depth / tx
        ndc_y = (rel @ u) / depth / ty
        return np.stack([(ndc_x + 1) / 2 * self.width, (1 - ndc_y) / 2 * self.height, depth], 1)

    def unproject_to_height(self, uv: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Pixels (N, 2) and heights (N,) metres -> world points (N, 3) where each pixel's ray
        meets the horizontal plane at that height (the object's centre plane)."""
        uv = np.asarray(uv, float).reshape(-1, 2)
        f, s, u = self._axes()
        tx, ty = self._tan()
        ndc_x = uv[:, 0] / self.width * 2 - 1
        ndc_y = 1 - uv[:, 1] / self.height * 2
        rays = f + ndc_x[:, None] * tx * s + ndc_y[:, None] * ty * u  # (N, 3)
        t = (np.asarray(z, float).reshape(-1) - self.eye[2]) / rays[:, 2]
        return np.asarray(self.eye) + t[:, None] * rays
