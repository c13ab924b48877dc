"""Physical support for the parsed scene: every block rests on the table, in a bowl, or on
other blocks.

Why: a single image cannot tell a block on another from one just behind it on the table, and
cast at the wrong height a stacked block's centre lands 4-5 cm behind the block under it, so
"on" is lost. The detector says *whether* a block is raised — its support-level class when it
has a level head, else its height regression (`RAISED`; that head under-predicts stacks:
median error -0.9 cm one block up, -4.4 cm two up, on the validation scenes) — and geometry
says *onto what*, as NS-VQA-style parsers use scene priors.

Blocks are settled from the bottom of the image up (a block on another projects above it in
this camera, which looks down at ~47 degrees). A raised block goes onto the settled block
whose top its pixel ray passes closest to, one level higher; a block whose cast at its own
height would sit inside a settled block at the same level is lifted onto it as well; a raised
block with nothing under it keeps its level's height.
"""

from __future__ import annotations

import math

import numpy as np

from ravens_env.dimensions import BLOCK_SIZE
from vrs.detector.camera import PinholeCamera
from vrs.detector.config import LEVEL0_Z

RAISED = 0.038  # metres: a predicted centre above this is on something (table: 0.02)
ON_TOLERANCE = 0.03  # metres: max xy offset from a supporting block (scene_graph.ON_XY)
OVERLAP = BLOCK_SIZE  # metres: closer centres (xy) at one level would interpenetrate
SAME_LEVEL = 0.03  # metres: centre heights closer than this are one level


def resolve_stacks(uv: np.ndarray, z: np.ndarray, is_block: np.ndarray,
                   camera: PinholeCamera, levels: np.ndarray | None = None) -> np.ndarray:
    """World centres (N, 3) metres from pixels (N, 2), predicted heights (N,) metres and, from
    a detector with a level head, support levels (N,)."""
    z = np.asarray(z, float).copy()
    raised = z > RAISED if levels is None else np.asarray(levels) > 0
    if levels is not None:  # a raised block's height is its level's until a support is found
        z = np.where(raised, LEVEL0_Z + BLOCK_SIZE * np.asarray(levels), z)
    xyz = camera.unproject_to_height(uv, z)
    settled: list[int] = []
    for a in sorted((i for i in range(len(z)) if is_block[i]), key=lambda i: -uv[i, 1]):
        support = _support(a, bool(raised[a]), uv, z, xyz, settled, camera)
        if support is not None:
            z[a] = z[support] + BLOCK_SIZE
            xyz[a] = camera.unproject_to_height(uv[a:a + 1], z[a:a + 1])[0]
        settled.append(a)
    return xyz


def _support(a: int, raised: bool, uv: np.ndarray, z: np.ndarray, xyz: np.ndarray,
             settled: list[int], camera: PinholeCamera) -> int | None:
    """The settled block `a` rests on, or None (table, bowl, or nothing found under it)."""
    best, best_dist = None, ON_TOLERANCE
    for b in settled:
        if uv[b, 1] <= uv[a, 1]:
            continue
        lifted = camera.unproject_to_height(uv[a:a + 1], [z[b] + BLOCK_SIZE])[0]
        dist = math.dist(lifted[:2], xyz[b, :2])
        inside = abs(z[a] - z[b]) < SAME_LEVEL and math.dist(xyz[a, :2], xyz[b, :2]) < OVERLAP
        if (raised or inside) and dist < best_dist:
            best, best_dist = b, dist
    return best
