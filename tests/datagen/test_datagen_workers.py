"""Parallel workers (spawn) make exactly what one process makes."""

from __future__ import annotations

import json

import pytest

from datagen import generate

ARGS = {"splits": ["block_stack", "cogent_b"], "images_per_split": 4, "questions_per_image": 5,
        "shard_size": 2, "progress": False}


@pytest.mark.slow
def test_two_workers_write_the_same_dataset_as_one(tmp_path):
    one = generate(tmp_path / "one", workers=1, **ARGS)
    two = generate(tmp_path / "two", workers=2, **ARGS)
    assert one["run"]["shards_made"] == two["run"]["shards_made"] == 4
    for split in ARGS["splits"]:
        for name in ("questions.json", "scenes.json"):
            a = json.loads((tmp_path / "one" / split / name).read_text())
            b = json.loads((tmp_path / "two" / split / name).read_text())
            assert a == b
        for png in sorted((tmp_path / "one" / split / "images").iterdir()):
            assert png.read_bytes() == (tmp_path / "two" / split / "images" / png.name).read_bytes()
