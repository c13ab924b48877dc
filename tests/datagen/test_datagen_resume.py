"""Resumption: existing shards are kept, missing ones made, a crash's leftovers removed."""

from __future__ import annotations

import json
import shutil

import pytest

import datagen.writer as writer
from datagen import generate

ARGS = {"splits": ["global_table"], "images_per_split": 2, "questions_per_image": 3,
        "shard_size": 1, "progress": False}


def _shard(out, n):
    return out / "shards" / "global_table" / f"shard-{n:05d}"


def test_rerun_makes_only_the_missing_shard_and_removes_a_crash_leftover(tmp_path):
    first = generate(tmp_path, **ARGS)
    assert first["run"]["shards_made"] == 2
    kept = (_shard(tmp_path, 0) / "shard.json").stat().st_mtime_ns
    rows_before = json.loads((tmp_path / "global_table" / "questions.json").read_text())
    shutil.rmtree(_shard(tmp_path, 1))
    leftover = _shard(tmp_path, 0).parent / ".shard-00001.tmp-4242"
    (leftover / "questions").mkdir(parents=True)  # what a crash mid-write leaves

    second = generate(tmp_path, **ARGS)
    assert second["run"] == {**second["run"], "shards_made": 1, "shards_skipped": 1,
                             "temp_dirs_removed": 1}
    assert (_shard(tmp_path, 0) / "shard.json").stat().st_mtime_ns == kept
    assert (_shard(tmp_path, 1) / "shard.json").exists() and not leftover.exists()
    rows_after = json.loads((tmp_path / "global_table" / "questions.json").read_text())
    assert rows_after["questions"] == rows_before["questions"]  # the same shard again

    third = generate(tmp_path, **ARGS)
    assert third["run"]["shards_made"] == 0 and third["run"]["shards_skipped"] == 2


def test_a_write_that_fails_leaves_no_shard_and_the_next_run_finishes(tmp_path, monkeypatch):
    def broken(*args):
        raise OSError("disk full")

    monkeypatch.setattr(writer, "rows_dataset", broken)
    with pytest.raises(OSError, match="disk full"):
        generate(tmp_path, **{**ARGS, "images_per_split": 1})
    family_dir = tmp_path / "shards" / "global_table"
    assert not _shard(tmp_path, 0).exists()
    assert [p.name[:17] for p in family_dir.iterdir()] == [".shard-00000.tmp-"]
    monkeypatch.undo()
    manifest = generate(tmp_path, **{**ARGS, "images_per_split": 1})
    assert manifest["run"]["temp_dirs_removed"] == 1 and _shard(tmp_path, 0).exists()
    assert [p.name for p in family_dir.iterdir()] == ["shard-00000"]


def test_existing_shards_made_with_other_settings_are_refused(tmp_path):
    generate(tmp_path, **{**ARGS, "images_per_split": 1})
    with pytest.raises(ValueError, match="was made with other settings"):
        generate(tmp_path, **{**ARGS, "images_per_split": 1, "questions_per_image": 4})
    with pytest.raises(ValueError, match="other settings"):
        generate(tmp_path, **{**ARGS, "images_per_split": 1, "variant": "hires"})
