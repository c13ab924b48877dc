"""datagen.seed_ranges: a new dataset that would repeat a sibling's scenes is flagged, under
any camera variant, and a disjoint one or a resumed run is not."""

from __future__ import annotations

import warnings

import pytest

from datagen import generate
from datagen.seed_ranges import job_ranges, seed_ranges
from datagen.shards import plan_jobs

SPLIT = ["block_bowl"]


def _make(out, offset, variant="default"):
    return generate(out, SPLIT, images_per_split=2, questions_per_image=2, shard_size=1,
                    seed_offset=offset, variant=variant, progress=False)


def test_planned_ranges_match_the_written_manifest(tmp_path):
    _make(tmp_path / "a", 0)
    jobs = plan_jobs(SPLIT, 2, 1, 2, 0, "default")
    assert seed_ranges(tmp_path / "a") == job_ranges(jobs)


def test_a_sibling_at_an_overlapping_offset_is_warned_about_even_under_another_camera(tmp_path):
    _make(tmp_path / "train", 0)
    with pytest.warns(UserWarning, match=r"would repeat the block_bowl scenes of .*train"):
        _make(tmp_path / "jitter", 1, variant="jitter")


def test_disjoint_seeds_and_a_resumed_run_are_quiet(tmp_path):
    _make(tmp_path / "train", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _make(tmp_path / "val", 50)
        _make(tmp_path / "train", 0)  # finishing or re-running itself


def test_a_link_to_the_output_dir_is_not_a_sibling(tmp_path):
    _make(tmp_path / "train", 0)
    (tmp_path / "latest").symlink_to(tmp_path / "train")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _make(tmp_path / "train", 0)


@pytest.mark.parametrize("text", ["{not json", "[]", '{"families": {"block_bowl": {}}}'])
def test_an_unreadable_manifest_is_unknown_and_does_not_stop_generation(tmp_path, text):
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "manifest.json").write_text(text)
    assert seed_ranges(tmp_path / "broken") is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _make(tmp_path / "train", 0)
