"""Is an evaluation set really held out from what a checkpoint was trained and tuned on?

Why: every VQA dataset here is `codeplan datagen vqa` at some `--seed-offset`, and a scene is
a function of its shard seed alone (`seed_base + seed_offset + shard index`), whatever the
camera variant or renderer. Two datasets whose shard seeds meet share scenes: an extra
training set made at the jitter set's offset would silently turn the "held-out camera" number
into a seen-scene number. The manifests record each family's shard-seed range and the
checkpoint's config.json records the dirs it was trained on (`training.spec.data`, or
`training.data` in checkpoints written before `training.loop`) and tuned on
(`training.tuned.data`), so `codeplan eval vqa` checks them and says so before anyone
publishes a figure. The seed arithmetic lives in datagen/seed_ranges.py.
"""

from __future__ import annotations

import json
from pathlib import Path

from datagen.held_out_looks import HELD_OUT_DRAWS
from datagen.seed_ranges import seed_ranges, shared_seeds

# Looks kept out of every training mixture (datagen/held_out_looks.py): a model that saw one
# of them gives no transfer figure on it.
HELD_OUT_LOOKS = tuple(HELD_OUT_DRAWS)


def used_data(checkpoint_dir: Path) -> list[tuple[str, Path]]:
    """(use, dir) pairs a checkpoint's config.json says it was trained ("training") or had
    its settings chosen ("tuning") on; empty when it records none."""
    config = json.loads((Path(checkpoint_dir) / "config.json").read_text())
    training = config.get("training") if isinstance(config.get("training"), dict) else {}
    spec = training.get("spec") if isinstance(training.get("spec"), dict) else {}
    # `training.loop` records the run's options under "spec"; older detector checkpoints
    # (the shipped one) have them at the top of the record.
    pairs = [("training", Path(d)) for d in training.get("data") or spec.get("data") or []]
    tuned = training.get("tuned") if isinstance(training.get("tuned"), dict) else {}
    if tuned.get("data"):
        pairs.append(("tuning", Path(tuned["data"])))
    return pairs


def look_of(data_dir: Path) -> tuple[str, str] | None:
    """(renderer, variant) of a datagen output, from its manifest; None when unreadable."""
    try:
        settings = json.loads((Path(data_dir) / "manifest.json").read_text())["settings"]
        return str(settings.get("renderer", "pybullet")), str(settings.get("variant", "default"))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def look_report(checkpoint_dir: Path, data_dir: Path) -> dict:
    """{"renderer", "variant", "seen": True/False/None}: whether any training dir of the
    checkpoint was drawn in the evaluation data's look (renderer and variant). A held-out look
    (the `foreign` variant, Blender) is only a transfer figure while "seen" is False."""
    mine = look_of(data_dir)
    if mine is None:
        return {"renderer": None, "variant": None, "seen": None}
    trained = [look_of(p) for use, p in used_data(checkpoint_dir) if use == "training"]
    known = [t for t in trained if t is not None]
    seen = (mine in known) if known else None
    return {"renderer": mine[0], "variant": mine[1], "seen": seen}


def held_out_report(checkpoint_dir: Path, data_dir: Path) -> dict:
    """{"held_out": True/False/None, "overlaps": [...], "unchecked": [...], "look": {...}}:
    False when the evaluation data shares shard seeds with a training or tuning dir, None when
    nothing could be checked (no record, or none of the recorded dirs on this machine);
    "look" says whether the data's renderer and variant were in training (`look_report`)."""
    mine = seed_ranges(data_dir)
    overlaps, unchecked, checked = [], [], 0
    for use, path in used_data(checkpoint_dir):
        theirs = seed_ranges(path)
        if mine is None or theirs is None:
            unchecked.append(str(path))
            continue
        checked += 1
        overlaps += [{"use": use, "data": str(path), "family": name, "seeds": list(seeds)}
                     for name, seeds in sorted(shared_seeds(mine, theirs).items())]
    verdict = False if overlaps else (True if checked else None)
    return {"held_out": verdict, "overlaps": overlaps, "unchecked": unchecked,
            "look": look_report(checkpoint_dir, data_dir)}


def describe_overlaps(data_dir: Path, model: str, report: dict) -> list[str]:
    """One warning line per shared seed range, and one when a held-out look (`HELD_OUT_LOOKS`,
    or the Blender renderer) was in training (empty when held out)."""
    look = report.get("look") or {}
    seen_look = ([f"warning: {data_dir} is drawn in a look {model} was trained on "
                  f"({look['renderer']}, {look['variant']}): not a transfer figure"]
                 if look.get("seen") and (look.get("variant") in HELD_OUT_LOOKS
                                          or look.get("renderer") == "blender") else [])
    return seen_look + [
        f"warning: {data_dir} is not held out from {model}: its {o['family']} scenes "
        f"(shard seeds {o['seeds'][0]}-{o['seeds'][1]}) are in its {o['use']} data "
        f"{o['data']}" for o in report["overlaps"]]
