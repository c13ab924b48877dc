"""Widening a trained detector (Net2WiderNet): the wider network computes the narrow one's
function, its copies can diverge, and what cannot be widened is named."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from training.detector.widen import group_sizes, layers, widen
from vrs.detector.config import DetectorConfig
from vrs.detector.model import DetectorNet


def _trained_like(config: DetectorConfig, seed: int = 0) -> DetectorNet:
    """A detector with random weights and BatchNorm statistics (a fresh one has mean 0 and
    variance 1 everywhere, which would hide a statistic copied to the wrong channel)."""
    torch.manual_seed(seed)
    net = DetectorNet(config)
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    return net.eval()


def _wider(config: DetectorConfig) -> DetectorConfig:
    return dataclasses.replace(config, channels=(16, 40, 64, 128), head_channels=48)


@pytest.fixture(scope="module")
def config() -> DetectorConfig:
    return DetectorConfig(levels=4, level_heat=True)


def test_the_widened_detector_computes_the_same_maps(config):
    old = _trained_like(config)
    new = widen(old, _wider(config), noise=0.0).eval()
    assert new.config.channels == (16, 40, 64, 128) and new.config.head_channels == 48
    assert sum(p.numel() for p in new.parameters()) > 2 * sum(p.numel() for p in old.parameters())
    image = torch.rand(2, 3, 96, 128) * 255
    with torch.no_grad():
        a, b = old(image), new(image)
    assert a.shape == b.shape
    assert torch.allclose(a, b, atol=1e-4 * float(a.abs().max()))


def test_noise_lets_the_copies_differ_and_stays_close(config):
    old = _trained_like(config)
    quiet, noisy = widen(old, _wider(config), noise=0.0), widen(old, _wider(config), noise=0.05)
    key = "stages.3.1.0.weight"  # the last stage's second conv: 64 old rows, 64 copies
    q, n = quiet.state_dict()[key], noisy.state_dict()[key]
    assert torch.equal(q[:64], n[:64]) and not torch.equal(q[64:], n[64:])
    image = torch.rand(1, 3, 96, 128) * 255
    with torch.no_grad():
        a, b = old(image), noisy.eval()(image)
    assert 0 < float((a - b).abs().max()) < 0.5 * float(a.abs().max())
    again = widen(old, _wider(config), noise=0.05)  # seeded: the same copies every time
    assert torch.equal(again.state_dict()[key], n)


def test_every_weight_of_the_network_belongs_to_one_listed_layer(config):
    """The layer list is what `widen` walks: a layer added to DetectorNet without it would be
    left at its random initialisation, silently."""
    listed = {f"{layer.conv}.weight" for layer in layers(config)} | {
        f"{layer.bn}.{t}" for layer in layers(config) if layer.bn
        for t in ("weight", "bias", "running_mean", "running_var", "num_batches_tracked")}
    listed.add("head.1.bias")
    assert set(DetectorNet(config).state_dict()) == listed
    assert group_sizes(config)["S3"] == config.channels[3]


def test_narrower_or_deeper_or_another_head_is_refused_with_the_reason(config):
    old = DetectorNet(config)
    with pytest.raises(ValueError, match="S3: 64 -> 32"):
        widen(old, dataclasses.replace(config, channels=(16, 32, 48, 32)))
    with pytest.raises(ValueError, match="depth"):
        widen(old, dataclasses.replace(config, channels=(16, 32, 48, 64, 96)))
    with pytest.raises(ValueError, match="head"):
        widen(old, dataclasses.replace(config, channels=(16, 32, 64, 128), levels=0,
                                       level_heat=False))
