"""Detection figures for the detector: the learning curve's numbers.

A ground-truth object (visible, >= 20 px) is found when a detection with its name lies within
`MATCH_PX` of its projected centre. Reported: recall, precision (detections that match some
visible object — a detection of a barely visible object counts as neither right nor wrong),
and the median world-position error (cm) of the matches after back-projection; the recall of
stacked blocks (the hard case) and, with a level head, the blocks' support-level accuracy.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from training.detector.data import SceneImages
from vrs.detector.decode import decode_maps, unique_by_name
from vrs.detector.model import DetectorNet

MATCH_PX = 8.0  # input pixels
STACKED_Z = 0.04  # metres: a block whose centre is higher rests on another block


@torch.no_grad()
def detection_metrics(model: DetectorNet, data: SceneImages, batch_size: int = 32) -> dict:
    """{'recall', 'precision', 'xyz_err_cm', 'z_err_cm'} over every image of `data`."""
    model.eval()
    config = model.config
    device = next(model.parameters()).device
    tp = fp = fn = 0
    errors, z_errors, stacked, levels = [], [], [], []
    for lo in range(0, len(data), batch_size):
        idx = list(range(lo, min(lo + batch_size, len(data))))
        maps = model(data.images[idx].float().to(device)).cpu()
        for i, dets in zip(idx, decode_maps(maps, config), strict=True):
            stats = _match_scene(unique_by_name(dets), data.scenes[i], data.sizes[i], config)
            tp, fp, fn = tp + stats[0], fp + stats[1], fn + stats[2]
            errors += stats[3]
            z_errors += stats[4]
            stacked += stats[5]
            levels += stats[6]
    return {"recall": round(tp / max(tp + fn, 1), 4), "precision": round(tp / max(tp + fp, 1), 4),
            "xyz_err_cm": round(float(np.median(errors)) * 100, 2) if errors else None,
            "z_err_cm": round(float(np.median(z_errors)) * 100, 2) if z_errors else None,
            "stacked_recall": round(float(np.mean(stacked)), 4) if stacked else None,
            "level_acc": round(float(np.mean(levels)), 4) if levels else None}


def _match_scene(dets: list, scene: dict, size: tuple[int, int], config) -> tuple:
    """(tp, fp, fn, xyz errors m, z errors m, stacked blocks found (bools), block levels right
    (bools)) for one image."""
    sx, sy = config.width / size[0], config.height / size[1]
    objects = {o["name"]: o for o in scene["objects"]}
    tp = fp = 0
    errors, z_errors, levels = [], [], []
    matched = set()
    xyz = config.camera.unproject_to_height(np.array([(d.u, d.v) for d in dets]).reshape(-1, 2),
                                            np.array([d.z for d in dets]))
    for d, p in zip(dets, xyz, strict=True):
        o = objects.get(d.name)
        if o is None or o["visible_pixels"] < 20:
            fp += o is None
            continue
        u, v = o["pixel_coords"][0] * sx, o["pixel_coords"][1] * sy
        if math.hypot(d.u - u, d.v - v) <= MATCH_PX:
            tp += 1
            matched.add(d.name)
            errors.append(math.dist(p, o["3d_coords"]))
            z_errors.append(abs(d.z - o["3d_coords"][2]))
            if d.level is not None and o["type"] == "block":
                levels.append(d.level == config.level_of(o["3d_coords"][2]))
        else:
            fp += 1
    seen = {n: o for n, o in objects.items() if o["visible_pixels"] >= 20}
    fn = sum(1 for n in seen if n not in matched)
    stacked = [n in matched for n, o in seen.items()
               if o["type"] == "block" and o["3d_coords"][2] > STACKED_Z]
    return tp, fp, fn, errors, z_errors, stacked, levels
