"""Which scenes two datasets share, read from their shard seeds.

Why: a scene is a function of its shard seed alone (`seed_base + seed_offset + shard index`,
see datagen/shards.py), whatever the camera variant or renderer draws it. So datasets made at
nearby `--seed-offset`s can share scenes without any file in common: an extra training set made
at the jitter set's offset would turn the "held-out camera" figure into a seen-scene one.
`generate` warns when a new dataset would share seeds with a sibling dir, and `codeplan eval
vqa` checks the evaluation data against the checkpoint's training and tuning dirs
(runtime/eval/held_out.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from datagen.shards import ShardJob

Ranges = dict[str, tuple[int, int]]  # family -> (first, last) shard seed


def seed_ranges(data_dir: Path) -> Ranges | None:
    """The shard-seed range of each family of a datagen output; None without a readable
    manifest (missing, not JSON, or not datagen's layout): unknown, never "no overlap"."""
    manifest = Path(data_dir) / "manifest.json"
    try:
        families = json.loads(manifest.read_text())["families"]
        return {name: (int(f["shard_seeds"][0]), int(f["shard_seeds"][-1]))
                for name, f in families.items()}
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None


def job_ranges(jobs: Sequence[ShardJob]) -> Ranges:
    """The shard-seed range of each family of a planned run."""
    out: Ranges = {}
    for job in jobs:
        lo, hi = out.get(job.family, (job.shard_seed, job.shard_seed))
        out[job.family] = (min(lo, job.shard_seed), max(hi, job.shard_seed))
    return out


def shared_seeds(a: Ranges, b: Ranges) -> Ranges:
    """family -> the shard seeds both drew scenes from. Families match by the seed itself:
    their seed bases sit 1e9 apart, so an equal seed means the same family."""
    out = {}
    for name, (lo_a, hi_a) in a.items():
        for lo_b, hi_b in b.values():
            lo, hi = max(lo_a, lo_b), min(hi_a, hi_b)
            if lo <= hi:
                out[name] = (lo, hi)
    return out


def sibling_overlaps(out: Path, jobs: Sequence[ShardJob]) -> list[str]:
    """One line per dataset beside `out` (same parent dir) whose scenes the planned run
    would repeat; `out` itself (a resumed run) is not a sibling."""
    out = Path(out).resolve()
    mine, lines = job_ranges(jobs), []
    siblings = {m.parent.resolve() for m in out.parent.glob("*/manifest.json")}  # links: once
    for sibling in sorted(siblings - {out}):
        shared = shared_seeds(mine, seed_ranges(sibling) or {})
        lines += [f"{out.name} would repeat the {name} scenes of {sibling} (shard seeds "
                  f"{lo}-{hi}); pick a --seed-offset no other dataset uses"
                  for name, (lo, hi) in sorted(shared.items())]
    return lines
