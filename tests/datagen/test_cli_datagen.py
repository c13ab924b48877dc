"""`codeplan datagen vqa`: arguments, clear errors for bad input, a tiny run."""

from __future__ import annotations

import argparse
import json

import pytest

from runtime.cli import datagen as datagen_cli


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="codeplan")
    datagen_cli.add_parser(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.handler(args)


@pytest.mark.parametrize(("extra", "message"), [
    (["--splits", "block_bowl,nope"], "unknown split 'nope'; known splits: block_stack"),
    (["--images-per-split", "0"], "images per split must be an integer >= 1, got 0"),
    (["--images-per-split", "many"], "--images-per-split must be an integer, got 'many'"),
    (["--questions-per-image", "0"], "questions per image must be an integer >= 1"),
    (["--shard-size", "99999"], r"shard size must be in \[1, 4096\]"),
    (["--workers", "0"], "workers must be an integer >= 1"),
    (["--seed-offset", "-5"], "seed offset must be an integer >= 0"),
    (["--seed-offset", "1000000000"], "seed offset \\+ shard index must be in"),
    (["--variant", "fisheye"], "unknown variant 'fisheye'; variants: default, jitter, arm"),
    (["--renderer", "blender", "--variant", "arm"], "not available with --renderer blender"),
    (["--renderer", "blender", "--variant", "random"], "looks are PyBullet-only"),
    (["--renderer", "povray"], "unknown renderer 'povray'"),
    (["--splits", "unseen,unseen"], "a split is listed twice"),
])
def test_bad_input_is_a_value_error_naming_the_problem(tmp_path, extra, message):
    argv = ["datagen", "vqa", "--out", str(tmp_path / "out"), "--images-per-split", "2", *extra]
    with pytest.raises(ValueError, match=message):
        _run(argv)
    assert not (tmp_path / "out").exists()  # nothing is written before the input is checked


def test_a_tiny_run_prints_a_json_summary(tmp_path, capsys):
    code = _run(["datagen", "vqa", "--out", str(tmp_path), "--splits", "global_table",
                 "--images-per-split", "1", "--questions-per-image", "4", "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["splits"] == {"global_table": {"images": 1, "questions": 4}}
    assert (tmp_path / "hf" / "dataset_dict.json").exists()


def test_the_main_cli_runs_datagen_and_maps_bad_input_to_exit_2(tmp_path):
    from runtime import cli

    assert cli.main(["datagen", "vqa", "--out", str(tmp_path), "--images-per-split", "0"]) == 2


def test_without_splits_every_default_family_is_made_and_the_opt_in_pyramid_is_not(tmp_path,
                                                                                  capsys):
    from datagen.families import DEFAULT_SPLITS

    code = _run(["datagen", "vqa", "--out", str(tmp_path), "--images-per-split", "1",
                 "--questions-per-image", "1", "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and list(summary["splits"]) == list(DEFAULT_SPLITS)
    assert "pyramid" not in summary["splits"]
