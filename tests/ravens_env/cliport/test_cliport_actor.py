"""The CLIPort actor: pixel/world conversion, checkpoints, and clear errors at the seam."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch

from ravens_env.cliport import CliportModel, preset
from ravens_env.cliport.actions import (
    action_to_labels,
    bin_to_yaw,
    labels_to_action,
    pixel_to_world,
    world_to_pixel,
    yaw_to_bin,
)
from ravens_env.cliport.actor import CliportActor, load_checkpoint, save_checkpoint
from ravens_env.cliport.policy import to_input
from ravens_env.geometry import HEIGHTMAP_SHAPE, in_workspace
from ravens_env.types import PickPlace

TINY = {"language": "hash", "widths": (8, 16), "stem_width": 8}


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    torch.manual_seed(0)
    config = preset("cpu", **TINY)
    return save_checkpoint(tmp_path_factory.mktemp("ckpt"), CliportModel(config), config)


def test_every_pixel_survives_the_round_trip_through_world_coordinates():
    height = np.full(HEIGHTMAP_SHAPE, 0.04, np.float32)
    for row in range(HEIGHTMAP_SHAPE[0]):
        for col in range(HEIGHTMAP_SHAPE[1]):
            x, y, z = pixel_to_world(row, col, height)
            assert world_to_pixel(x, y) == (row, col)
    assert z == pytest.approx(0.04) and in_workspace((x, y, z))


def test_rotation_bins_and_yaws_agree():
    for k in range(36):
        assert yaw_to_bin(bin_to_yaw(k, 36), 36) == k
    assert yaw_to_bin(math.radians(-10), 36) == 35
    assert yaw_to_bin(math.radians(364), 36) == 0
    assert bin_to_yaw(18, 36) == pytest.approx(-math.pi)


def test_labels_and_actions_convert_both_ways():
    height = np.zeros(HEIGHTMAP_SHAPE, np.float32)
    action = labels_to_action((100, 40), (250, 120), 9, height, 36)
    assert action.pick_yaw == 0.0 and action.place_yaw == pytest.approx(math.pi / 2)
    assert action_to_labels(action, 36) == {"pick": (100, 40), "place": (250, 120),
                                            "rotation": 9}
    turned = PickPlace(action.pick, action.place, pick_yaw=0.3, place_yaw=0.3 + math.pi / 2)
    assert action_to_labels(turned, 36)["rotation"] == 9  # only the yaw change matters


def test_a_checkpoint_loads_to_the_same_network(checkpoint):
    saved = sorted(p.name for p in checkpoint.iterdir())
    assert saved == ["config.json", "model.safetensors"]
    model_a, config = load_checkpoint(checkpoint)
    model_b, _ = load_checkpoint(checkpoint)
    assert config == preset("cpu", **TINY)
    x, lang, pick = torch.randn(1, 4, 320, 160), torch.randn(1, 384), torch.tensor([[10, 20]])
    with torch.no_grad():
        for a, b in zip(model_a(x, lang, pick), model_b(x, lang, pick), strict=True):
            assert torch.equal(a, b)


def test_a_directory_without_weights_is_not_a_checkpoint(tmp_path):
    preset("cpu", **TINY).save(tmp_path / "config.json")
    with pytest.raises(FileNotFoundError, match=r"missing model\.safetensors"):
        CliportActor(tmp_path)


def test_act_returns_a_world_action_from_the_predicted_pixels(env, checkpoint):
    obs = env.reset("put-block-in-bowl", 0)
    actor = CliportActor(checkpoint)
    block, bowl = env.task.target
    action = actor.act(obs, f"put the {block} in the {bowl}",
                       known_objects=env.scene(visibility=False).names())
    pred = actor.last_prediction
    assert action.pick == pixel_to_world(*pred.pick, obs.height)
    assert action.place == pixel_to_world(*pred.place, obs.height)
    assert action.pick_yaw == 0.0 and action.place_yaw == bin_to_yaw(pred.rotation, 36)
    assert in_workspace(action.pick) and in_workspace(action.place)
    x = to_input(obs.color, obs.height, actor.config)[None]
    lang = actor.encoder.encode([f"put the {block} in the {bowl}"])
    assert actor.model.predict(x, lang)[0] == pred  # act() adds nothing but conversion


def test_a_wrong_heightmap_shape_is_refused_naming_both_shapes(env, checkpoint):
    obs = env.reset("put-block-in-bowl", 0)
    flipped = dataclasses.replace(obs, height=obs.height.T.copy())
    expected = r"heightmap must have shape \(320, 160\).*got \(160, 320\)"
    with pytest.raises(ValueError, match=expected):
        CliportActor(checkpoint).act(flipped, "put the red block in the blue bowl")


def test_an_object_that_was_not_perceived_is_refused(env, checkpoint):
    obs = env.reset("put-block-in-bowl", 0)
    with pytest.raises(ValueError, match=r"names 'purple block'.*known objects: red block, "
                                         r"blue bowl"):
        CliportActor(checkpoint).act(obs, "put the purple block in the blue bowl",
                                     known_objects=["red block", "blue bowl"])
    with pytest.raises(ValueError, match="expected 'put the <object> in"):
        CliportActor(checkpoint).act(obs, "tidy up the table")


def test_rotation_bin_3_turns_the_picked_block_by_30_degrees(env):
    """The bin's meaning in the simulator: the same +theta the transport crops use."""
    obs = env.reset("stack-blocks", 0)
    before = env.scene(visibility=False).of_type("block")[0]
    action = labels_to_action(world_to_pixel(*before.position[:2]), world_to_pixel(0.5, 0.0), 3,
                              obs.height, 36)
    env.execute(action)
    after = env.scene(visibility=False).get(before.name)
    turned = math.degrees(after.yaw - before.yaw) % 90  # a cube's yaw is defined mod 90°
    assert turned == pytest.approx(30.0, abs=0.5)
