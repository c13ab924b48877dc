"""`codeplan tune detector`: thresholds chosen by answer accuracy on a dev set, written back."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from runtime.cli import main
from training.detector.tune import best, sweep
from vrs.detector.reasoner import load_detector_reasoner
from vrs.loading import resolve_checkpoint


@pytest.fixture(scope="module")
def dev(tmp_path_factory) -> Path:
    from datagen import generate

    out = tmp_path_factory.mktemp("dev")
    generate(out, ["block_stack"], images_per_split=3, questions_per_image=5, shard_size=3,
             seed_offset=500000, progress=False)
    return out


@pytest.fixture
def model(tmp_path) -> Path:
    return Path(shutil.copytree(resolve_checkpoint("detector"), tmp_path / "detector"))


def test_a_threshold_that_drops_every_object_loses_to_a_working_one(dev, model):
    rows = sweep(model, dev, [0.3, 0.999], [None, 0.05])
    assert [(r["threshold"], r["hidden_threshold"]) for r in rows] == \
        [(0.3, None), (0.3, 0.05), (0.999, None), (0.999, 0.05)]
    assert all(r["n"] == 15 for r in rows)
    assert best(rows)["threshold"] == 0.3
    assert rows[0]["accuracy"] > rows[2]["accuracy"]
    assert set(rows[0]["by_split"]) == {"block_stack"}


def test_write_stores_the_best_pair_and_its_grid_in_the_checkpoint(dev, model, capsys):
    assert main(["tune", "detector", "--model", str(model), "--data", str(dev),
                 "--threshold", "0.25,0.999", "--hidden", "off,0.1", "--stand-z", "0.021",
                 "--write", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    config = json.loads((model / "config.json").read_text())
    assert config["threshold"] == out["best"]["threshold"] == 0.25
    assert config["hidden_threshold"] == out["best"]["hidden_threshold"]
    assert config["stand_z"] == 0.021
    assert len(config["training"]["tuned"]["grid"]) == 4
    assert load_detector_reasoner(model).config.threshold == 0.25  # the checkpoint still loads


def test_bad_thresholds_and_other_changes_are_refused(dev, model, capsys):
    assert main(["tune", "detector", "--model", str(model), "--data", str(dev),
                 "--threshold", "1.5"]) == 2
    assert "threshold must be in (0, 1)" in capsys.readouterr().err
    tune = ["tune", "detector", "--model", str(model), "--data", str(dev)]
    for bad, message in ((["--threshold", "0.2,x"], "expected comma-separated numbers, got 'x'"),
                         (["--hidden", "none"], "numbers or off, got 'none'")):
        with pytest.raises(SystemExit):  # argparse: usage and the message, exit 2
            main([*tune, *bad])
        assert message in capsys.readouterr().err
    assert main([*tune, "--threshold", ","]) == 2
    assert "--threshold needs at least one value" in capsys.readouterr().err
    assert main(["tune", "detector", "--model", str(model.parent / "nowhere"),
                 "--data", str(dev)]) == 2
    assert "no detector checkpoint at" in capsys.readouterr().err
    reasoner = load_detector_reasoner(model)
    with pytest.raises(ValueError, match="only threshold, hidden_threshold, stand_z"):
        reasoner.retune(replace(reasoner.config, z_scale=3.0))
