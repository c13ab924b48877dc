"""The Blender renderer: ground truth for Blender's camera, determinism by seed, the clear error
without `bpy`, and `codeplan datagen vqa --renderer blender` end to end.

Tests that render need a Python with `bpy` (this one, or $CODEPLAN_BLENDER_PYTHON) and are
skipped, saying so, without it; they are `slow` (a render is 1-3 s on 2 cores).
"""

from __future__ import annotations

import json
import math
import stat
import sys

import numpy as np
import pytest

from datagen.blender_client import (
    BPY_VERSION,
    ENV_VAR,
    BlenderUnavailableError,
    blender_python,
    check_blender,
)
from datagen.render_blender import (
    EYE_JITTER,
    blender_camera,
    check_blender_variant,
    light_params,
    object_pose,
    render_message,
)
from ravens_env.cameras import FrontCameraConfig
from ravens_env.scene_graph import Scene, SceneObject, compute_relations


def _bpy_python() -> str | None:
    try:
        python = blender_python()
        check_blender(python)
    except BlenderUnavailableError:
        return None
    return python


BPY_PYTHON = _bpy_python()
needs_bpy = pytest.mark.skipif(
    BPY_PYTHON is None, reason=f"no Python with bpy here: pip install -e '.[blender]' or set "
                               f"{ENV_VAR} (see datagen/README.md)")


# -- without bpy: the clear error, and the pure-Python half -----------------------------------
def test_a_missing_interpreter_fails_at_once_naming_the_install(tmp_path, monkeypatch):
    from datagen import generate

    monkeypatch.setenv(ENV_VAR, str(tmp_path / "no-such-python"))
    with pytest.raises(ValueError, match=rf"is not an executable Python.*bpy=={BPY_VERSION}"):
        generate(tmp_path / "out", ["block_bowl"], 2, renderer="blender", progress=False)
    assert not (tmp_path / "out").exists()  # nothing is written before the check


def test_a_python_without_bpy_is_named_with_the_install_command(tmp_path, monkeypatch):
    python = tmp_path / "python-without-site"  # this interpreter with no site-packages
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" -I -S "$@"\n')
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv(ENV_VAR, str(python))
    with pytest.raises(BlenderUnavailableError) as info:
        check_blender()
    message = str(info.value)
    assert "cannot import bpy" in message and "No module named 'bpy'" in message
    assert "pip install -e '.[blender]'" in message and f"pip install bpy=={BPY_VERSION}" in message


def test_the_cli_prints_one_line_and_exits_2_when_bpy_is_missing(tmp_path, monkeypatch, capsys):
    from runtime import cli

    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setattr("datagen.blender_client._bpy_importable", lambda: False)
    code = cli.main(["datagen", "vqa", "--out", str(tmp_path), "--images-per-split", "1",
                     "--renderer", "blender"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "needs Blender's Python module `bpy`" in err and ENV_VAR in err


def test_the_arm_variant_is_pybullet_only():
    with pytest.raises(ValueError, match="not available with --renderer blender"):
        check_blender_variant("arm")


def test_camera_jitter_is_deterministic_and_small():
    base = FrontCameraConfig()
    a = blender_camera("default", np.random.default_rng(7))
    assert a == blender_camera("default", np.random.default_rng(7))
    assert a != blender_camera("default", np.random.default_rng(8))
    assert np.abs(np.subtract(a.eye, base.eye)).max() <= EYE_JITTER
    assert (a.target, a.fov_deg, a.width, a.height) == (base.target, base.fov_deg, 320, 240)
    hires = blender_camera("hires", np.random.default_rng(7))
    assert (hires.width, hires.height, hires.eye) == (640, 480, a.eye)


def test_poses_and_requests_carry_the_scene():
    block = SceneObject("red block", "block", "red", (0.5, 0.1, 0.02), yaw=math.pi / 2)
    pos, (x, y, z, w) = object_pose(block)
    assert pos == [0.5, 0.1, 0.02] and (x, y) == (0.0, 0.0)
    assert math.isclose(z, math.sin(math.pi / 4)) and math.isclose(w, math.cos(math.pi / 4))
    bowl = SceneObject("blue bowl", "bowl", "blue", (0.4, 0.0, 0.0), tilt=math.pi)
    _, (bx, _, _, bw) = object_pose(bowl)
    assert math.isclose(bx, 1.0) and abs(bw) < 1e-12  # upside down about x
    lights = light_params(np.random.default_rng(0))
    msg = render_message(Scene([block, bowl]), FrontCameraConfig(), lights, ["rubber", "glossy"],
                         5, [object_pose(block), object_pose(bowl)])
    assert json.loads(json.dumps(msg)) == msg  # plain JSON crosses the pipe
    assert [o["material"] for o in msg["objects"]] == ["rubber", "glossy"]
    assert msg["objects"][0]["rgb"] == [1.0, 87 / 255, 89 / 255]  # sRGB 0-1, CLIPort's red
    assert set(lights) == {"key", "fill", "back"}


# -- with bpy ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def blender():
    if BPY_PYTHON is None:
        pytest.skip(f"no Python with bpy here (set {ENV_VAR})")
    from datagen.render_blender import BlenderRenderer

    with BlenderRenderer(BPY_PYTHON) as renderer:
        yield renderer


def _hand_built() -> Scene:
    objects = [
        SceneObject("red block", "block", "red", (0.50, 0.00, 0.02), yaw=0.3),
        SceneObject("green block", "block", "green", (0.45, -0.20, 0.02)),
        SceneObject("blue bowl", "bowl", "blue", (0.40, 0.20, 0.0)),
        SceneObject("stand", "stand", "brown", (0.60, -0.25, 0.005)),
        SceneObject("gray block", "block", "gray", (0.55, 0.10, -0.10)),  # under the table
        SceneObject("yellow bowl", "bowl", "yellow", (0.62, 0.25, 0.04), tilt=math.pi),
        SceneObject("white block", "block", "white", (0.62, 0.25, 0.01)),  # under that bowl
    ]
    return Scene(objects, compute_relations(objects))


@pytest.mark.slow
@needs_bpy
def test_ground_truth_is_projected_for_blenders_camera(blender):
    camera = FrontCameraConfig()
    image = blender.render_scene(_hand_built(), camera, np.random.default_rng(0))
    assert image.rgb.shape == (240, 320, 3) and image.rgb.dtype == np.uint8
    got = {o.name: o for o in image.scene.objects}
    for obj in image.scene.objects:
        u, v, depth = camera.project(np.array([obj.position]))[0]
        assert np.allclose(obj.pixel_coords, (u, v, depth), atol=2e-3), obj.name
        u0, v0, u1, v1 = obj.pixel_box
        assert u0 <= u <= u1 and v0 <= v <= v1, obj.name
    for name in ("red block", "green block", "blue bowl", "stand", "yellow bowl"):
        assert got[name].visible_pixels >= 20, name
    assert got["gray block"].visible_pixels == 0 and got["white block"].visible_pixels == 0
    u, v, _ = (round(c) for c in got["red block"].pixel_coords)
    r, g, b = image.rgb[v - 1:v + 2, u - 1:u + 2].reshape(-1, 3).mean(0)
    assert r > 1.5 * g and r > 1.5 * b  # the red block is drawn where its truth says
    assert image.scene.relations == _hand_built().relations  # relations come from poses


@pytest.mark.slow
@needs_bpy
def test_same_seed_same_scene_questions_and_pixels(blender, env):
    from datagen.render_pybullet import render_state
    from datagen.shards import ShardJob, make_image
    from datagen.writer import scene_record

    job = ShardJob("block_bowl", 0, 1_000_000_123, 0, 2, 6, "default", "blender")
    a, b = make_image(env, job, 1, blender), make_image(env, job, 1, blender)
    assert json.dumps(scene_record(a)) == json.dumps(scene_record(b))
    assert [q.question for q in a.questions] == [q.question for q in b.questions]
    assert [q.answer for q in a.questions] == [q.answer for q in b.questions]
    assert np.array_equal(a.rendered.rgb, b.rendered.rgb)  # fixed Cycles seed: same noise
    bullet = render_state(env, a.state, "default", np.random.default_rng(0))  # same state
    assert a.rendered.scene.relations == bullet.scene.relations
    assert [o.position for o in a.rendered.scene.objects] == [
        o.position for o in bullet.scene.objects]
    assert scene_record(a)["camera"]["renderer"] == "blender"


@pytest.mark.slow
@needs_bpy
def test_cli_makes_a_valid_hf_dataset_and_resumes(tmp_path, monkeypatch, capsys):
    from datasets import load_from_disk

    from runtime import cli

    monkeypatch.setenv(ENV_VAR, BPY_PYTHON)
    argv = ["datagen", "vqa", "--out", str(tmp_path), "--splits", "block_bowl",
            "--images-per-split", "3", "--questions-per-image", "4", "--shard-size", "2",
            "--renderer", "blender", "--json"]
    assert cli.main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["images_made"] == 3 and summary["cpu_seconds"] > 0
    ds = load_from_disk(str(tmp_path / "hf"))["block_bowl"]
    assert len(ds) == summary["totals"]["questions"] >= 3
    assert ds[0]["image"].size == (320, 240) and ds[0]["answer"]
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["settings"]["renderer"] == "blender"
    scenes = json.loads((tmp_path / "block_bowl" / "scenes.json").read_text())["scenes"]
    assert all(s["camera"]["renderer"] == "blender" for s in scenes)
    assert cli.main(argv) == 0  # resumed: every shard is complete
    assert json.loads(capsys.readouterr().out)["shards_skipped"] == 2
    pybullet = [a if a != "blender" else "pybullet" for a in argv]
    assert cli.main(pybullet) == 2  # shards made by another renderer are refused
    assert "other settings" in capsys.readouterr().err
    shards = sorted(p.name for p in (tmp_path / "shards" / "block_bowl").iterdir())
    assert shards == ["shard-00000", "shard-00001"]  # no temporary leftovers
