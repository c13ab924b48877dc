"""The detector's global-context block: it reaches the whole image, it starts at zero (adding
it to a trained detector keeps the maps), and the fast inference form computes the same."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from vrs.detector.checkpoint import init_from, load_checkpoint, save_checkpoint
from vrs.detector.config import DetectorConfig
from vrs.detector.inference import FastDetector
from vrs.detector.model import DetectorNet

CONFIG = DetectorConfig(levels=4, level_heat=True)


def _with_live_context(seed: int = 0) -> DetectorNet:
    """A context model whose zero-started output layers have been moved (as training does)."""
    torch.manual_seed(seed)
    net = DetectorNet(dataclasses.replace(CONFIG, global_context=True))
    with torch.no_grad():
        for layer in (net.context.deep, net.context.top):
            layer.weight.normal_(0, 0.5)
            layer.bias.normal_(0, 0.5)
    return net.eval()


def _corner_change(net: torch.nn.Module) -> float:
    """How much the maps at the top-left corner move when only the bottom-right quarter of
    the image changes."""
    torch.manual_seed(1)
    image = torch.rand(1, 3, 240, 320) * 255
    other = image.clone()
    other[..., 120:, 160:] = 255 - other[..., 120:, 160:]
    with torch.no_grad():
        a, b = net(image), net(other)
    return float((a[..., :10, :10] - b[..., :10, :10]).abs().max())


def test_the_context_reaches_corners_the_convolutions_do_not():
    plain = DetectorNet(CONFIG).eval()
    assert _corner_change(plain) == 0.0  # outside every cell's receptive field
    assert _corner_change(_with_live_context()) > 1e-5  # through the image-wide means


def test_an_added_context_block_starts_at_zero_and_keeps_a_detectors_maps(tmp_path):
    torch.manual_seed(2)
    base = DetectorNet(CONFIG).eval()
    save_checkpoint(tmp_path / "base", base)
    grown = init_from(DetectorNet(dataclasses.replace(CONFIG, global_context=True)),
                      tmp_path / "base").eval()
    image = torch.rand(2, 3, 240, 320) * 255
    with torch.no_grad():
        assert torch.equal(grown(image), base(image))
    # ... and the other way round is refused: the plain detector has nowhere to put it
    save_checkpoint(tmp_path / "ctx", _with_live_context())
    with pytest.raises(ValueError, match="unexpected weight context"):
        init_from(DetectorNet(CONFIG), tmp_path / "ctx")
    assert load_checkpoint(tmp_path / "ctx").config.global_context


def test_the_fast_form_of_a_context_model_gives_its_maps():
    net = _with_live_context()
    fast = FastDetector(net)
    for h, w in ((240, 320), (121, 163)):
        x = torch.rand(2, 3, h, w) * 255
        with torch.no_grad():
            assert torch.allclose(fast(x), net(x), atol=1e-4)
