"""The Blender renderer (`--renderer blender`): the same sampled states as the PyBullet
renderer, drawn by Blender Cycles with a CLEVR look, with ground truth for Blender's camera.

Why a second renderer: the PyBullet front image is flat-shaded and shadowless; a VQA model
trained only on it may learn TinyRenderer rather than the scene. Here the simulator's state
(every object's pose straight from PyBullet, its color and shade after the family's recoloring)
is rebuilt in Blender (`blender_scene`, `blender_worker`): a table plane, 4 cm cubes, lathed
bowls and the stand at `ravens_env.dimensions` sizes, each object "rubber" (matte) or "glossy"
at random, key / fill / back area lights jittered per image, and the camera jittered around
the front camera (`FrontCameraConfig`: same resolution, fov, eye and target). The arm is not
drawn (so the `arm` variant is PyBullet-only).

Ground truth is recomputed for the camera actually used: `pixel_box` from the projected mesh
vertices, CLEVR `pixel_coords` (u, v, depth) of each origin, and `visible_pixels` from Cycles'
object-index pass, so the question checks (visible = 20+ px) mean what they mean with
PyBullet. Every random choice (camera, lights, finishes, Cycles' seed) comes from the image's
render stream `default_rng([shard_seed, i, 1])`, so the scene JSON and the questions are
deterministic by seed. Images too: with a fixed Cycles seed the same request gives the same
pixels (checked in the tests) on the same machine and bpy version; another CPU or bpy build
may change Cycles' noise, never the scene or the questions.
"""

from __future__ import annotations

import base64
import io
import math
from dataclasses import asdict, dataclass, field, replace

import numpy as np
from PIL import Image

from datagen.blender_client import BlenderProcess
from datagen.render_pybullet import RenderedImage, camera_for
from ravens_env.cameras import FrontCameraConfig
from ravens_env.colors import rgba
from ravens_env.dimensions import BLOCK_SIZE, STAND_SIZE, TABLE_RGBA
from ravens_env.scene_graph import Scene, SceneObject

SAMPLES = 8  # Cycles samples per pixel, denoised: 8, 12 and 32 look alike at 320x240
VARIANTS = ("default", "jitter", "hires")  # no "arm" (not drawn), no looks (PyBullet-only)
EYE_JITTER = 0.02  # metres per axis; CLEVR jitters the camera's position, not its target
LIGHT_JITTER = 0.10  # metres per axis on each light's position (CLEVR: key/fill/back jitter)
ENERGY_JITTER = (0.8, 1.25)  # factor on each light's power
LIGHT_TARGET = (0.45, 0.0, 0.0)  # metres: every light aims at the workspace's centre
LIGHTS = {  # name -> (position m, power W); the camera is at +x looking towards -x
    "key": ((1.25, -0.55, 1.30), 15.0),  # camera side, to its left, high
    "fill": ((1.00, 0.80, 0.60), 6.0),  # camera side, right, low and broad
    "back": ((-0.20, 0.30, 1.10), 10.0),  # behind the table: rims and contact shadows
}
GLOSSY_P = 0.5  # share of objects with the glossy finish (else rubber)


@dataclass
class BlenderImage(RenderedImage):
    """A Blender image: the camera plus how it was lit and finished (for scenes.json)."""

    render_info: dict = field(default_factory=dict)

    def camera_json(self) -> dict:
        return {**asdict(self.camera), "arm_tip": None, "renderer": "blender",
                **self.render_info}


def check_blender_variant(variant: str) -> str:
    """`variant` if the Blender renderer has it; ValueError naming the ones it has."""
    if variant not in VARIANTS:
        raise ValueError(f"variant {variant!r} is not available with --renderer blender "
                         f"(the arm and the random/foreign looks are PyBullet-only); variants: "
                         f"{', '.join(VARIANTS)}")
    return variant


def blender_camera(variant: str, rng: np.random.Generator,
                   base: FrontCameraConfig | None = None) -> FrontCameraConfig:
    """The camera of one image: `jitter` as with PyBullet (eye and target +-3 cm, fov +-4 deg),
    else the front camera (640x480 for `hires`) with its eye moved up to EYE_JITTER per axis."""
    check_blender_variant(variant)
    camera = camera_for(variant, rng, base)
    if variant == "jitter":
        return camera
    eye = np.add(camera.eye, rng.uniform(-EYE_JITTER, EYE_JITTER, 3))
    return replace(camera, eye=tuple(round(float(v), 5) for v in eye))


def light_params(rng: np.random.Generator) -> dict[str, dict]:
    """Position (m), aim (m) and power (W) of the key, fill and back lights of one image."""
    lights = {}
    for name, (position, power) in LIGHTS.items():
        moved = np.add(position, rng.uniform(-LIGHT_JITTER, LIGHT_JITTER, 3))
        lights[name] = {"location": [round(float(v), 4) for v in moved],
                        "target": list(LIGHT_TARGET),
                        "energy": round(float(power * rng.uniform(*ENERGY_JITTER)), 3)}
    return lights


def setup_message(width: int, height: int, samples: int, threads: int) -> dict:
    """The worker's one-time setup: render settings and every shape's dimensions (metres)."""
    from ravens_env.assets import BowlProfile  # builds nothing: the profile is plain numbers

    return {"op": "setup", "width": width, "height": height, "samples": samples,
            "threads": threads, "block_size": BLOCK_SIZE, "stand_size": list(STAND_SIZE),
            "bowl_profile": [list(p) for p in BowlProfile().points],
            "table_rgb": list(TABLE_RGBA[:3])}


def object_pose(obj: SceneObject, env=None) -> tuple[list[float], list[float]]:
    """(position m, quaternion x, y, z, w) of `obj`: read from the simulator when `env` holds
    its body (the exact pose, tilt axis included), else built from its yaw and its tilt (taken
    about the object's x axis) for hand-made scenes."""
    if env is not None and obj.body_id >= 0:
        from ravens_env.bullet import pb

        pos, orn = pb.getBasePositionAndOrientation(obj.body_id, physicsClientId=env.client)
        return [float(v) for v in pos], [float(v) for v in orn]
    cy, sy = math.cos(obj.yaw / 2), math.sin(obj.yaw / 2)
    ct, st = math.cos(obj.tilt / 2), math.sin(obj.tilt / 2)
    return [float(v) for v in obj.position], [cy * st, sy * st, sy * ct, cy * ct]


def render_message(scene: Scene, camera: FrontCameraConfig, lights: dict, finishes: list[str],
                   seed: int, poses: list[tuple[list[float], list[float]]]) -> dict:
    """One render request: camera, lights, Cycles seed and every object (sRGB color 0-1)."""
    objects = [{"type": o.type, "rgb": list(rgba(o.color, o.shade)[:3]), "position": pos,
                "orientation_xyzw": orn, "material": finish}
               for o, (pos, orn), finish in zip(scene.objects, poses, finishes, strict=True)]
    cam = {"eye": list(camera.eye), "target": list(camera.target), "up": list(camera.up),
           "fov_deg": camera.fov_deg, "near": camera.near, "far": camera.far}
    return {"op": "render", "width": camera.width, "height": camera.height, "camera": cam,
            "lights": lights, "seed": seed, "objects": objects}


class BlenderRenderer:
    """One Blender worker, reused for every image a generating process makes.

    `threads` is Cycles' thread count (0 = every core: right for one generating process).
    `cpu_seconds` adds up the worker's CPU time (all its threads), which the host's
    `time.process_time()` cannot see.
    """

    def __init__(self, python: str | None = None, threads: int = 0, samples: int = SAMPLES,
                 size: tuple[int, int] = (FrontCameraConfig.width, FrontCameraConfig.height)):
        self.samples = samples
        self.cpu_seconds = 0.0
        self.process = BlenderProcess(python)
        self.process.request(setup_message(size[0], size[1], samples, threads))

    def render(self, env, state, variant: str, rng: np.random.Generator) -> BlenderImage:
        """The image of a sampled state (poses read from `env`), as `render_state` does."""
        camera = blender_camera(variant, rng, env.front_camera)
        poses = [object_pose(o, env) for o in state.scene.objects]
        return self.render_scene(state.scene, camera, rng, poses)

    def render_scene(self, scene: Scene, camera: FrontCameraConfig, rng: np.random.Generator,
                     poses: list | None = None) -> BlenderImage:
        """Render `scene` from `camera`, lights, finishes and noise seed drawn from `rng`;
        the scene comes back with this image's pixel boxes, pixel coords and visible pixels."""
        lights = light_params(rng)
        finishes = ["glossy" if g else "rubber" for g in rng.random(len(scene.objects)) < GLOSSY_P]
        seed = int(rng.integers(0, 2**31 - 1))
        poses = poses or [object_pose(o) for o in scene.objects]
        reply = self.process.request(render_message(scene, camera, lights, finishes, seed, poses))
        self.cpu_seconds += reply["cpu_seconds"]
        objects = [replace(o, pixel_box=tuple(t["pixel_box"]), visible_pixels=t["visible_pixels"],
                           pixel_coords=tuple(t["pixel_coords"]))
                   for o, t in zip(scene.objects, reply["objects"], strict=True)]
        png = base64.b64decode(reply["png_b64"])
        rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))  # (H, W, 3) uint8
        info = {"blender": self.process.blender_version, "samples": self.samples, "seed": seed,
                "lights": lights, "materials": dict(zip(scene.names(), finishes, strict=True))}
        return BlenderImage(rgb, Scene(objects, list(scene.relations)), camera, None, info)

    def close(self) -> None:
        """Stop the worker."""
        self.process.close()

    def __enter__(self) -> BlenderRenderer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

