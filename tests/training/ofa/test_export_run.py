"""The GPU recipes' export step: a run stopped by its time limit ships its newest checkpoint,
in fp16, saying so; a finished run ships its own export; nothing to export is a clear error."""

from __future__ import annotations

import json

import pytest
import torch
from safetensors.torch import load_file, save_file

from training.ofa.export_run import export_run, main


def _model_dir(path, value: float) -> None:
    path.mkdir(parents=True)
    save_file({"w": torch.full((2, 3), value, dtype=torch.float32),
               "steps": torch.tensor([7], dtype=torch.int64)}, str(path / "model.safetensors"))
    (path / "config.json").write_text(json.dumps({"kind": "ofa-vqa", "training": {"lr": 1e-4}}))


@pytest.fixture
def init(tmp_path):
    d = tmp_path / "init"
    d.mkdir()
    (d / "tokenizer.json").write_text('{"tokenizer": 1}')
    return d


def test_stopped_run_exports_newest_checkpoint_in_fp16(tmp_path, init):
    run = tmp_path / "run"
    _model_dir(run / "checkpoints" / "step_0000500", 1.0)
    _model_dir(run / "checkpoints" / "step_0001000", 2.0)
    (run / "curve.jsonl").write_text('{"step": 0}\n')
    out = tmp_path / "out"
    src = export_run(run, init, out)
    assert src.name == "step_0001000"
    weights = load_file(str(out / "model.safetensors"))
    assert weights["w"].dtype == torch.float16 and float(weights["w"][0, 0]) == 2.0
    assert weights["steps"].dtype == torch.int64  # integer tensors are left alone
    config = json.loads((out / "config.json").read_text())
    assert config["training"]["exported_from"].endswith("step_0001000")
    assert config["training"]["lr"] == 1e-4
    assert (out / "tokenizer.json").read_text() == '{"tokenizer": 1}'
    assert (out / "curve.jsonl").is_file() and not (out / "train_log.jsonl").exists()


def test_finished_run_exports_its_model(tmp_path, init):
    run = tmp_path / "run"
    _model_dir(run / "checkpoints" / "step_0000500", 1.0)
    _model_dir(run / "model", 3.0)
    src = export_run(run, init, tmp_path / "out")
    assert src == run / "model"
    assert float(load_file(str(tmp_path / "out" / "model.safetensors"))["w"][0, 0]) == 3.0


def test_nothing_to_export_names_the_run(tmp_path, init, capsys):
    run = tmp_path / "empty-run"
    run.mkdir()
    assert main([str(run), str(init), str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "empty-run" in err and "no checkpoint" in err
    assert not (tmp_path / "out").exists()


def test_init_without_tokenizer_is_an_error(tmp_path):
    run = tmp_path / "run"
    _model_dir(run / "model", 1.0)
    with pytest.raises(FileNotFoundError, match=r"tokenizer\.json"):
        export_run(run, tmp_path, tmp_path / "out")
