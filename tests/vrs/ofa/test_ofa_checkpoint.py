"""OFA-style VQA checkpoints: save, load, atomic replacement, dispatch by `vrs.loading`."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from vrs.loading import load_reasoner
from vrs.ofa.checkpoint import load_checkpoint, save_checkpoint
from vrs.ofa.config import preset
from vrs.ofa.model import OfaVqa
from vrs.ofa.reasoner import OfaReasoner

QUESTIONS = ["is the red block in the blue bowl?", "what objects are on the table?",
             "how many blocks are there?", "what color is the block in the red bowl?",
             "what is the red block on?"]


@pytest.fixture(scope="module")
def trained(tokenizer, small_ofa):
    torch.manual_seed(3)
    model = OfaVqa(preset("tiny", vocab_size=tokenizer.vocab_size, **small_ofa)).eval()
    with torch.no_grad():  # move off the init so a load that kept init weights would differ
        for p in model.parameters():
            p.add_(0.05 * torch.randn_like(p))
    return model, tokenizer


def test_a_checkpoint_round_trips_to_the_same_answers(trained, tmp_path):
    model, tokenizer = trained
    save_checkpoint(tmp_path / "ckpt", model, tokenizer=tokenizer)
    loaded, tok2 = load_checkpoint(tmp_path / "ckpt")
    assert tok2.to_str() == tokenizer.to_str() and loaded.config == model.config
    for key, value in model.state_dict().items():
        assert torch.equal(value, loaded.state_dict()[key]), key
    image = np.random.default_rng(0).integers(0, 256, (240, 320, 3), dtype=np.uint8)
    before = OfaReasoner(model, tokenizer).ask(image, QUESTIONS)
    after = OfaReasoner(loaded, tok2).ask(image, QUESTIONS)
    assert before == after


def test_vrs_loading_dispatches_on_the_config_kind(trained, tmp_path):
    model, tokenizer = trained
    save_checkpoint(tmp_path / "ckpt", model, tokenizer=tokenizer)
    config = json.loads((tmp_path / "ckpt" / "config.json").read_text())
    assert config["kind"] == "ofa-vqa" and config["vocab_size"] == tokenizer.vocab_size
    reasoner = load_reasoner(tmp_path / "ckpt")
    assert isinstance(reasoner, OfaReasoner) and reasoner.name == "ofa-vqa-tiny-ckpt"
    save_checkpoint(tmp_path / "ofa-mine", model, tokenizer=tokenizer)
    assert load_reasoner(tmp_path / "ofa-mine").name == "ofa-mine"  # rows keep apart
    assert {p.name for p in (tmp_path / "ckpt").iterdir()} == {
        "config.json", "model.safetensors", "tokenizer.json"}


def test_saving_again_replaces_the_directory_and_leaves_no_temporaries(trained, tmp_path):
    model, tokenizer = trained
    target = tmp_path / "ckpt"
    save_checkpoint(target, model, tokenizer=tokenizer)
    (target / "stale.txt").write_text("from an older export")
    other = OfaVqa(model.config)
    save_checkpoint(target, other, tokenizer=tokenizer)
    assert not (target / "stale.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt"]
    loaded, _ = load_checkpoint(target)
    assert torch.equal(loaded.head.weight, other.head.weight)


def test_an_incomplete_or_foreign_checkpoint_is_refused(trained, tmp_path):
    model, tokenizer = trained
    save_checkpoint(tmp_path / "ckpt", model, tokenizer=tokenizer)
    (tmp_path / "ckpt" / "model.safetensors").unlink()
    with pytest.raises(FileNotFoundError, match=r"model\.safetensors"):
        load_checkpoint(tmp_path / "ckpt")
    save_checkpoint(tmp_path / "ns", model, tokenizer=tokenizer)
    config = json.loads((tmp_path / "ns" / "config.json").read_text())
    (tmp_path / "ns" / "config.json").write_text(json.dumps({**config, "kind": "ns-vqa"}))
    with pytest.raises(ValueError, match="ns-vqa"):
        load_checkpoint(tmp_path / "ns")


def test_regrid_keeps_every_weight_and_resizes_the_positions(trained, tmp_path):
    from vrs.ofa.checkpoint import regrid_checkpoint

    model, tokenizer = trained
    save_checkpoint(tmp_path / "coarse", model, tokenizer=tokenizer)
    info = regrid_checkpoint(tmp_path / "coarse", tmp_path / "fine", token_stride=8)
    assert (info["from_grid"], info["grid"]) == ([8, 10], [15, 20])
    fine, _ = load_checkpoint(tmp_path / "fine")
    old, new = model.state_dict(), fine.state_dict()
    for key in old:
        if key not in ("stem.row_embed", "stem.col_embed"):
            assert torch.equal(old[key], new[key]), key
    rows = new["stem.row_embed"]  # (15, 1, d): corners kept, the rest interpolated
    assert rows.shape[0] == 15
    assert torch.allclose(rows[0], old["stem.row_embed"][0])
    assert torch.allclose(rows[-1], old["stem.row_embed"][-1])
    image = np.zeros((240, 320, 3), np.uint8)
    assert OfaReasoner(fine, tokenizer).ask(image, QUESTIONS[:2])  # it answers at 300 tokens
    with pytest.raises(ValueError, match="already has a 15x20"):
        regrid_checkpoint(tmp_path / "fine", tmp_path / "again", token_stride=8)


def test_regrid_from_the_command_line_names_a_bad_stride(trained, tmp_path, capsys):
    from runtime.cli import main

    model, tokenizer = trained
    save_checkpoint(tmp_path / "coarse", model, tokenizer=tokenizer)
    assert main(["ofa", "regrid", str(tmp_path / "coarse"), str(tmp_path / "x"),
                 "--token-stride", "12"]) == 2
    assert "token_stride 12 must be a power of two" in capsys.readouterr().err
    assert main(["ofa", "regrid", str(tmp_path / "coarse"), str(tmp_path / "fine"),
                 "--token-stride", "8"]) == 0
    assert json.loads(capsys.readouterr().out)["grid"] == [15, 20]
