"""Shared fixtures of the data generator's tests: one small dataset made once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

SMALL_SPLITS = ["block_bowl", "unseen", "cogent_a"]


@pytest.fixture(scope="session")
def small_run(tmp_path_factory) -> tuple[Path, dict]:
    """(out dir, manifest) of 4 images x 8 questions per split, 2 shards per split (~4 s)."""
    from datagen import generate

    out = tmp_path_factory.mktemp("vqa")
    manifest = generate(out, SMALL_SPLITS, images_per_split=4, questions_per_image=8,
                        shard_size=2, progress=False)
    return out, manifest
