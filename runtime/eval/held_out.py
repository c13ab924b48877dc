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

from datagen.seed_ranges import seed_ranges, shared_seeds


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


def held_out_report(checkpoint_dir: Path, data_dir: Path) -> dict:
    """{"held_out": True/False/None, "overlaps": [...], "unchecked": [...]}: False when the
    evaluation data shares shard seeds with a training or tuning dir, None when nothing could
    be checked (no record, or none of the recorded dirs on this machine)."""
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
    return {"held_out": verdict, "overlaps": overlaps, "unchecked": unchecked}


def describe_overlaps(data_dir: Path, model: str, report: dict) -> list[str]:
    """One warning line per shared seed range (empty when held out)."""
    return [f"warning: {data_dir} is not held out from {model}: its {o['family']} scenes "
            f"(shard seeds {o['seeds'][0]}-{o['seeds'][1]}) are in its {o['use']} data "
            f"{o['data']}" for o in report["overlaps"]]
