"""Render a sampled state in a `Look` (datagen/looks.py): the `random`, `foreign` and `studio`
variants.

How, without touching the scene's ground truth: the state's blocks and bowls stay where the
episode left them; for the one render each is swapped for a visual-only stand-in (no
collision, no mass) of the look's mesh and colour at exactly its pose, the table gets the
look's texture, the light and shadows are the look's, and the image is then blurred and
noised. The stand-ins' pixels are credited to the objects they stand in for, so visibility and
pixel boxes mean what they mean for every other variant; afterwards the objects are put back.
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter
from scipy.spatial import ConvexHull

from datagen import drawn_textures, held_out_textures, textures
from datagen.looks import BlockMesh, BowlMesh, Look, Table, draw_look
from datagen.render_pybullet import RenderedImage, camera_for, place_arm, scene_for_camera
from datagen.scenes import SampledState
from datagen.textures import table_texture
from ravens_env.assets import lathe_mesh
from ravens_env.bullet import pb
from ravens_env.cameras import FrontCameraConfig
from ravens_env.colors import rgba
from ravens_env.dimensions import BLOCK_SIZE, TABLE_RGBA

TABLE_BODY = 0  # the env builds the table first after every reset
AWAY = (0.0, 0.0, -5.0)  # where an object waits, out of view, while its stand-in is drawn


def render_look(env, state: SampledState, variant: str, rng: np.random.Generator
                ) -> RenderedImage:
    """`state` drawn in a look of `variant` (`random`, `foreign` or `studio`) from `rng`."""
    look = draw_look(variant, rng)
    camera = camera_for("jitter", rng, env.front_camera)
    _paint_table(env.client, look.table)
    tip = place_arm(env, rng) if look.arm else None
    stand_ins = _swap_in(env.client, state, look)
    try:
        rgb, seg = _shoot(env.client, camera, look)
    finally:
        _swap_out(env.client, stand_ins)
        _restore_table(env.client, state)
        if tip is not None:
            env.arm.go_home()
    for original, (proxy, _, _) in stand_ins.items():
        seg[seg == proxy] = original
    scene = scene_for_camera(env.client, state.scene, camera, seg)
    return RenderedImage(_finish(rgb, look, rng), scene, camera, tip, look.to_json())


def _swap_in(client: int, state: SampledState, look: Look) -> dict[int, tuple]:
    """Body id -> (stand-in id, saved position, saved orientation) for every block and bowl;
    the stand is recoloured in place (it is a flat box in every look)."""
    out = {}
    for obj in state.scene.objects:
        if obj.type == "stand":
            pb.changeVisualShape(obj.body_id, -1, rgbaColor=(*_unit(look.stand_rgb), 1.0),
                                 physicsClientId=client)
            continue
        if obj.type not in ("block", "bowl"):
            continue
        pos, orn = pb.getBasePositionAndOrientation(obj.body_id, physicsClientId=client)
        vertices, indices, normals = (block_mesh(look.block) if obj.type == "block"
                                      else bowl_mesh(look.bowl))
        color = (*_unit(look.rgb(obj.color, obj.shade)), 1.0)
        vis = pb.createVisualShape(pb.GEOM_MESH, vertices=vertices, indices=indices,
                                   normals=normals, rgbaColor=color, physicsClientId=client)
        proxy = pb.createMultiBody(0, -1, vis, basePosition=pos, baseOrientation=orn,
                                   physicsClientId=client)
        pb.resetBasePositionAndOrientation(obj.body_id, AWAY, orn, physicsClientId=client)
        out[obj.body_id] = (proxy, pos, orn)
    return out


def _swap_out(client: int, stand_ins: dict[int, tuple]) -> None:
    for original, (proxy, pos, orn) in stand_ins.items():
        pb.removeBody(proxy, physicsClientId=client)
        pb.resetBasePositionAndOrientation(original, pos, orn, physicsClientId=client)


def _shoot(client: int, camera: FrontCameraConfig, look: Look) -> tuple[np.ndarray, np.ndarray]:
    """(rgb, segmentation) of the front camera under the look's light."""
    light = look.light
    _, _, rgba, _, seg = pb.getCameraImage(
        camera.width, camera.height, camera.view_matrix().T.reshape(-1).tolist(),
        camera.projection_matrix().T.reshape(-1).tolist(), shadow=int(light.shadow),
        lightDirection=list(light.direction), lightColor=list(light.color),
        lightDistance=3.0, lightAmbientCoeff=light.ambient, lightDiffuseCoeff=light.diffuse,
        lightSpecularCoeff=light.specular, renderer=pb.ER_TINY_RENDERER,
        physicsClientId=client)
    shape = (camera.height, camera.width)
    rgb = np.asarray(rgba, np.uint8).reshape(*shape, 4)[..., :3].copy()
    return rgb, np.asarray(seg, np.int32).reshape(shape).copy()


def _finish(rgb: np.ndarray, look: Look, rng: np.random.Generator) -> np.ndarray:
    """The camera's side of the look: exposure (a gain that clips at white, as an
    over-exposed camera or a brighter renderer does), blur, then sensor noise."""
    if look.exposure != 1.0:
        rgb = np.clip(np.rint(rgb.astype(np.float32) * look.exposure), 0, 255).astype(np.uint8)
    img = Image.fromarray(rgb)
    if look.blur > 0:
        img = img.filter(ImageFilter.GaussianBlur(look.blur))
    out = np.asarray(img, np.float32)
    if look.noise > 0:
        out = out + rng.normal(0.0, look.noise, out.shape)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def _paint_table(client: int, table: Table) -> None:
    texture = pb.loadTexture(str(table_texture_file(table)), physicsClientId=client)
    pb.changeVisualShape(TABLE_BODY, -1, textureUniqueId=texture, rgbaColor=(1, 1, 1, 1),
                         physicsClientId=client)


def _restore_table(client: int, state: SampledState) -> None:
    """The env's own table and stand again (a later render of another variant must not see
    the look; an env reset would also rebuild them)."""
    pb.changeVisualShape(TABLE_BODY, -1, textureUniqueId=-1, rgbaColor=TABLE_RGBA,
                         physicsClientId=client)
    for obj in state.scene.objects:
        if obj.type == "stand":
            pb.changeVisualShape(obj.body_id, -1, rgbaColor=rgba(obj.color, obj.shade),
                                 physicsClientId=client)


# -- meshes ---------------------------------------------------------------------------------
@functools.lru_cache(maxsize=256)
def block_mesh(spec: BlockMesh) -> tuple[list, list, list]:
    """(vertices, indices, normals) of a block centred on its origin: a cube, chamfered by
    `bevel`, or rounded by `rounding` (fractions of the half size), times `scale`."""
    h = BLOCK_SIZE / 2 * spec.scale
    if spec.rounding > 0:
        r = spec.rounding * h
        points = [np.sign(c) * (h - r) + r * u for c in _corners() for u in _sphere(48)
                  if np.all(np.sign(u) * np.sign(c) >= 0)]
        return _hull_mesh(np.array(points), smooth_core=h - r)
    d = spec.bevel * h
    if d <= 1e-6:
        return _hull_mesh(np.array([np.sign(c) * h for c in _corners()]))
    points = {tuple(np.roll(np.sign(c) * (h, h - d, h - d), k)) for c in _corners()
              for k in range(3)}
    return _hull_mesh(np.array(sorted(points)))


@functools.lru_cache(maxsize=256)
def bowl_mesh(spec: BowlMesh) -> tuple[list, list, list]:
    return lathe_mesh(spec.profile(), segments=spec.segments)


def _corners() -> list[np.ndarray]:
    return [np.array((x, y, z), float) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]


@functools.cache
def _sphere(n: int) -> tuple[np.ndarray, ...]:
    """`n` points spread over the unit sphere (Fibonacci lattice)."""
    i = np.arange(n) + 0.5
    phi, theta = np.arccos(1 - 2 * i / n), np.pi * (1 + 5 ** 0.5) * i
    pts = np.stack([np.cos(theta) * np.sin(phi), np.sin(theta) * np.sin(phi), np.cos(phi)], 1)
    return tuple(pts)


def _hull_mesh(points: np.ndarray, smooth_core: float | None = None
               ) -> tuple[list, list, list]:
    """The convex hull of `points` as triangles wound outwards. Flat-shaded (own vertices per
    triangle) unless `smooth_core` is given: then vertex normals point away from the cube of
    that half size, which is what a rounded cube's surface normal is."""
    hull = ConvexHull(points)
    vertices, normals, indices = [], [], []
    for simplex, eq in zip(hull.simplices, hull.equations, strict=True):
        tri = points[simplex]
        if np.dot(np.cross(tri[1] - tri[0], tri[2] - tri[0]), eq[:3]) < 0:
            tri = tri[::-1]
        for p in tri:
            if smooth_core is None:
                n = eq[:3]
            else:
                n = p - np.clip(p, -smooth_core, smooth_core)
                n = n / max(np.linalg.norm(n), 1e-12)
            indices.append(len(vertices))
            vertices.append(tuple(float(v) for v in p))
            normals.append(tuple(float(v) for v in n))
    return vertices, indices, normals


# -- table textures -------------------------------------------------------------------------
TEXTURE_CACHE_FILES = 128  # ~200 MB at most: a `random` table is drawn once per scene


def table_texture_file(table: Table) -> Path:
    """A PNG of the table's texture, made once per look and version of the texture code
    (PyBullet loads files). The key holds a digest of the texture code (`datagen/textures.py`
    and `datagen/drawn_textures.py`), so a PNG left in the temp dir by older code is never
    pasted on a table the new code would draw otherwise. The cache keeps the most recently used
    `TEXTURE_CACHE_FILES`: every `random` scene draws its own table, and an unbounded cache
    grew to 8.7 GB over a few datasets and filled the disk CI shares."""
    key = hashlib.sha1(f"{_texture_code_digest()}{table!r}".encode()).hexdigest()[:16]
    path = _texture_cache_dir() / f"{key}.png"
    if path.is_file():
        path.touch()  # recently used: the look's tables stay while random ones come and go
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp.png")
    Image.fromarray(table_texture(table)).save(tmp)
    tmp.replace(path)  # atomic: parallel workers may make the same file
    _evict_textures(path.parent, keep=TEXTURE_CACHE_FILES)
    return path


def _texture_cache_dir() -> Path:
    return Path(tempfile.gettempdir()) / "codeplan-textures"


def _evict_textures(folder: Path, keep: int) -> None:
    """Delete all but the `keep` most recently used PNGs (another worker may delete the same
    file first, which is fine)."""
    def age(f: Path) -> float:
        try:
            return f.stat().st_mtime
        except FileNotFoundError:
            return 0.0
    done = [f for f in folder.glob("*.png") if ".tmp." not in f.name]  # not one being written
    files = sorted(done, key=age, reverse=True)
    for f in files[keep:]:
        f.unlink(missing_ok=True)


@functools.cache
def _texture_code_digest() -> str:
    code = b"".join(Path(m.__file__).read_bytes() for m in (textures, drawn_textures,
                                                          held_out_textures))
    return hashlib.sha1(code).hexdigest()[:12]


def _unit(rgb: tuple[int, int, int]) -> tuple[float, float, float]:
    return tuple(c / 255.0 for c in rgb)
