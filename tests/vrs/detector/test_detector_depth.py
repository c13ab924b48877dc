"""RGB-D: the detector reasoner given the front camera's depth image (`vrs.detector.depth`,
`--reasoner detector+depth`), on the simulator's own renders."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ravens_env.agents.oracle import OracleActor
from ravens_env.env import TabletopEnv
from vrs.detector.camera import PinholeCamera
from vrs.detector.depth import centre_heights
from vrs.loading import CheckpointError, canonical_name, load_reasoner


def test_a_pixel_and_its_depth_unproject_to_the_point_they_came_from():
    cam = PinholeCamera()
    points = np.random.default_rng(0).uniform((0.3, -0.4, 0.0), (0.7, 0.4, 0.2), (50, 3))
    projected = cam.project(points)
    assert cam.unproject_depth(projected[:, :2], projected[:, 2]) == pytest.approx(points,
                                                                                   abs=1e-9)


@pytest.fixture(scope="module")
def pyramid_middle_row():
    """A pyramid whose base and first middle-row block the oracle placed (seed 5300: the
    middle-row block is the brown one, which the RGB parse puts a level too low)."""
    with TabletopEnv() as env:
        obs = env.reset("stack-block-pyramid", 5300)
        actor = OracleActor(env)
        for _ in range(4):
            obs = env.execute(actor.act(obs, env.task.oracle_step(env.scene(visibility=False))))
        yield obs, env.scene(visibility=False)


def test_the_depth_at_a_blocks_centre_gives_its_height(pyramid_middle_row):
    obs, truth = pyramid_middle_row
    cam = PinholeCamera()
    blocks = [o for o in truth.objects if o.type == "block"]
    uv = cam.project(np.array([b.position for b in blocks]))[:, :2]
    heights = centre_heights(obs.front_depth, uv, cam)
    seen = [i for i, b in enumerate(blocks) if b.name != "pink block"]  # pink: under brown
    assert heights[seen] == pytest.approx([blocks[i].position[2] for i in seen], abs=0.006)
    with pytest.raises(ValueError, match="depth image"):
        centre_heights(obs.front_rgb, uv, cam)


def test_with_depth_a_raised_block_is_placed_where_it_stands(pyramid_middle_row):
    """The RGB parse reads the brown block one level too low, 2.5 cm off; with depth it is
    within 1 cm and rests on the red block under it."""
    obs, truth = pyramid_middle_row
    rgb, rgbd = load_reasoner("detector"), load_reasoner("detector+depth")
    where = truth.get("brown block").position
    off = {name: math.dist(r.parse_many([obs.front_rgb], [obs.front_depth])[0][0]
                           .get("brown block").position[:2], where[:2])
           for name, r in (("rgb", rgb), ("rgbd", rgbd))}
    assert off["rgb"] > 0.02 and off["rgbd"] < 0.01
    scene = rgbd.ask(obs.front_rgb, ["is the brown block on the red block?"],
                     depth=obs.front_depth)
    assert scene[0].text == "yes"
    assert rgb.ask(obs.front_rgb, ["is the brown block on the red block?"],
                   depth=obs.front_depth)[0].text == "no"  # the RGB reasoner ignores depth


def test_the_parse_cache_tells_a_look_with_depth_from_one_without(pyramid_middle_row):
    obs, truth = pyramid_middle_row
    rgbd = load_reasoner("detector+depth")
    where = truth.get("brown block").position[:2]
    with_depth = rgbd.parse_many([obs.front_rgb], [obs.front_depth])[0][0]
    without = rgbd.parse_many([obs.front_rgb])[0][0]  # the same image, no depth: RGB
    assert math.dist(with_depth.get("brown block").position[:2], where) < 0.01
    assert math.dist(without.get("brown block").position[:2], where) > 0.02
    with pytest.raises(ValueError, match="2 depth images for 1"):
        rgbd.parse_many([obs.front_rgb], [obs.front_depth] * 2)


def test_depth_is_a_suffix_of_a_detector_name_only():
    assert canonical_name("default+depth") == "detector+depth"
    reasoner = load_reasoner("default+depth")
    assert reasoner.takes_depth and reasoner.name.endswith("+depth")
    assert not load_reasoner("detector").takes_depth
    with pytest.raises(CheckpointError, match="only a detector reasoner takes a depth"):
        load_reasoner("ofa+depth")
