"""Detector training: resumable, refuses to clobber a run, names bad input."""

from __future__ import annotations

import csv
import itertools
from pathlib import Path

import pytest

from training.detector.train import TrainDetectorSpec, train_detector
from training.schedules import cosine_with_warmup


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> Path:
    from datagen import generate

    out = tmp_path_factory.mktemp("perception-data")
    generate(out, ["block_bowl"], images_per_split=2, questions_per_image=2, shard_size=2,
             progress=False)
    return out


def _spec(data: Path, out: Path, steps: int, **kw) -> TrainDetectorSpec:
    return TrainDetectorSpec(data=[data], val=[data], out=out, steps=steps, batch_size=2,
                               warmup=1, checkpoint_every=2, eval_every=2, progress=False, **kw)


def test_an_interrupted_run_resumes_from_its_last_checkpoint(scenes, tmp_path):
    first = train_detector(_spec(scenes, tmp_path, 2))
    assert first["start_step"] == 0
    with pytest.raises(ValueError, match="--resume"):
        train_detector(_spec(scenes, tmp_path, 4))
    second = train_detector(_spec(scenes, tmp_path, 4, resume=True))
    assert second["start_step"] == 2
    steps = [int(r["step"]) for r in csv.DictReader((tmp_path / "curve.csv").open())]
    assert steps == [2, 4]
    assert (tmp_path / "model.safetensors").is_file()
    assert (tmp_path / "checkpoints" / "step_0000004").is_dir()


def test_bad_input_is_named(tmp_path):
    with pytest.raises(ValueError, match="no dataset directory"):
        train_detector(_spec(tmp_path / "nowhere", tmp_path / "out", 2))
    with pytest.raises(ValueError, match="steps must be at least 1"):
        train_detector(_spec(tmp_path, tmp_path / "out", 0))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"scenes\.json"):
        train_detector(_spec(tmp_path / "empty", tmp_path / "out2", 2))


def test_the_schedule_warms_up_then_decays_to_zero():
    factors = [cosine_with_warmup(s, 10, 100) for s in range(101)]
    assert factors[0] == pytest.approx(0.1) and factors[9] == pytest.approx(1.0)
    assert all(a >= b for a, b in itertools.pairwise(factors[9:]))
    assert factors[100] == pytest.approx(0.0, abs=1e-12)


def test_resume_refuses_changed_settings_and_keeps_one_curve_row_per_step(scenes, tmp_path):
    train_detector(_spec(scenes, tmp_path, 4))
    with pytest.raises(ValueError, match=r"settings differ.*lr: 0.002 -> 0.001"):
        train_detector(_spec(scenes, tmp_path, 6, resume=True, lr=1e-3))
    # Interrupted after step 2's checkpoint: step 4's row was written, its checkpoint was not.
    import shutil
    shutil.rmtree(tmp_path / "checkpoints" / "step_0000004")
    train_detector(_spec(scenes, tmp_path, 6, resume=True))
    steps = [int(r["step"]) for r in csv.DictReader((tmp_path / "curve.csv").open())]
    assert steps == [2, 4, 6]


def test_resume_without_a_checkpoint_says_so(scenes, tmp_path, capsys):
    summary = train_detector(_spec(scenes, tmp_path, 2, resume=True))
    assert summary["start_step"] == 0
    assert "no checkpoint" in capsys.readouterr().err


def test_init_starts_from_a_detector_and_keeps_its_config(scenes, tmp_path):
    import dataclasses
    import json

    from vrs.detector.checkpoint import load_checkpoint, save_checkpoint
    from vrs.detector.config import DetectorConfig
    from vrs.detector.model import DetectorNet

    config = dataclasses.replace(DetectorConfig(), head_channels=8)
    save_checkpoint(tmp_path / "init", DetectorNet(config))
    train_detector(_spec(scenes, tmp_path / "run", 2, init=tmp_path / "init"))
    assert load_checkpoint(tmp_path / "run").config.head_channels == 8
    saved = json.loads((tmp_path / "run" / "config.json").read_text())["training"]
    assert saved["spec"]["init"] == str(tmp_path / "init")
    assert {"commit", "machine", "date", "torch"} <= set(saved) and saved["machine"]
    assert saved["spec"]["data"] == [str(scenes)] and saved["steps"] == 2
    assert saved["images"] == 2 and "final_loss" in saved and "final_recall" in saved
    from runtime.eval.held_out import used_data

    assert used_data(tmp_path / "run") == [("training", scenes)]  # held-out checks read it
    with pytest.raises(ValueError, match="not a detector checkpoint"):
        train_detector(_spec(scenes, tmp_path / "r2", 2, init=tmp_path / "nothing"))


def test_a_mix_draws_splits_by_weight_whatever_their_size():
    import numpy as np

    from training.detector.train import image_weights

    splits = ["block_stack"] * 10 + ["block_bowl"] * 30 + ["unseen"] * 60
    p = image_weights(splits, "block_stack=2,block_bowl=1,unseen=1")
    by_split = {s: float(p[[i for i, x in enumerate(splits) if x == s]].sum()) for s in splits}
    assert by_split == pytest.approx({"block_stack": 0.5, "block_bowl": 0.25, "unseen": 0.25})
    assert image_weights(splits, "block_bowl=1")[:10].sum() == 0  # unnamed splits left out
    assert image_weights(splits, None) is None  # every image alike (the old batches)
    with pytest.raises(ValueError, match="cogent_a"):
        image_weights(splits, "cogent_a=1")
    assert np.isclose(p.sum(), 1.0)


def test_a_mixed_run_records_its_mix_and_resume_checks_it(scenes, tmp_path):
    train_detector(_spec(scenes, tmp_path, 2, mix="block_bowl=1"))
    with pytest.raises(ValueError, match="mix"):
        train_detector(_spec(scenes, tmp_path, 4, resume=True))
    assert train_detector(_spec(scenes, tmp_path, 4, resume=True,
                                  mix=" block_bowl=1.0"))["start_step"] == 2  # same mix


def test_a_level_heatmap_run_fine_tunes_a_detector_and_exports_it(scenes, tmp_path):
    from vrs.detector.checkpoint import save_checkpoint
    from vrs.detector.config import DetectorConfig
    from vrs.detector.model import DetectorNet
    from vrs.loading import load_reasoner

    save_checkpoint(tmp_path / "base", DetectorNet(DetectorConfig()))
    with pytest.raises(ValueError, match="--level-heat needs --levels"):
        train_detector(_spec(scenes, tmp_path / "bad", 2, level_heat=True))
    out = train_detector(_spec(scenes, tmp_path / "run", 2, init=tmp_path / "base", levels=4,
                                 level_heat=True))
    assert out["heat"] > 0 and "level" not in out  # no level logits to train
    config = load_reasoner(tmp_path / "run").config
    assert config.level_heat and config.levels == 4


def test_wider_channels_with_init_widen_the_detector_and_resume_keeps_them(scenes, tmp_path):
    """`--channels` wider than the init model's: the run starts from the init's function
    (Net2WiderNet), exports the wider network, records the widths, and a resume asking for
    other widths is refused."""
    import torch

    from vrs.detector.checkpoint import load_checkpoint, save_checkpoint
    from vrs.detector.config import DetectorConfig
    from vrs.detector.model import DetectorNet

    save_checkpoint(tmp_path / "base", DetectorNet(DetectorConfig()))
    wide = (16, 32, 64, 96)
    train_detector(_spec(scenes, tmp_path / "run", 2, init=tmp_path / "base", channels=wide,
                         lr=1e-9))  # a step too small to move: the widened weights remain
    run, base = load_checkpoint(tmp_path / "run"), load_checkpoint(tmp_path / "base")
    assert run.config.channels == wide and run.config.head_channels == 32
    image = torch.rand(1, 3, 96, 128) * 255
    with torch.no_grad():
        assert torch.allclose(run(image), base(image), atol=0.05 * float(base(image).abs().max()))
    with pytest.raises(ValueError, match="channels"):
        train_detector(_spec(scenes, tmp_path / "run", 4, init=tmp_path / "base",
                             channels=(16, 32, 64, 128), resume=True))
    with pytest.raises(ValueError, match="can only widen"):
        train_detector(_spec(scenes, tmp_path / "narrow", 2, init=tmp_path / "base",
                             channels=(16, 32, 48, 32)))


def test_dim_darkens_half_a_batch_within_its_range_and_leaves_labels_alone(scenes):
    """`--dim LOW` (session 32): about half the images times one gain in [LOW, 1] each, the
    targets as without it; off (None), the batch is exactly what it was before the option."""
    import numpy as np
    import torch

    from training.detector.data import SceneImages, _darken
    from vrs.detector.config import DetectorConfig

    imgs = torch.full((400, 3, 4, 4), 200.0)
    out = _darken(imgs, np.random.default_rng(0), 0.5)
    gains = out[:, 0, 0, 0] / 200.0
    assert 0.4 < (gains < 1).float().mean() < 0.6
    assert gains.min() >= 0.5 - 1e-6 and gains.max() <= 1.0
    assert torch.allclose(out / gains.view(-1, 1, 1, 1), imgs)  # one gain per whole image
    data = SceneImages([scenes], DetectorConfig())
    plain = data.batch([0, 1], np.random.default_rng(3))
    off = data.batch([0, 1], np.random.default_rng(3), dim=None)
    dark = data.batch([0, 1], np.random.default_rng(3), dim=0.3)
    assert torch.equal(plain["image"], off["image"])
    assert all(torch.equal(plain[k], dark[k]) for k in plain if k != "image")


def test_dim_is_recorded_checked_on_resume_and_bounded(scenes, tmp_path):
    train_detector(_spec(scenes, tmp_path, 2, dim=0.6))
    with pytest.raises(ValueError, match="dim"):
        train_detector(_spec(scenes, tmp_path, 4, resume=True))
    assert train_detector(_spec(scenes, tmp_path, 4, resume=True, dim=0.6))["start_step"] == 2
    assert _spec(scenes, tmp_path, 2).recorded()["dim"] is None  # off: older runs' default
    with pytest.raises(ValueError, match="--dim must be between 0 and 1"):
        train_detector(_spec(scenes, tmp_path / "x", 2, dim=1.5))
    with pytest.raises(ValueError, match="cannot run without it"):
        train_detector(_spec(scenes, tmp_path / "y", 2, dim=0.6, augment=False))


def test_a_backbone_run_loads_imagenet_weights_once_and_records_it(scenes, tmp_path,
                                                                   monkeypatch):
    """`--backbone`: the init detector gains the stem with the pinned ImageNet weights (the
    fetch stands in for a download here; the slow test in tests/vrs/detector fetches the real
    file), the run records it, and a later run from that detector keeps its stem as trained."""
    import torch

    import training.detector.train as train_module
    from vrs.detector.backbone import MobileNetV2Features
    from vrs.detector.checkpoint import load_checkpoint, save_checkpoint
    from vrs.detector.config import DetectorConfig
    from vrs.detector.model import DetectorNet

    torch.manual_seed(0)
    imagenet = MobileNetV2Features()
    with torch.no_grad():
        for p in imagenet.parameters():
            p.normal_()
    fetched: list[str] = []

    def fake_state(name, progress=True):
        fetched.append(name)
        return imagenet.state_dict()

    monkeypatch.setattr(train_module, "imagenet_state", fake_state)
    save_checkpoint(tmp_path / "base", DetectorNet(DetectorConfig()))
    train_detector(_spec(scenes, tmp_path / "bb", 2, init=tmp_path / "base",
                         backbone="mobilenet_v2-half"))
    run = load_checkpoint(tmp_path / "bb")
    assert run.config.backbone == "mobilenet_v2-half" and fetched == ["mobilenet_v2-half"]
    assert all(torch.equal(a, b) for a, b in zip(run.backbone.state_dict().values(),
                                                 imagenet.state_dict().values(), strict=True))
    assert _spec(scenes, tmp_path, 2, backbone="mobilenet_v2-half").recorded()["backbone"]
    resumed = train_detector(_spec(scenes, tmp_path / "bb", 4, init=tmp_path / "base",
                                   backbone="mobilenet_v2-half", resume=True))
    assert resumed["start_step"] == 2 and fetched == ["mobilenet_v2-half"]  # from its checkpoint
    train_detector(_spec(scenes, tmp_path / "again", 2, init=tmp_path / "bb"))
    assert fetched == ["mobilenet_v2-half"]  # the init's stem came with it
    assert load_checkpoint(tmp_path / "again").config.backbone == "mobilenet_v2-half"


def test_backbone_mistakes_are_named(scenes, tmp_path):
    with pytest.raises(ValueError, match="--backbone 'resnet' is not known"):
        train_detector(_spec(scenes, tmp_path / "a", 2, backbone="resnet"))
    with pytest.raises(ValueError, match="widen in one run, then add the backbone"):
        train_detector(_spec(scenes, tmp_path / "b", 2, backbone="mobilenet_v2-half",
                             channels=(16, 32, 64, 128)))


def test_backbone_lr_trains_the_backbone_weights_but_keeps_its_imagenet_statistics(
        scenes, tmp_path, monkeypatch):
    import torch

    import training.detector.train as train_module
    from vrs.detector.backbone import MobileNetV2Features
    from vrs.detector.checkpoint import load_checkpoint

    torch.manual_seed(0)
    imagenet = MobileNetV2Features().state_dict()
    monkeypatch.setattr(train_module, "imagenet_state", lambda name, progress=True: imagenet)
    train_detector(_spec(scenes, tmp_path / "tuned", 2, backbone="mobilenet_v2-half",
                         backbone_lr=1e-2))
    tuned = load_checkpoint(tmp_path / "tuned").backbone.state_dict()
    weights = [k for k in imagenet if k.endswith("weight") and imagenet[k].dim() == 4]
    stats = [k for k in imagenet if "running" in k]
    assert any(not torch.equal(tuned[k], imagenet[k]) for k in weights)
    assert all(torch.equal(tuned[k], imagenet[k]) for k in stats)
    with pytest.raises(ValueError, match="--backbone-lr must be positive"):
        train_detector(_spec(scenes, tmp_path / "x", 2, backbone="mobilenet_v2-half",
                             backbone_lr=0.0))
    with pytest.raises(ValueError, match="--backbone-lr: this detector has no backbone"):
        train_detector(_spec(scenes, tmp_path / "y", 2, backbone_lr=1e-3))
    with pytest.raises(ValueError, match="--inject-lr: this detector has no backbone"):
        train_detector(_spec(scenes, tmp_path / "z", 2, inject_lr=1e-3))
    with pytest.raises(ValueError, match="--inject-lr must be positive"):
        train_detector(_spec(scenes, tmp_path / "w", 2, backbone="mobilenet_v2-half",
                             inject_lr=-1.0))


def test_inject_lr_gives_the_context_convolutions_their_own_rate():
    import torch

    from training.detector.train import _param_groups
    from vrs.detector.config import DetectorConfig
    from vrs.detector.model import DetectorNet

    net = DetectorNet(DetectorConfig(backbone="mobilenet_v2-half"))
    groups = _param_groups(net, _spec(Path("d"), Path("o"), 2, lr=1e-4, inject_lr=1e-3))
    inject = {id(p) for p in net.inject.parameters()}
    assert [g.get("lr") for g in groups] == [None, 1e-3]  # None: the optimiser's lr
    assert {id(p) for p in groups[1]["params"]} == inject
    assert not inject & {id(p) for p in groups[0]["params"]}
    assert not any(p.requires_grad for p in net.backbone.parameters())
    opt = torch.optim.AdamW(groups, lr=1e-4)
    assert [g["lr"] for g in opt.param_groups] == [1e-4, 1e-3]
    both = _param_groups(DetectorNet(DetectorConfig(backbone="mobilenet_v2-half")),
                         _spec(Path("d"), Path("o"), 2, backbone_lr=2e-5))
    assert [g.get("lr") for g in both] == [None, 2e-3, 2e-5]  # inject at --lr by default
