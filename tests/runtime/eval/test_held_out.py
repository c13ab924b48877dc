"""The held-out check of `codeplan eval vqa`: shard seeds shared between an evaluation set and
a checkpoint's training or tuning data are found and reported, whatever the camera variant."""

from __future__ import annotations

import argparse
import json
import shutil
import warnings

import pytest

from datagen import generate
from datagen.seed_ranges import seed_ranges, shared_seeds
from runtime.cli.eval import add_vqa_parser
from runtime.eval.held_out import held_out_report

SPLIT = ["block_bowl"]


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    """Three 2-image sets of one family: offsets 0 and 1 share a shard seed (one is the jitter
    camera, so the scenes match while the images do not); offset 50 shares none."""
    root = tmp_path_factory.mktemp("held-out")
    made = {}
    for name, offset, variant in (("train", 0, "default"), ("jitter", 1, "jitter"),
                                  ("val", 50, "default")):
        with warnings.catch_warnings():  # the shared seeds are the point here
            warnings.simplefilter("ignore")
            generate(root / name, SPLIT, images_per_split=2, questions_per_image=3,
                     shard_size=1, seed_offset=offset, variant=variant, progress=False)
        made[name] = root / name
    return made


def _checkpoint(tmp_path, data, tuned=None):
    """A copy of the shipped detector whose config records `data` (and `tuned`) as used."""
    ckpt = tmp_path / "ckpt"
    shutil.copytree("checkpoints/detector-tiny", ckpt)
    config = json.loads((ckpt / "config.json").read_text())
    config["training"]["data"] = [str(d) for d in data]
    config["training"]["tuned"]["data"] = str(tuned) if tuned else None
    (ckpt / "config.json").write_text(json.dumps(config))
    return ckpt


def test_seed_ranges_come_from_the_manifest_and_meet_only_where_scenes_repeat(sets):
    train, jitter, val = (seed_ranges(sets[k]) for k in ("train", "jitter", "val"))
    first, last = train["block_bowl"]
    assert last == first + 1                          # two shards of one image
    assert jitter["block_bowl"] == (first + 1, first + 2)
    assert shared_seeds(jitter, train) == {"block_bowl": (first + 1, first + 1)}
    assert shared_seeds(val, train) == {}
    assert seed_ranges(sets["train"] / "block_bowl") is None  # no manifest there


def test_the_report_names_the_use_and_the_seeds(sets, tmp_path):
    ckpt = _checkpoint(tmp_path, [sets["val"]], tuned=sets["train"])
    report = held_out_report(ckpt, sets["jitter"])
    assert report["held_out"] is False
    [overlap] = report["overlaps"]
    assert overlap["use"] == "tuning" and overlap["data"] == str(sets["train"])
    assert overlap["family"] == "block_bowl" and overlap["seeds"][0] == overlap["seeds"][1]
    own = held_out_report(ckpt, sets["val"])          # its own training data
    assert own["held_out"] is False and own["overlaps"][0]["use"] == "training"
    assert held_out_report(_checkpoint(tmp_path / "b", [sets["train"]]),
                           sets["val"])["held_out"] is True


def test_unrecorded_or_absent_data_is_unchecked_not_clean(sets, tmp_path):
    ckpt = _checkpoint(tmp_path, [tmp_path / "gone"])
    report = held_out_report(ckpt, sets["val"])
    assert report["held_out"] is None and report["unchecked"] == [str(tmp_path / "gone")]


def test_eval_vqa_warns_and_marks_the_result(sets, tmp_path, capsys):
    ckpt = _checkpoint(tmp_path, [sets["train"]])
    parser = argparse.ArgumentParser()
    add_vqa_parser(parser.add_subparsers())
    args = parser.parse_args(["vqa", "--model", str(ckpt), "--data", str(sets["jitter"]),
                              "--out", str(tmp_path / "out"), "--json"])
    assert args.handler(args) == 0
    captured = capsys.readouterr()
    printed = json.loads(captured.out)
    assert printed["held_out"]["held_out"] is False
    assert "is not held out" in captured.err and "block_bowl" in captured.err
    assert "**Not held out:**" in (tmp_path / "out" / "table.md").read_text()
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    assert saved["results"][0]["held_out"]["overlaps"][0]["use"] == "training"


def test_the_look_of_the_data_is_checked_against_the_training_looks(sets, tmp_path):
    """A jitter-camera set is an unseen look for a checkpoint trained on default images, a
    seen one for a checkpoint that had jitter images; a foreign look seen in training warns."""
    from runtime.eval.held_out import describe_overlaps

    report = held_out_report(_checkpoint(tmp_path, [sets["train"]]), sets["jitter"])
    assert report["look"] == {"renderer": "pybullet", "variant": "jitter", "seen": False}
    seen = held_out_report(_checkpoint(tmp_path / "b", [sets["jitter"]]), sets["val"])
    assert seen["look"]["seen"] is False  # val is the default look; training had jitter only
    jitter_ckpt = _checkpoint(tmp_path / "c", [sets["jitter"]])
    assert held_out_report(jitter_ckpt, sets["jitter"])["look"]["seen"] is True
    foreign = {"held_out": True, "overlaps": [],
               "look": {"renderer": "pybullet", "variant": "foreign", "seen": True}}
    [line] = describe_overlaps(sets["val"], "m", foreign)
    assert "not a transfer figure" in line
    assert describe_overlaps(sets["val"], "m", {**foreign, "look": {
        **foreign["look"], "seen": False}}) == []
    studio = {**foreign, "look": {**foreign["look"], "variant": "studio"}}
    assert "not a transfer figure" in describe_overlaps(sets["val"], "m", studio)[0]


def test_a_generated_dataset_has_a_card_that_says_its_variant(sets):
    card = (sets["jitter"] / "README.md").read_text()
    assert "jitter variant" in card and "3 cm" in card and "block_bowl" in card
