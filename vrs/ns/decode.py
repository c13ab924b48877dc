"""From the detector's maps to a list of detections, and from detections to a Scene.

Peaks are local maxima of each type's heatmap above the threshold (a 3x3 max-pool, as in
CenterNet, instead of box NMS). Each peak's centre pixel is cast onto the horizontal plane at
its predicted height through the configured camera, giving a world position; the symbolic
scene is then built with the simulator's own relation rules (`compute_relations`), so "in",
"on" and the directions mean exactly what they mean in the ground truth.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from ravens_env.scene_graph import Scene, SceneObject, compute_relations
from vrs.ns.config import NsConfig
from vrs.ns.support import resolve_stacks

STAND = "stand"


@dataclass(frozen=True)
class Detection:
    """One detected object; `u, v` input-image pixels, `z` metres, `score` 0-1."""

    type: str
    color: str
    u: float
    v: float
    z: float
    score: float
    color_score: float
    level: int | None = None  # support level, from a detector with a level head

    @property
    def name(self) -> str:
        """The scene's naming rule: "red block", "blue bowl", and the one "stand"."""
        return STAND if self.type == STAND else f"{self.color} {self.type}"


def decode_maps(maps: torch.Tensor, config: NsConfig) -> list[list[Detection]]:
    """(B, out_channels, R, C) raw detector output -> detections per image."""
    lay = config.head_layout()
    t, c = len(config.types), len(config.colors)
    heat = torch.sigmoid(maps[:, lay["heat"]])
    peaks = (heat == F.max_pool2d(heat, 3, 1, 1)) & (heat >= config.threshold)
    b, _, rows, cols = heat.shape
    offset = maps[:, lay["offset"]].view(b, t, 2, rows, cols)
    z = maps[:, lay["z"]] / config.z_scale
    color = torch.softmax(maps[:, lay["color"]].view(b, t, c, rows, cols), dim=2)
    level = (maps[:, lay["level"]].view(b, t, config.levels, rows, cols).argmax(2)
             if config.levels else None)  # (B, T, R, C)
    out: list[list[Detection]] = [[] for _ in range(b)]
    for i, ti, r, col in peaks.nonzero().tolist():
        p, k = color[i, ti, :, r, col].max(0)
        dx, dy = offset[i, ti, :, r, col].tolist()
        out[i].append(Detection(config.types[ti], config.colors[int(k)],
                                (col + dx) * config.stride, (r + dy) * config.stride,
                                float(z[i, ti, r, col]), float(heat[i, ti, r, col]), float(p),
                                None if level is None else int(level[i, ti, r, col])))
    return out


def unique_by_name(detections: list[Detection]) -> list[Detection]:
    """Names are unique in a scene: keep the most confident detection of each name."""
    best: dict[str, Detection] = {}
    for d in sorted(detections, key=lambda d: -d.score):
        best.setdefault(d.name, d)
    return sorted(best.values(), key=lambda d: d.name)


def scene_from_detections(detections: list[Detection], config: NsConfig) -> Scene:
    """The symbolic scene: world positions by back-projection (blocks that would share space
    are stacked, `support.resolve_stacks`), relations by the scene rules."""
    dets = unique_by_name(detections)
    if not dets:
        return Scene([], [])
    uv = np.array([(d.u, d.v) for d in dets])
    levels = None if dets[0].level is None else np.array([d.level for d in dets])
    xyz = resolve_stacks(uv, np.array([d.z for d in dets]),
                         np.array([d.type == "block" for d in dets]), config.camera, levels)
    objects = [SceneObject(d.name, d.type, d.color, tuple(float(a) for a in p),
                           pixel_coords=(d.u, d.v, 0.0), visible_pixels=20)
               for d, p in zip(dets, xyz, strict=True)]
    return Scene(objects, compute_relations(objects))
