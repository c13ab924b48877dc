"""The per-patch object loss (issue 25): targets say which objects each image token holds,
the head learns them, and a checkpoint without a head takes one on for `--patch-loss`."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from safetensors.torch import load_file

from training.ofa.data import VQA, collate, load_splits
from training.ofa.tasks import prompts
from training.ofa.train import TrainOfaSpec, add_patch_head, train_ofa, vqa_loss
from vrs.ofa.config import preset
from vrs.ofa.model import OfaVqa
from vrs.ofa.patches import PATCH_CLASSES, patch_targets
from vrs.ofa.tokenizer import LOCATION_BINS, train_tokenizer

SMALL = dict(d_model=32, heads=2, encoder_layers=1, decoder_layers=1,
             stem_channels=(8, 8, 16, 16, 16), image_height=60, image_width=80)


def _obj(color, kind, box, visible=True):
    return {"color": color, "type": kind, "pixel_box": box, "visible": visible}


def test_a_small_block_labels_its_own_patch_and_a_bowl_every_patch_it_covers():
    objects = [_obj("red", "block", [40, 40, 52, 52]),  # inside patch (1, 1) of 32 px
               _obj("blue", "bowl", [40, 0, 130, 30]),  # over columns 1..4 of row 0
               _obj("green", "block", [200, 200, 210, 210], visible=False),
               _obj("gray", "stand", [0, 0, 20, 20])]  # not a labelled type
    t = patch_targets(objects, (320, 240), (320, 240), (8, 10), 32).reshape(8, 10, -1)
    red, blue = PATCH_CLASSES.index("red block"), PATCH_CLASSES.index("blue bowl")
    assert np.argwhere(t[..., red]).tolist() == [[1, 1]]
    assert np.argwhere(t[..., blue]).tolist() == [[0, 1], [0, 2], [0, 3]]  # col 4: 2 px of it
    assert t.sum() == 4  # the hidden block and the stand give nothing


def test_targets_follow_the_resize_to_the_models_input():
    objects = [_obj("red", "block", [80, 80, 100, 100])]  # a 640x480 image, centre (90, 90)
    t = patch_targets(objects, (640, 480), (320, 240), (8, 10), 32).reshape(8, 10, -1)
    assert np.argwhere(t[..., PATCH_CLASSES.index("red block")]).tolist() == [[1, 1]]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    from datagen import generate

    out = tmp_path_factory.mktemp("vqa-patch")
    generate(out, ["block_bowl"], images_per_split=4, questions_per_image=4, shard_size=4,
             progress=False)
    return out


def test_collated_targets_match_each_scenes_objects(data):
    tok = train_tokenizer(location_bins=LOCATION_BINS, prompts=prompts())
    split = load_splits([data], tok, tasks=(VQA,))["block_bowl"]
    config = preset("detector", vocab_size=tok.vocab_size, **SMALL)
    from training.ofa.data import Pick

    picks = [Pick(split, k, split.images[k][:2]) for k in range(len(split.images))]
    batch = collate(picks, config, tok.pad_id, tok.bos_id, tok.eos_id, patches=True)
    assert batch["patch_targets"].shape == (4, config.image_tokens, len(PATCH_CLASSES))
    scenes = json.loads((data / "block_bowl" / "scenes.json").read_text())["scenes"]
    for k, scene in enumerate(scenes):
        shown = {f"{o['color']} {o['type']}" for o in scene["objects"]
                 if o.get("visible", True) and o.get("pixel_box")}
        labelled = {PATCH_CLASSES[c] for c in
                    torch.nonzero(batch["patch_targets"][k].sum(0)).flatten().tolist()}
        assert labelled == shown & set(PATCH_CLASSES)


def test_a_model_without_a_head_refuses_the_patch_loss_and_gets_one_added():
    model = OfaVqa(preset("detector", vocab_size=600, **SMALL))
    batch = {"images": torch.zeros(1, 3, 60, 80), "image_index": torch.tensor([0]),
             "questions": torch.tensor([[5, 6]]), "answer_in": torch.tensor([[1, 7]]),
             "answer_out": torch.tensor([[7, 2]]),
             "patch_targets": torch.zeros(1, model.config.image_tokens, len(PATCH_CLASSES))}
    with pytest.raises(ValueError, match="no patch head"):
        vqa_loss(model, batch, patch_weight=1.0)
    add_patch_head(model)
    assert model.config.patch_labels == len(PATCH_CLASSES)
    losses = vqa_loss(model, batch, patch_weight=0.5)
    assert set(losses) == {"loss", "answer", "patch"}
    expected = losses["answer"] + 0.5 * losses["patch"]
    assert float(losses["loss"].detach()) == pytest.approx(float(expected.detach()))


def _spec(data, out, **kw) -> TrainOfaSpec:
    base = dict(data=[data], out=out, steps=40, batch_size=16, questions_per_image=4,
                lr=3e-3, warmup=5, weight_decay=0.0, eval_every=1000, save_every=1000,
                eval_questions=0, holdout=0.0, progress=False, preset="detector", log_every=5,
                tasks="vqa", config_overrides=dict(SMALL))
    return TrainOfaSpec(**{**base, **kw})


def test_the_patch_head_learns_and_an_init_without_one_takes_it_on(data, tmp_path):
    train_ofa(_spec(data, tmp_path / "plain", steps=3))
    plain = json.loads((tmp_path / "plain" / "model" / "config.json").read_text())
    assert plain["patch_labels"] == 0
    train_ofa(_spec(data, tmp_path / "patch", init=tmp_path / "plain" / "model",
                    config_overrides={}, patch_loss=1.0))
    log = [json.loads(x) for x in
           (tmp_path / "patch" / "train_log.jsonl").read_text().splitlines() if x.strip()]
    patch = [r["patch"] for r in log if "patch" in r]
    assert len(patch) >= 2 and patch[-1] < 0.5 * patch[0]  # the head learns where objects are
    config = json.loads((tmp_path / "patch" / "model" / "config.json").read_text())
    assert config["patch_labels"] == len(PATCH_CLASSES)
    weights = load_file(str(tmp_path / "patch" / "model" / "model.safetensors"))
    assert weights["patch_head.weight"].shape == (len(PATCH_CLASSES), 32)
    from vrs.loading import load_reasoner

    load_reasoner(tmp_path / "patch" / "model")  # the exported model loads for answering


def test_the_spec_refuses_a_negative_patch_weight_and_data_without_scenes(data, tmp_path):
    import shutil

    with pytest.raises(ValueError, match="patch_loss must be >= 0"):
        _spec(data, tmp_path, patch_loss=-1.0).check()
    hf_only = tmp_path / "hf-only"
    shutil.copytree(data / "hf", hf_only / "hf")  # the same rows, without the CLEVR files
    with pytest.raises(ValueError, match="--patch-loss needs the scenes"):
        _spec(hf_only, tmp_path, patch_loss=1.0).check()
    _spec(hf_only, tmp_path).check()  # without the loss the hf/ rows are fine
