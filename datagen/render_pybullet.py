"""The PyBullet renderer: the front camera image of a sampled state, and held-out variants.

Why variants: a VQA model that only ever saw one camera pose, one resolution and a parked arm
may read the camera rather than the scene. The variants make an evaluation set for that:

  default  the env's front camera (`FrontCameraConfig()`, 320x240) — the image the closed-loop
           controller sends, identical to `env.observe().front_rgb`
  jitter   eye and target moved by up to 3 cm per axis, vertical fov 62 +- 4 degrees
  arm      the arm's tip moved over the table (3-20 cm above whatever is below it), so the arm
           is in view and may hide objects
  hires    640x480
  random   domain randomisation: palette within each colour name's range, light and shadows,
           table texture, block and bowl meshes, the jitter camera, blur and noise, the arm
           in view in a share of images (`datagen/looks.py`, drawn by `datagen/render_look.py`)
  foreign  one look held out of every training mixture: another palette, light, table and
           meshes together (`datagen/looks.py`)

The scene graph's `pixel_box`, `pixel_coords` and `visible_pixels` are recomputed for the
camera actually used (the env computes them for its own camera), so visibility filters and
CLEVR pixel coordinates stay true for every variant. Relations come from poses and do not
change.
"""

from __future__ import annotations

import io
import math
from dataclasses import asdict, dataclass, replace

import numpy as np
from PIL import Image

from datagen.looks import LOOK_VARIANTS
from datagen.scenes import SampledState
from ravens_env.bullet import pb
from ravens_env.cameras import FrontCameraConfig, image_footprint, render_front
from ravens_env.colors import rgba
from ravens_env.robot import UnreachableError
from ravens_env.scene_graph import Scene, SceneObject

VARIANTS = ("default", "jitter", "arm", "hires", *LOOK_VARIANTS)
JITTER_XYZ = 0.03  # metres, per axis, for the eye and the target
JITTER_FOV = 4.0  # degrees
HIRES = (640, 480)  # (width, height) px
ARM_CLEARANCE = (0.03, 0.20)  # metres between the tip and the surface below it
ARM_AREA = ((0.35, 0.70), (-0.35, 0.35))  # metres: x and y range of the tip


@dataclass
class RenderedImage:
    """One image and the ground truth for its camera."""

    rgb: np.ndarray  # (H, W, 3) uint8
    scene: Scene
    camera: FrontCameraConfig
    arm_tip: tuple[float, float, float] | None = None  # metres, when the arm is in view
    look: dict | None = None  # the `Look` of the random and foreign variants (looks.py)

    def camera_json(self) -> dict:
        return {**asdict(self.camera), "arm_tip": self.arm_tip}


def check_variant(variant: str) -> str:
    """`variant` if known; ValueError naming the known ones otherwise."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; variants: {', '.join(VARIANTS)}")
    return variant


def camera_for(variant: str, rng: np.random.Generator,
               base: FrontCameraConfig | None = None) -> FrontCameraConfig:
    """The camera of one image of `variant` (`rng` draws the jitter)."""
    base = base or FrontCameraConfig()
    check_variant(variant)
    if variant == "hires":
        return replace(base, width=HIRES[0], height=HIRES[1])
    if variant == "jitter":
        eye = tuple(float(v) for v in np.add(base.eye, rng.uniform(-JITTER_XYZ, JITTER_XYZ, 3)))
        target = tuple(float(v) for v in
                       np.add(base.target, rng.uniform(-JITTER_XYZ, JITTER_XYZ, 3)))
        fov = float(base.fov_deg + rng.uniform(-JITTER_FOV, JITTER_FOV))
        return replace(base, eye=eye, target=target, fov_deg=fov)
    return base


def render_state(env, state: SampledState, variant: str, rng: np.random.Generator
                 ) -> RenderedImage:
    """Paint the state's colors on the env's bodies and render `variant` of its image (the
    look variants are drawn by `datagen.render_look.render_look`)."""
    if variant in LOOK_VARIANTS:
        raise ValueError(f"variant {variant!r} is a look: render it with render_look")
    for body, (color, shade) in state.paint().items():
        pb.changeVisualShape(body, -1, rgbaColor=rgba(color, shade), physicsClientId=env.client)
    camera = camera_for(variant, rng, env.front_camera)
    tip = place_arm(env, rng) if variant == "arm" else None
    try:
        image = render_front(env.client, camera)
    finally:
        if tip is not None:
            env.arm.go_home()
    scene = scene_for_camera(env.client, state.scene, camera, image.segmentation)
    return RenderedImage(image.rgb, scene, camera, tip)


def scene_for_camera(client: int, scene: Scene, camera: FrontCameraConfig,
                     segmentation: np.ndarray) -> Scene:
    """`scene` with pixel boxes, CLEVR pixel coords and visible pixels for `camera`."""
    objects = [_project(client, o, camera, segmentation) for o in scene.objects]
    return Scene(objects, list(scene.relations))


def _project(client: int, obj: SceneObject, camera: FrontCameraConfig,
             segmentation: np.ndarray) -> SceneObject:
    box, coords = image_footprint(client, obj.body_id, camera)
    return replace(obj, pixel_box=box, pixel_coords=coords,
                   visible_pixels=int((segmentation == obj.body_id).sum()))


def place_arm(env, rng: np.random.Generator) -> tuple[float, float, float] | None:
    """Move the tip over the table, clear of what is below; None if no pose was reachable."""
    for _ in range(10):
        x, y = rng.uniform(*ARM_AREA[0]), rng.uniform(*ARM_AREA[1])
        hit = env.surface_below(float(x), float(y))
        z = (hit[1] if hit else 0.0) + rng.uniform(*ARM_CLEARANCE)
        try:
            env.arm.move_to(float(x), float(y), float(z), float(rng.uniform(-math.pi, math.pi)))
        except UnreachableError:
            continue
        return (round(float(x), 4), round(float(y), 4), round(float(z), 4))
    return None


def png_bytes(rgb: np.ndarray) -> bytes:
    """PNG encoding of an (H, W, 3) uint8 image (deterministic: same pixels, same bytes)."""
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="PNG")
    return buf.getvalue()
