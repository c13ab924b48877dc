"""Oracle demonstrations: format, determinism, resumability, and the `datagen demos` command."""

from __future__ import annotations

import argparse
import json
import os

import numpy as np
import pytest

from datagen.cliport_demos import episode_path, generate_demos, load_episode
from ravens_env.cliport.actions import world_to_pixel, yaw_to_bin
from runtime.cli.datagen import add_demos_parser

TASK = "put-blocks-in-matching-bowls"


def test_a_demo_file_holds_images_labels_and_json_metadata(demo_dir):
    path = episode_path(demo_dir, "put-block-in-bowl", 0)
    with np.load(path, allow_pickle=False) as data:  # no pickles anywhere
        assert set(data.files) == {"color", "height", "pick", "place", "yaw_change", "meta"}
    arrays, meta = load_episode(path)
    assert arrays["color"].dtype == np.uint8 and arrays["color"].shape == (1, 320, 160, 3)
    assert arrays["height"].dtype == np.float16 and arrays["height"].shape == (1, 320, 160)
    step = meta["steps"][0]
    assert step["instruction"].startswith("put the ") and meta["success"]
    action = step["action"]
    assert tuple(arrays["pick"][0]) == world_to_pixel(*action["pick"][:2])
    assert tuple(arrays["place"][0]) == world_to_pixel(*action["place"][:2])
    assert step["rotation"] == yaw_to_bin(float(arrays["yaw_change"][0]), 36)
    assert not [p for p in demo_dir.iterdir() if ".tmp" in p.name]


def test_demos_are_deterministic_and_resume_by_redoing_only_what_is_missing(tmp_path):
    first = generate_demos(TASK, 3, tmp_path / "a", seed_start=5, progress=False)
    generate_demos(TASK, 3, tmp_path / "b", seed_start=5, progress=False)
    assert first["made"] == [5, 6, 7] and first["steps"] >= 9
    for seed in (5, 6, 7):
        (a, meta_a), (b, meta_b) = (load_episode(episode_path(tmp_path / d, TASK, seed))
                                    for d in ("a", "b"))
        assert meta_a == meta_b
        assert all(np.array_equal(a[k], b[k]) for k in a)
    kept = {s: episode_path(tmp_path / "a", TASK, s).stat().st_mtime_ns for s in (5, 7)}
    episode_path(tmp_path / "a", TASK, 6).unlink()
    again = generate_demos(TASK, 3, tmp_path / "a", seed_start=5, progress=False)
    assert again["made"] == [6] and again["skipped"] == [5, 7]
    assert {s: episode_path(tmp_path / "a", TASK, s).stat().st_mtime_ns for s in (5, 7)} == kept
    redone, _ = load_episode(episode_path(tmp_path / "a", TASK, 6))
    original, _ = load_episode(episode_path(tmp_path / "b", TASK, 6))
    assert np.array_equal(redone["color"], original["color"])


def test_two_worker_processes_write_the_episodes_one_process_writes(tmp_path):
    """`datagen demos --workers 2`: each worker opens its simulator once and an episode
    depends on its seed alone, so the files are the same as from one process."""
    from common.executor import Executor

    one = generate_demos("put-block-in-bowl", 3, tmp_path / "one", seed_start=2,
                         progress=False)
    two = generate_demos("put-block-in-bowl", 3, tmp_path / "two", seed_start=2,
                         progress=False, executor=Executor("local", 2))
    assert one["made"] == two["made"] == [2, 3, 4] and one["steps"] == two["steps"]
    assert two["executor"] == "local, 2 process(es)"
    for seed in (2, 3, 4):
        (a, meta_a), (b, meta_b) = (load_episode(episode_path(tmp_path / d, "put-block-in-bowl",
                                                              seed)) for d in ("one", "two"))
        assert meta_a == meta_b and all(np.array_equal(a[k], b[k]) for k in a)


def _datagen_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="codeplan")
    datagen = parser.add_subparsers().add_parser("datagen")
    add_demos_parser(datagen.add_subparsers())
    return parser


def test_the_demos_command_reports_made_and_skipped(tmp_path, capsys):
    argv = ["datagen", "demos", "--task", "put-block-in-bowl", "--n", "1", "--out",
            str(tmp_path), "--json"]
    args = _datagen_parser().parse_args(argv)
    assert args.handler(args) == 0
    assert json.loads(capsys.readouterr().out)["made"] == 1
    args.handler(args)
    assert json.loads(capsys.readouterr().out)["skipped"] == 1
    assert sorted(os.listdir(tmp_path)) == ["put-block-in-bowl-000000.npz"]


def test_the_demos_command_rejects_bad_input(tmp_path):
    with pytest.raises(SystemExit):
        _datagen_parser().parse_args(["datagen", "demos", "--task", "x", "--n", "0",
                                      "--out", str(tmp_path)])
    args = _datagen_parser().parse_args(["datagen", "demos", "--task", "no-such-task",
                                         "--n", "1", "--out", str(tmp_path)])
    with pytest.raises(KeyError, match="unknown task 'no-such-task'; known tasks"):
        args.handler(args)
