"""The PyBullet renderer: the default image is the controller's image; variants differ."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from datagen.families import FAMILIES
from datagen.looks import LOOK_VARIANTS
from datagen.render_pybullet import (
    HIRES,
    VARIANTS,
    camera_for,
    png_bytes,
    render_state,
)
from datagen.scenes import SampledState, sample_state
from ravens_env.cameras import FrontCameraConfig
from ravens_env.colors import rgba


def _unpainted(env, task="put-blocks-in-matching-bowls", seed=3) -> SampledState:
    env.reset(task, seed)
    return SampledState("block_bowl", 0, 0, task, seed, "none", "",
                        scene=env.scene(visibility=False))


def test_default_variant_is_the_env_front_image_with_the_envs_pixel_data(env):
    state = _unpainted(env)
    image = render_state(env, state, "default", np.random.default_rng(0))
    assert np.array_equal(image.rgb, env.observe().front_rgb)
    truth = env.scene()
    for ours, theirs in zip(image.scene.objects, truth.objects, strict=True):
        assert (ours.pixel_box, ours.pixel_coords, ours.visible_pixels) == (
            theirs.pixel_box, theirs.pixel_coords, theirs.visible_pixels)


def test_recolored_state_is_painted_with_its_new_colors(env):
    fam = FAMILIES["unseen"]
    state = sample_state(env, fam, fam.seed_base, 0)
    image = render_state(env, state, "default", np.random.default_rng(0))
    block = next(o for o in image.scene.objects if o.type == "block" and o.visible)
    u0, v0, u1, v1 = block.pixel_box
    patch = image.rgb[v0:v1 + 1, u0:u1 + 1].reshape(-1, 3).astype(int)
    want = np.array(rgba(block.color, block.shade)[:3]) * 255
    assert np.min(np.abs(patch - want).sum(axis=1)) < 60  # some pixel near the new color


def test_variants_change_the_camera_and_keep_pixel_data_consistent(env):
    state = _unpainted(env, "stack-block-pyramid", 5)
    images = {v: render_state(env, state, v, np.random.default_rng(1)) for v in VARIANTS
              if v not in LOOK_VARIANTS}
    assert images["hires"].rgb.shape == (HIRES[1], HIRES[0], 3)
    assert images["jitter"].camera != FrontCameraConfig()
    assert images["arm"].arm_tip is not None and images["default"].arm_tip is None
    assert not np.array_equal(images["arm"].rgb, images["default"].rgb)
    assert not np.array_equal(images["jitter"].rgb, images["default"].rgb)
    for image in images.values():
        h, w = image.rgb.shape[:2]
        for o in image.scene.objects:
            u0, v0, u1, v1 = o.pixel_box
            assert 0 <= u0 <= u1 <= w - 1 and 0 <= v0 <= v1 <= h - 1
    assert env.arm.tip_pose()[0][2] > 0.5  # the arm went home after the "arm" render


@pytest.mark.parametrize("seed", range(5))
def test_jitter_stays_within_its_bounds(seed):
    cam = camera_for("jitter", np.random.default_rng(seed))
    base = FrontCameraConfig()
    assert np.all(np.abs(np.subtract(cam.eye, base.eye)) <= 0.03)
    assert np.all(np.abs(np.subtract(cam.target, base.target)) <= 0.03)
    assert abs(cam.fov_deg - base.fov_deg) <= 4.0


def test_png_encoding_is_deterministic_and_lossless():
    rgb = np.random.default_rng(0).integers(0, 255, (24, 32, 3), dtype=np.uint8)
    assert png_bytes(rgb) == png_bytes(rgb.copy())
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(png_bytes(rgb)))), rgb)


def test_render_state_refuses_a_look_variant_and_names_the_renderer_to_use(env):
    state = _unpainted(env)
    with pytest.raises(ValueError, match="render_look"):
        render_state(env, state, "random", np.random.default_rng(0))
