"""The multi-task stage (issue 25): tasks from scenes, location tokens, the detector stem,
pretraining then frozen-encoder fine-tuning."""

from __future__ import annotations

import json
import re

import pytest
import torch
from safetensors.torch import load_file

from training.ofa.data import VQA, load_splits
from training.ofa.tasks import TASKS, prompts, quantize, scene_tasks, visible_objects
from training.ofa.train import TrainOfaSpec, train_ofa
from vrs.ofa.config import preset
from vrs.ofa.model import DetectorStem, OfaVqa, load_detector_stem
from vrs.ofa.tokenizer import LOCATION_BINS, train_tokenizer

SMALL_DETECTOR = dict(d_model=32, heads=2, encoder_layers=1, decoder_layers=1,
                      stem_channels=(8, 8, 16, 16, 16))


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """3 images x 4 questions of block_stack (stacks: the hardest scenes to describe)."""
    from datagen import generate

    out = tmp_path_factory.mktemp("vqa-mt")
    generate(out, ["block_stack"], images_per_split=3, questions_per_image=4, shard_size=3,
             progress=False)
    return out


@pytest.fixture(scope="module")
def bins_tokenizer():
    return train_tokenizer(location_bins=LOCATION_BINS, prompts=prompts())


def _scenes(data):
    return json.loads((data / "block_stack" / "scenes.json").read_text())["scenes"]


def test_detection_target_lists_every_visible_object_with_its_quantised_box(data):
    for scene in _scenes(data):
        rows = scene_tasks(scene, 320, 240, bins=100)
        detect = next(r for r in rows if r.task == "detect")
        objs = visible_objects(scene)
        parts = re.findall(r"((?:<bin_\d+>){4}) ([a-z]+ [a-z]+|stand)", detect.target)
        assert [name for _, name in parts] == [o["name"] for o in objs]
        for (box, _), o in zip(parts, objs, strict=True):
            x0, y0, x1, y1 = (int(k) for k in re.findall(r"\d+", box))
            assert x0 == quantize(o["pixel_box"][0], 320, 100)
            assert y1 == quantize(o["pixel_box"][3], 240, 100)
            assert x0 <= x1 and y0 <= y1
        ys = [(o["pixel_box"][1] + o["pixel_box"][3]) / 2 for o in objs]
        assert ys == sorted(ys)  # reading order


def test_grounding_only_for_unique_names_and_counts_match_the_scene(data):
    scene = _scenes(data)[0]
    twin = dict(scene["objects"][0])  # a second object of the same name
    scene = {**scene, "objects": [*scene["objects"], twin]}
    rows = scene_tasks(scene, 320, 240, bins=100)
    grounded = [r.prompt for r in rows if r.task == "ground"]
    assert not any(f'"{twin["name"]}"' in p for p in grounded)
    assert len([r for r in rows if r.task == "region"]) == len(visible_objects(scene))
    counts = {r.prompt: r.target for r in rows if r.task == "count"}
    assert counts["how many objects are there?"] == str(len(visible_objects(scene)))
    blocks = sum(o["type"] == "block" for o in visible_objects(scene))
    assert counts["how many blocks are there?"] == str(blocks)
    listed = next(r.target for r in rows if r.task == "list").split(", ")
    assert listed == sorted(listed) and len(listed) == len(visible_objects(scene))


def test_scene_tasks_need_location_bins(data):
    with pytest.raises(ValueError, match="location tokens"):
        scene_tasks(_scenes(data)[0], 320, 240, bins=0)


def test_location_tokens_are_single_consecutive_ids(bins_tokenizer):
    tok = bins_tokenizer
    assert tok.location_bins == LOCATION_BINS
    ids = tok.location_ids
    assert ids == list(range(ids[0], ids[0] + LOCATION_BINS))
    box = tok.encode_answer("<bin_0><bin_99><bin_5><bin_42> red block")
    assert box[:4] == [ids[0], ids[99], ids[5], ids[42]]
    assert tok.decode(box).startswith("<bin_0><bin_99><bin_5><bin_42>")
    for p in prompts():  # every prompt word is one token: no word split into pieces
        words = p.lower().replace("?", "").replace('"', " ").replace(":", " ").split()
        assert len(tok.encode_question(" ".join(words))) == len(words), p
    assert train_tokenizer().location_bins == 0  # the VQA-only tokenizer is unchanged


def test_clevr_rows_per_task_and_bad_combinations(data, bins_tokenizer):
    split = load_splits([data], bins_tokenizer, tasks=(VQA, *TASKS))["block_stack"]
    assert set(split.task) == {VQA, *TASKS}
    assert split.rows_of(VQA).rows == 12 and len(split.images) == 3
    for g in split.images:
        assert len({split.image_id[r] for r in g}) == 1  # a group is one image
    vqa_only = load_splits([data], bins_tokenizer)["block_stack"]
    assert set(vqa_only.task) == {VQA} and vqa_only.rows == 12
    with pytest.raises(ValueError, match="location tokens"):
        load_splits([data], train_tokenizer(), tasks=("detect",))
    with pytest.raises(ValueError, match="CLEVR files"):
        load_splits([data / "hf"], bins_tokenizer, tasks=("detect",))


def test_detector_stem_starts_from_the_detectors_encoder_with_frozen_batchnorm():
    model = OfaVqa(preset("detector", vocab_size=600))
    copied = load_detector_stem(model, "checkpoints/detector-tiny")
    weights = load_file("checkpoints/detector-tiny/model.safetensors")
    assert copied == sum(k.startswith(("stages.0.", "stages.1.", "stages.2.", "stages.3."))
                         for k in weights)
    own = model.stem.stages.state_dict()
    for key in ("0.0.weight", "3.1.1.running_var", "2.0.0.weight"):
        assert torch.equal(own[key], weights[f"stages.{key}"])
    model.train()
    bns = [m for m in model.stem.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    assert bns and not any(m.training for m in bns) and model.encoder.training
    assert model.encode_images(torch.zeros(2, 3, 240, 320)).shape == (2, 80, 192)
    with pytest.raises(ValueError, match="'resnet' stem"):
        load_detector_stem(OfaVqa(preset("tiny", vocab_size=600)), "checkpoints/detector-tiny")


def _spec(data, out, **kw) -> TrainOfaSpec:
    base = dict(data=[data], out=out, steps=30, batch_size=16, questions_per_image=8,
                lr=3e-3, warmup=5, weight_decay=0.0, eval_every=1000, save_every=1000,
                eval_questions=0, holdout=0.0, progress=False, preset="detector", log_every=5,
                config_overrides=dict(SMALL_DETECTOR, image_height=60, image_width=80))
    return TrainOfaSpec(**{**base, **kw})


def test_pretrain_then_frozen_encoder_finetune(data, tmp_path):
    pre = train_ofa(_spec(data, tmp_path / "pre", tasks="pretrain", steps=40))
    log = [json.loads(x) for x in (tmp_path / "pre" / "train_log.jsonl").read_text().split("\n")
           if x.strip()]
    losses = [r["loss"] for r in log if "loss" in r]
    assert losses[-1] < losses[0]  # the multi-task sequences are being learned
    pre_model = load_file(str(tmp_path / "pre" / "model" / "model.safetensors"))
    assert pre["last_eval"] is None or pre["last_eval"]["n"] == 0  # no VQA rows were trained on
    train_ofa(_spec(data, tmp_path / "ft", tasks="vqa", init=tmp_path / "pre" / "model",
                    freeze_encoder=True, lr=5e-5, steps=5, config_overrides={}))
    ft = load_file(str(tmp_path / "ft" / "model" / "model.safetensors"))
    assert torch.equal(ft["encoder.0.attn.query.weight"], pre_model["encoder.0.attn.query.weight"])
    assert torch.equal(ft["stem.project.weight"], pre_model["stem.project.weight"])
    assert not torch.equal(ft["decoder.0.mlp.net.0.weight"],
                           pre_model["decoder.0.mlp.net.0.weight"])
    config = json.loads((tmp_path / "ft" / "model" / "config.json").read_text())
    assert config["stem"] == "detector" and config["vocab_size"] > 500


def test_spec_names_bad_tasks_and_stem_init(data, tmp_path):
    with pytest.raises(ValueError, match="unknown task 'caption'"):
        _spec(data, tmp_path, tasks="vqa,caption").check()
    with pytest.raises(ValueError, match="not a detector checkpoint"):
        _spec(data, tmp_path, stem_init=tmp_path).check()
    assert _spec(data, tmp_path, tasks="pretrain,vqa").task_list() == (*TASKS, VQA)
    with pytest.raises(ValueError, match="needs a detector stem"):
        _spec(data, tmp_path, preset="tiny", config_overrides={},
              stem_init="checkpoints/detector-tiny").check()
    _spec(data, tmp_path, stem_init="checkpoints/detector-tiny").check()  # detector: fine


def test_detector_stem_rejects_too_few_stages():
    with pytest.raises(ValueError, match="stem_channels"):
        DetectorStem(preset("detector", vocab_size=600, stem_channels=(8, 8, 8)))


def test_patch_pixels_reach_only_their_own_token():
    config = preset("detector", vocab_size=600, patch_pixels=8)
    stem = DetectorStem(config).eval()
    image = torch.zeros(1, 3, 240, 320)
    recoloured = image.clone()
    recoloured[:, 0, 40:56, 100:116] = 255.0  # inside patch row 1, column 3 (32 px patches)
    with torch.no_grad():
        a = stem.patch_pixels(image / 127.5 - 1)
        b = stem.patch_pixels(recoloured / 127.5 - 1)
    changed = (a - b).abs().sum(dim=1)[0] > 1e-6  # (rows, cols)
    assert changed.nonzero().tolist() == [[1, 3]]
    assert a.shape == (1, 192, 8, 10)
    with pytest.raises(ValueError, match="patch_pixels 5 must divide"):
        preset("detector", vocab_size=600, patch_pixels=5)


def test_one_split_from_two_kinds_of_reader_is_refused(data, tmp_path, bins_tokenizer):
    import shutil

    hf_only = tmp_path / "hf-only"
    shutil.copytree(data / "hf", hf_only / "hf")  # the same split, without its CLEVR files
    with pytest.raises(ValueError, match="dirs of one kind"):
        load_splits([data, hf_only], bins_tokenizer)
