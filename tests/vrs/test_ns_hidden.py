"""vrs.ns.hidden: blocks hidden under raised blocks, read back from the maps where physics
says they must be."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from vrs.ns.config import NsConfig
from vrs.ns.decode import Detection
from vrs.ns.hidden import mid_air_blocks, straddled_gaps, with_hidden_supports

CONFIG = NsConfig(levels=4, level_heat=True)
BLOCK = CONFIG.types.index("block")


def _empty_maps() -> torch.Tensor:
    """(out_channels, R, C) maps with no evidence anywhere (heat logits -10)."""
    rows, cols = CONFIG.height // CONFIG.stride, CONFIG.width // CONFIG.stride
    maps = torch.zeros(CONFIG.out_channels, rows, cols)
    for part in ("heat", "stack_heat"):
        maps[CONFIG.head_layout()[part]] = -10.0
    return maps


def _cell(point: tuple) -> tuple[int, int, float, float]:
    u, v, _ = CONFIG.camera.project(np.array([point]))[0]
    return round(v / CONFIG.stride), round(u / CONFIG.stride), u, v


def _show_block(maps: torch.Tensor, point: tuple, color: str, logit: float) -> None:
    """Evidence of a `color` block centred at `point` (metres) on its level's heatmap."""
    row, col, _, _ = _cell(point)
    channel = CONFIG.heat_channel(BLOCK, CONFIG.level_of(point[2]))
    t, layout = len(CONFIG.types), CONFIG.head_layout()
    index = layout["heat"].start + channel if channel < t else \
        layout["stack_heat"].start + channel - t
    maps[index, row, col] = logit
    colors = CONFIG.head_layout()["color"].start + BLOCK * len(CONFIG.colors)
    maps[colors + CONFIG.colors.index(color), row, col] = 8.0


def _detection(point: tuple, color: str) -> Detection:
    _, _, u, v = _cell(point)
    return Detection("block", color, u, v, point[2], 0.9, 0.9, CONFIG.level_of(point[2]))


def test_a_raised_block_with_nothing_under_it_gets_the_block_its_maps_show_there():
    maps = _empty_maps()
    _show_block(maps, (0.5, 0.0, 0.02), "red", logit=-1.0)  # p = 0.27: under the threshold
    dets, scene = with_hidden_supports([_detection((0.5, 0.0, 0.06), "blue")], maps, CONFIG)
    assert [d.name for d in dets] == ["blue block", "red block"]
    assert scene.holds("blue block", "on", "red block")
    assert scene.support_of("red block") == "table"
    assert mid_air_blocks(scene) == []


def test_without_evidence_under_it_a_raised_block_stays_as_detected():
    maps = _empty_maps()
    dets, scene = with_hidden_supports([_detection((0.5, 0.0, 0.06), "blue")], maps, CONFIG)
    assert [d.name for d in dets] == ["blue block"]
    assert mid_air_blocks(scene) == ["blue block"]


def test_a_tower_is_filled_in_one_level_at_a_time():
    maps = _empty_maps()
    _show_block(maps, (0.5, 0.1, 0.06), "green", logit=-2.0)
    _show_block(maps, (0.5, 0.1, 0.02), "pink", logit=-2.0)
    dets, scene = with_hidden_supports([_detection((0.5, 0.1, 0.10), "blue")], maps, CONFIG)
    assert sorted(d.name for d in dets) == ["blue block", "green block", "pink block"]
    assert scene.holds("blue block", "on", "green block")
    assert scene.holds("green block", "on", "pink block")


def test_the_second_support_of_a_straddling_block_is_looked_for():
    maps = _empty_maps()
    _show_block(maps, (0.5, 0.025, 0.02), "yellow", logit=-1.5)
    found = [_detection((0.5, -0.025, 0.02), "red"), _detection((0.5, 0.0, 0.06), "blue")]
    dets, scene = with_hidden_supports(found, maps, CONFIG)
    assert "yellow block" in {d.name for d in dets}
    assert scene.holds("blue block", "on", "yellow block")
    assert scene.holds("blue block", "on", "red block")
    assert straddled_gaps(scene) == []


def test_a_hidden_block_never_duplicates_a_detected_name():
    maps = _empty_maps()
    _show_block(maps, (0.5, 0.0, 0.02), "blue", logit=0.0)  # reads as the detected color
    dets, _ = with_hidden_supports([_detection((0.5, 0.0, 0.06), "blue")], maps, CONFIG)
    assert [d.name for d in dets] == ["blue block"]


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 1.5])
def test_the_hidden_threshold_must_be_a_probability_or_off(bad):
    with pytest.raises(ValueError, match="hidden_threshold"):
        NsConfig(hidden_threshold=bad)
    assert NsConfig(hidden_threshold=None).hidden_threshold is None
