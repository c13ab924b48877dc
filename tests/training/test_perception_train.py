"""Detector training: resumable, refuses to clobber a run, names bad input."""

from __future__ import annotations

import csv
import itertools
from pathlib import Path

import pytest

from training.perception import TrainPerceptionSpec, train_perception
from training.schedules import cosine_with_warmup


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> Path:
    from datagen import generate

    out = tmp_path_factory.mktemp("perception-data")
    generate(out, ["block_bowl"], images_per_split=2, questions_per_image=2, shard_size=2,
             progress=False)
    return out


def _spec(data: Path, out: Path, steps: int, **kw) -> TrainPerceptionSpec:
    return TrainPerceptionSpec(data=[data], val=[data], out=out, steps=steps, batch_size=2,
                               warmup=1, checkpoint_every=2, eval_every=2, progress=False, **kw)


def test_an_interrupted_run_resumes_from_its_last_checkpoint(scenes, tmp_path):
    first = train_perception(_spec(scenes, tmp_path, 2))
    assert first["start_step"] == 0
    with pytest.raises(ValueError, match="--resume"):
        train_perception(_spec(scenes, tmp_path, 4))
    second = train_perception(_spec(scenes, tmp_path, 4, resume=True))
    assert second["start_step"] == 2
    steps = [int(r["step"]) for r in csv.DictReader((tmp_path / "curve.csv").open())]
    assert steps == [2, 4]
    assert (tmp_path / "model.safetensors").is_file()
    assert (tmp_path / "checkpoints" / "step_0000004").is_dir()


def test_bad_input_is_named(tmp_path):
    with pytest.raises(ValueError, match="no dataset directory"):
        train_perception(_spec(tmp_path / "nowhere", tmp_path / "out", 2))
    with pytest.raises(ValueError, match="steps must be at least 1"):
        train_perception(_spec(tmp_path, tmp_path / "out", 0))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"scenes\.json"):
        train_perception(_spec(tmp_path / "empty", tmp_path / "out2", 2))


def test_the_schedule_warms_up_then_decays_to_zero():
    factors = [cosine_with_warmup(s, 10, 100) for s in range(101)]
    assert factors[0] == pytest.approx(0.1) and factors[9] == pytest.approx(1.0)
    assert all(a >= b for a, b in itertools.pairwise(factors[9:]))
    assert factors[100] == pytest.approx(0.0, abs=1e-12)
