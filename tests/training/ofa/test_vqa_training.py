"""Training the OFA-style VQA model: overfitting real examples, resumption, fine-tuning, CLI."""

from __future__ import annotations

import argparse
import json
import zlib

import pytest
import torch
from safetensors.torch import load_file

from runtime.cli.train import add_ofa_parser, ofa_spec_from_args
from training.ofa.data import MixtureSampler, holdout, load_splits, parse_mix
from training.ofa.train import TrainOfaSpec, train_ofa
from training.schedules import cosine_with_warmup
from vrs.loading import load_reasoner
from vrs.ofa.tokenizer import train_tokenizer

# Small enough that a step takes milliseconds; real images, real questions.
SMALL = dict(d_model=64, heads=2, encoder_layers=2, decoder_layers=1,
             stem_channels=(8, 16, 32, 64))


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """2 images x 4 questions of block_bowl: 8 real examples."""
    from datagen import generate

    out = tmp_path_factory.mktemp("vqa-8")
    generate(out, ["block_bowl"], images_per_split=2, questions_per_image=4, shard_size=2,
             progress=False)
    return out


def _spec(data, out, **kw) -> TrainOfaSpec:
    base = dict(data=[data], val=data, out=out, steps=8, batch_size=8, questions_per_image=4,
                lr=3e-3, warmup=10, weight_decay=0.0, eval_every=1000, save_every=1000,
                eval_questions=0, progress=False, config_overrides=dict(SMALL))
    return TrainOfaSpec(**{**base, **kw})


@pytest.fixture(scope="module")
def overfit(data, tmp_path_factory):
    out = tmp_path_factory.mktemp("overfit")
    summary = train_ofa(_spec(data, out, steps=120, eval_every=40, config_overrides=SMALL))
    return out, summary


def test_the_model_overfits_eight_real_examples_to_full_accuracy(overfit, data):
    out, summary = overfit
    curve = [json.loads(x) for x in (out / "curve.jsonl").read_text().splitlines()]
    assert "baseline" in curve[0]
    evals = [r for r in curve if "step" in r]
    assert [r["step"] for r in evals] == [0, 40, 80, 120]
    assert evals[0]["accuracy"] < 1.0 and evals[-1]["n"] == 8
    assert summary["last_eval"]["accuracy"] == 1.0
    # The exported checkpoint answers the same 8 questions right through the Reasoner seam.
    from datasets import load_from_disk

    rows = load_from_disk(str(data / "hf"))["block_bowl"]
    reasoner = load_reasoner(out / "model")
    for image_id in dict.fromkeys(rows["image_id"]):
        mine = rows.filter(lambda r, i=image_id: r["image_id"] == i)
        answers = reasoner.ask(mine[0]["image"], list(mine["question"]))
        assert [a.text for a in answers] == list(mine["answer"])


def test_an_interrupted_run_resumes_from_its_checkpoint_to_the_same_weights(data, tmp_path):
    kw = dict(steps=6, save_every=3, eval_every=2, config_overrides={**SMALL, "dropout": 0.1})
    train_ofa(_spec(data, tmp_path / "straight", **kw))

    class Interrupt(Exception):
        pass

    def stop(step: int) -> None:
        if step == 5:
            raise Interrupt

    with pytest.raises(Interrupt):
        train_ofa(_spec(data, tmp_path / "cut", **kw), on_step=stop)
    with pytest.raises(ValueError, match="--resume"):
        train_ofa(_spec(data, tmp_path / "cut", **kw))
    summary = train_ofa(_spec(data, tmp_path / "cut", resume=True, **kw))
    assert (summary["start_step"], summary["step"]) == (3, 6)
    a = load_file(tmp_path / "straight" / "model" / "model.safetensors")
    b = load_file(tmp_path / "cut" / "model" / "model.safetensors")
    assert max(float((a[k] - b[k]).abs().max()) for k in a) < 1e-5
    state = json.loads((tmp_path / "cut" / "checkpoints" / "step_0000006" /
                        "trainer_state.json").read_text())
    assert state["samples"] == 6 * 8
    record = json.loads((tmp_path / "cut" / "model" / "config.json").read_text())["training"]
    assert {"commit", "machine", "date", "torch"} <= set(record) and record["machine"]
    assert record["spec"]["data"] == [str(data)] and record["spec"]["steps"] == 6
    assert record["steps"] == 6 and record["samples"] == 6 * 8 and "final_loss" in record
    assert record["total_seconds"] > 0 and record["device"] == "cpu"
    # The curve line written at step 4, after the checkpoint at 3, was redone, not repeated.
    curves = [[(r["step"], r["accuracy"]) for r in map(json.loads, (tmp_path / run /
               "curve.jsonl").read_text().splitlines()) if "step" in r]
              for run in ("straight", "cut")]
    assert [s for s, _ in curves[1]] == [0, 2, 4, 6] and curves[0] == curves[1]


def test_freeze_encoder_from_init_trains_only_the_decoder(overfit, data, tmp_path):
    init = overfit[0] / "model"
    train_ofa(_spec(data, tmp_path / "ft", steps=3, init=init, freeze_encoder=True,
                    lr=1e-3, warmup=0, config_overrides={}))
    before = load_file(init / "model.safetensors")
    after = load_file(tmp_path / "ft" / "model" / "model.safetensors")
    frozen = ("stem.", "text_embed.", "text_pos", "type_embed.", "encoder.", "encoder_norm.")
    for key in before:
        same = torch.equal(before[key], after[key])
        assert same == key.startswith(frozen), key


def test_the_lr_warms_up_linearly_then_decays_by_cosine():
    assert cosine_with_warmup(0, 10, 110, 0.1) == pytest.approx(0.1)
    assert cosine_with_warmup(9, 10, 110, 0.1) == pytest.approx(1.0)
    assert cosine_with_warmup(60, 10, 110, 0.1) == pytest.approx(0.55)
    assert cosine_with_warmup(110, 10, 110, 0.1) == pytest.approx(0.1)


def test_the_mixture_draws_splits_by_weight_and_batches_are_a_function_of_the_step(data):
    tok = train_tokenizer()
    splits = load_splits([data], tok)
    splits["copy"] = load_splits([data], tok)["block_bowl"]
    splits["copy"].name = "copy"
    sampler = MixtureSampler(splits, {"block_bowl": 3.0, "copy": 1.0}, 4, 2, seed=(0, 0))
    names = [p.split.name for s in range(400) for p in sampler.batch(s)]
    assert 0.7 < names.count("block_bowl") / len(names) < 0.8
    again = MixtureSampler(splits, {"block_bowl": 3.0, "copy": 1.0}, 4, 2, seed=(0, 0))
    assert [(p.image, p.rows) for p in again.batch(17)] == \
        [(p.image, p.rows) for p in sampler.batch(17)]
    assert sum(len(p.rows) for p in sampler.batch(0)) == 4


def test_holdout_keeps_whole_images_out_of_training(data):
    split = load_splits([data], train_tokenizer())["block_bowl"]
    share = max(zlib.crc32(split.image_id[g[0]].encode()) for g in split.images) / 2**32
    train, held = holdout({"block_bowl": split}, share)  # the last-hashed image stays in
    assert len(train["block_bowl"].images) == 1 and len(held["block_bowl"].images) == 1
    assert not set(train["block_bowl"].images[0]) & set(held["block_bowl"].images[0])


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_ofa_parser(parser.add_subparsers())
    return parser.parse_args(["ofa", *argv])


def test_the_cli_accepts_good_input_and_names_bad_input(data, tmp_path):
    good = ["--data", str(data), "--out", str(tmp_path / "run"), "--steps", "10"]
    spec = ofa_spec_from_args(_args(*good, "--mix", "block_bowl=2", "--freeze-encoder"))
    assert spec.mix == "block_bowl=2" and spec.freeze_encoder and spec.preset == "tiny"
    assert spec.patch_loss == 0.0
    assert ofa_spec_from_args(_args(*good, "--patch-loss", "0.5")).patch_loss == 0.5
    with pytest.raises(ValueError, match="patch_loss must be >= 0"):
        ofa_spec_from_args(_args(*good, "--patch-loss", "-1"))
    with pytest.raises(ValueError, match="nowhere"):
        ofa_spec_from_args(_args(*good[2:], "--data", str(tmp_path / "nowhere")))
    with pytest.raises(ValueError, match="unseen"):
        ofa_spec_from_args(_args(*good, "--mix", "block_bowl=1,unseen=2"))
    with pytest.raises(ValueError, match="huge"):
        ofa_spec_from_args(_args(*good, "--preset", "huge"))
    with pytest.raises(ValueError, match="no VQA dataset"):
        ofa_spec_from_args(_args(*good, "--val", str(tmp_path)))
    with pytest.raises(ValueError, match="not a number"):
        ofa_spec_from_args(_args(*good, "--mix", "block_bowl=lots"))
    with pytest.raises(ValueError, match="lr"):
        ofa_spec_from_args(_args(*good, "--lr", "0"))
    with pytest.raises(SystemExit):  # argparse's own check of integers
        _args(*good[:4], "--steps", "0")


def test_parse_mix_defaults_to_every_split():
    assert parse_mix(None, ["a", "b"]) == {"a": 1.0, "b": 1.0}
    assert parse_mix("a=0,b=2", ["a", "b"]) == {"b": 2.0}
    with pytest.raises(ValueError, match="no split a positive weight"):
        parse_mix("a=0", ["a", "b"])


def test_the_loss_averages_each_question_over_its_own_tokens():
    from training.ofa.data import IGNORE
    from training.ofa.train import vqa_loss

    class Fixed(torch.nn.Module):
        def forward(self, images, index, questions, answer_in):
            logits = torch.zeros(2, 3, 5)  # (B, T, V): uniform, loss ln 5 per token
            logits[0, 0, 1] = 10.0  # question 0's only token is right: loss ~0
            return logits

    batch = {"images": None, "image_index": None, "questions": None, "answer_in": None,
             "answer_out": torch.tensor([[1, IGNORE, IGNORE], [2, 3, 4]])}
    expected = (0.0 + torch.log(torch.tensor(5.0))) / 2  # mean of per-question means
    assert float(vqa_loss(Fixed(), batch)["loss"]) == pytest.approx(float(expected), abs=1e-3)
