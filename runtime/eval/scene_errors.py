"""`codeplan eval scene-errors`: what a detector-style reasoner gets wrong in the scene it parses.

Why a command: VQA accuracy says how often answers are wrong, not why. Every perception change
since issue 27's stage 9 was chosen from a count of a detector's parsed scenes against the
generator's scene JSON (false blocks on the bare table, near a bowl, beside a block; blocks
missed or read under another colour's name), each written ad hoc. This makes that count one
command, so the reading behind a choice can be repeated.

Per image, the parsed scene's blocks are compared by name with the ground truth's blocks (names
are unique in a scene: "red block"); a parsed block whose name is not in the truth is *false*
and is placed by the nearest true object to it in the image (within `NEAR_PX`): on the bare
table, at a block, at a bowl of its own colour, at another bowl, at the stand. A true block
whose name is not in the parse is *missed*, and *seen under another colour* when a parsed block
stands within `SAME_PX` of it. Pixel positions are the model's input pixels (the ground truth's
are scaled to them).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np

from common.stats import wilson_interval
from ravens_env.scene_graph import Scene

NEAR_PX = 12.0  # a false block this close to a true object is "at" it (a block is ~16 px wide)
SAME_PX = 10.0  # a parsed block this close to a missed one is that block, misnamed
PLACES = ("bare table", "at a block", "at a bowl of its colour", "at another bowl", "at the stand")


def image_errors(truth: list[dict], parsed: Scene, scale: float = 1.0) -> dict:
    """The counts for one image: `truth` is the scene JSON's objects (name, type, color,
    pixel_coords), `parsed` the reasoner's scene, `scale` model pixels per image pixel."""
    true_names = {o["name"] for o in truth}
    true_blocks = [o for o in truth if o["type"] == "block"]
    blocks = [o for o in parsed.objects if o.type == "block"]
    out: Counter = Counter(images=1, true_blocks=len(true_blocks), parsed_blocks=len(blocks),
                           exact_count=int(len(blocks) == len(true_blocks)))
    for o in blocks:
        if o.name not in true_names:
            out["false: " + _place(o, truth, scale)] += 1
    parsed_names = {o.name for o in parsed.objects}
    for t in true_blocks:
        colour = t["color"] + (" (dark)" if t.get("shade") == "dark" else "")
        out[f"blocks: {colour}"] += 1
        if t["name"] in parsed_names:
            continue
        out[f"missed: {colour}"] += 1
        if any(_distance(o, t, scale) < SAME_PX for o in blocks):
            out["missed: seen under another colour"] += 1
    return dict(out)


def _distance(parsed_obj, true_obj: dict, scale: float) -> float:
    u, v = parsed_obj.pixel_coords[:2]
    tu, tv = true_obj["pixel_coords"][:2]
    return float(np.hypot(u - tu * scale, v - tv * scale))


def _place(obj, truth: list[dict], scale: float) -> str:
    """Where a false block stands: by the nearest true object within NEAR_PX."""
    near = [(d, t) for t in truth if (d := _distance(obj, t, scale)) < NEAR_PX]
    if not near:
        return PLACES[0]
    _, t = min(near, key=lambda pair: pair[0])
    if t["type"] == "block":
        return PLACES[1]
    if t["type"] == "bowl":
        return PLACES[2] if t["color"] == obj.color else PLACES[3]
    return PLACES[4]


def scene_errors(reasoner, data: Path, images_per_split: int | None = None) -> dict:
    """The counts summed over a `codeplan datagen vqa` output's splits (each split's
    `scenes.json` and `images/`), with the exact-count rate and its 95% interval."""
    from PIL import Image

    if not hasattr(reasoner, "parse_many"):
        raise ValueError(f"scene-errors reads the scene a detector-style reasoner parses; "
                         f"{getattr(reasoner, 'name', reasoner)!r} parses none")
    splits = sorted(p.parent for p in Path(data).glob("*/scenes.json"))
    if not splits:
        raise ValueError(f"{data}: no <split>/scenes.json (a `codeplan datagen vqa` output?)")
    total: Counter = Counter()
    width = reasoner.config.width
    for split in splits:
        scenes = json.loads((split / "scenes.json").read_text())["scenes"][:images_per_split]
        for scene in scenes:
            image = np.asarray(Image.open(split / "images" / scene["image_filename"])
                               .convert("RGB"))
            parsed, _ = reasoner.parse_many([image])[0]
            total.update(image_errors(scene["objects"], parsed, width / image.shape[1]))
    return summarise(total)


def summarise(total: Counter) -> dict:
    """Totals, false blocks per place, misses per colour and the exact-count rate."""
    n, exact = total["images"], total["exact_count"]
    colours = sorted(k.split(": ", 1)[1] for k in total if k.startswith("blocks: "))
    return {
        "images": n, "true_blocks": total["true_blocks"], "parsed_blocks": total["parsed_blocks"],
        "exact_count": {"n": exact, "rate": exact / n if n else 0.0,
                        "ci95": list(wilson_interval(exact, n))},
        "false_blocks": {p: total[f"false: {p}"] for p in PLACES},
        "missed_blocks": sum(total[f"missed: {c}"] for c in colours),
        "missed_seen_under_another_colour": total["missed: seen under another colour"],
        "missed_by_colour": {c: [total[f"missed: {c}"], total[f"blocks: {c}"]] for c in colours},
    }


def format_errors(model: str, result: dict) -> str:
    """A short markdown report of one model's counts."""
    exact = result["exact_count"]
    lo, hi = exact["ci95"]
    lines = [f"### {model}: {result['images']} images, {result['true_blocks']} true blocks, "
             f"{result['parsed_blocks']} parsed",
             f"- block count exactly right: {exact['n']} = {exact['rate'] * 100:.1f}% "
             f"[{lo * 100:.1f}-{hi * 100:.1f}]",
             "- false blocks: " + ", ".join(f"{p} {k}" for p, k in
                                           result["false_blocks"].items()),
             f"- missed blocks: {result['missed_blocks']} "
             f"({result['missed_seen_under_another_colour']} seen under another colour)",
             "- missed by colour: " + ", ".join(
                 f"{c} {m}/{t}" for c, (m, t) in sorted(
                     result["missed_by_colour"].items(), key=lambda kv: -kv[1][0]) if m)]
    return "\n".join(lines)
