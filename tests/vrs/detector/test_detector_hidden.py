"""vrs.detector.hidden: blocks hidden under raised blocks, read back from the maps where physics
says they must be."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import torch

from vrs.detector.config import DetectorConfig
from vrs.detector.decode import Detection
from vrs.detector.hidden import mid_air_blocks, with_hidden_supports

CONFIG = DetectorConfig(levels=4, level_heat=True)
BLOCK = CONFIG.types.index("block")


def _empty_maps() -> torch.Tensor:
    """(out_channels, R, C) maps with no evidence anywhere (heat logits -10)."""
    rows, cols = CONFIG.height // CONFIG.stride, CONFIG.width // CONFIG.stride
    maps = torch.zeros(CONFIG.out_channels, rows, cols)
    for part in ("heat", "stack_heat"):
        maps[CONFIG.head_layout()[part]] = -10.0
    return maps


def _cell(point: tuple) -> tuple[int, int, float, float]:
    """(row, col) of the cell a centre is trained at (`targets.make_targets`: floor), (u, v)."""
    u, v, _ = CONFIG.camera.project(np.array([point]))[0]
    return math.floor(v / CONFIG.stride), math.floor(u / CONFIG.stride), u, v


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
    assert len(dets) == 3  # the gap mirrored through the yellow block is the red one: taken


def test_two_upper_blocks_pointing_at_one_missing_base_add_it_once():
    """A 2-block middle row over a 3-block base whose middle block is hidden."""
    maps = _empty_maps()
    _show_block(maps, (0.5, 0.0, 0.02), "yellow", logit=-1.0)
    _show_block(maps, (0.5, 0.0, 0.02), "green", logit=-1.0)  # same cell: the color read wins
    found = [_detection((0.5, -0.05, 0.02), "red"), _detection((0.5, 0.05, 0.02), "cyan"),
             _detection((0.5, -0.025, 0.06), "blue"), _detection((0.5, 0.025, 0.06), "pink")]
    dets, scene = with_hidden_supports(found, maps, CONFIG)
    added = [d for d in dets if d not in found]
    assert len(added) == 1 and added[0].level == 0
    assert scene.holds("blue block", "on", added[0].name)
    assert scene.holds("pink block", "on", added[0].name)


def test_no_block_is_added_where_a_found_block_already_is():
    from ravens_env.scene_graph import Scene, SceneObject
    from vrs.detector.hidden import _free

    red = SceneObject("red block", "block", "red", (0.5, 0.035, 0.02))
    assert _free([(0.5, 0.0, 0.02)], Scene([red], [])) == []  # it would overlap the red one
    assert _free([(0.5, -0.015, 0.02)], Scene([red], [])) == [(0.5, -0.015, 0.02)]
    maps = _empty_maps()
    _show_block(maps, (0.5, 0.0, 0.02), "yellow", logit=2.0)
    with_red_under = [_detection((0.5, 0.01, 0.02), "red"), _detection((0.5, 0.0, 0.06), "blue")]
    dets, _ = with_hidden_supports(with_red_under, maps, CONFIG)
    assert len(dets) == 2


def test_a_raised_block_cast_past_on_of_a_block_below_leans_on_it_half_a_slot_away():
    """A raised block 3.5 cm from the block under it (past "on"'s 3 cm) rests on it, at a
    straddler's 2.5 cm, rather than on nothing; with no block within reach it stays raised
    on nothing (then the hidden-support pass looks under it)."""
    maps = _empty_maps()
    found = [_detection((0.5, 0.035, 0.02), "red"), _detection((0.5, 0.0, 0.06), "blue")]
    _, scene = with_hidden_supports(found, maps, CONFIG)
    assert scene.holds("blue block", "on", "red block") and mid_air_blocks(scene) == []
    blue, red = scene.get("blue block").position, scene.get("red block").position
    assert math.dist(blue[:2], red[:2]) == pytest.approx(0.025, abs=1e-6)
    far = [_detection((0.5, 0.07, 0.02), "red"), _detection((0.5, 0.0, 0.06), "blue")]
    _, scene = with_hidden_supports(far, maps, CONFIG)
    assert mid_air_blocks(scene) == ["blue block"]


@pytest.mark.parametrize("config", [DetectorConfig(levels=4), DetectorConfig(),
                                    replace(CONFIG, hidden_threshold=None)],
                         ids=["level-logits", "no-levels", "off"])
def test_detectors_without_per_level_heatmaps_or_with_the_pass_off_add_nothing(config):
    rows, cols = config.height // config.stride, config.width // config.stride
    maps = torch.zeros(config.out_channels, rows, cols)  # p = 0.5 everywhere
    level = 1 if config.levels else None
    _, _, u, v = _cell((0.5, 0.0, 0.06))
    dets, _ = with_hidden_supports([Detection("block", "blue", u, v, 0.06, 0.9, 0.9, level)],
                                   maps, config)
    assert len(dets) == 1


def test_the_reasoner_answers_from_the_scene_with_hidden_supports():
    from vrs.detector.model import DetectorNet
    from vrs.detector.reasoner import DetectorReasoner

    maps = _empty_maps()
    _show_block(maps, (0.5, 0.0, 0.06), "blue", logit=6.0)  # a block one level up ...
    _show_block(maps, (0.5, 0.0, 0.02), "red", logit=-1.0)  # ... on a block barely seen
    image = np.zeros((240, 320, 3), np.uint8)
    question = ["what is the color of the block under the blue block?"]
    for threshold, answer in ((0.05, "red"), (None, "nothing")):
        reasoner = DetectorReasoner(DetectorNet(replace(CONFIG, hidden_threshold=threshold)))
        reasoner.forward = lambda imgs: maps[None].expand(len(imgs), -1, -1, -1)
        assert reasoner.ask(image, question)[0].text == answer


def test_a_hidden_block_never_duplicates_a_detected_name():
    maps = _empty_maps()
    _show_block(maps, (0.5, 0.0, 0.02), "blue", logit=0.0)  # reads as the detected color
    dets, _ = with_hidden_supports([_detection((0.5, 0.0, 0.06), "blue")], maps, CONFIG)
    assert [d.name for d in dets] == ["blue block"]


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 1.5])
def test_the_hidden_threshold_must_be_a_probability_or_off(bad):
    with pytest.raises(ValueError, match="hidden_threshold"):
        DetectorConfig(hidden_threshold=bad)
    assert DetectorConfig(hidden_threshold=None).hidden_threshold is None
