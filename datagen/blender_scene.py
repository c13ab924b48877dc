"""The static Blender world of the CLEVR-style renderer: render settings, meshes, materials,
table, lights, camera and the object-index output. Runs only inside Blender's Python (`bpy`).

Why a module of its own, and why it imports nothing from codeplan: `bpy` may live in its own
virtual environment (bpy 4.5 and 5.0 pin numpy<2, the project uses numpy 2), so the worker
that imports this file may not see the rest of the project. Every dimension arrives in the
host's `setup` message instead (`render_blender.setup_message`), taken from
`ravens_env.dimensions` and `ravens_env.assets.BowlProfile`, so both renderers draw the same
shapes. Facts on the look follow CLEVR (Johnson et al., 2017): a plain ground plane, a "rubber"
matte material and a shinier one, and key / fill / back area lights whose positions are
jittered per image (here in `render_blender.light_params`).

Speed settings are the measured ones in shared/notes/blender-bpy-probe.md: Cycles on the CPU,
few samples, OpenImageDenoise with the fast prefilter, light tree off, 2 bounces, the
`Standard` view transform (AgX washes the named colors out).
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import bpy

LIGHTS = ("key", "fill", "back")
# Square area lights (metres). Large, so that a glossy top face mirroring the key light shows a
# soft sheen and keeps its color (a 0.35 m key light turned glossy brown tops white).
LIGHT_SIZES = {"key": 0.7, "fill": 1.0, "back": 0.5}
MATERIALS = {  # name -> Principled BSDF inputs (roughness, specular level 0-1, coat 0-1)
    "rubber": {"Roughness": 0.9, "Specular IOR Level": 0.25, "Coat Weight": 0.0},
    "glossy": {"Roughness": 0.4, "Specular IOR Level": 0.5, "Coat Weight": 0.2,
               "Coat Roughness": 0.15},
}
BOWL_SEGMENTS = 48  # around the axis; the simulator's visual mesh has 32 (flat shaded)
TABLE_SIZE = 8.0  # metres: fills every camera view (the simulator's slab is 4 m)
WORLD_STRENGTH = 0.3  # uniform ambient light (shadows are never black)


def srgb_to_linear(c: float) -> float:
    """One sRGB channel in [0, 1] -> scene-linear (what Blender's base colors are)."""
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def configure_render(width: int, height: int, samples: int, threads: int) -> None:
    """Cycles on the CPU with the fast settings; `threads` 0 = all cores."""
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    cyc = scene.cycles
    cyc.device = "CPU"
    cyc.samples = samples
    cyc.use_adaptive_sampling = False  # same sample count everywhere: steadier timing
    cyc.use_denoising = True
    cyc.denoiser = "OPENIMAGEDENOISE"
    cyc.denoising_quality = "BALANCED"
    cyc.denoising_prefilter = "FAST"
    cyc.use_light_tree = False
    cyc.max_bounces, cyc.diffuse_bounces, cyc.glossy_bounces = 2, 2, 2
    cyc.transmission_bounces = cyc.volume_bounces = cyc.transparent_max_bounces = 0
    cyc.caustics_reflective = cyc.caustics_refractive = False
    render = scene.render
    render.resolution_x, render.resolution_y, render.resolution_percentage = width, height, 100
    render.threads_mode = "FIXED" if threads > 0 else "AUTO"
    if threads > 0:
        render.threads = threads
    render.use_persistent_data = True  # keep shaders and meshes between images
    render.dither_intensity = 0.0  # no dither noise in the 8-bit PNG
    render.image_settings.file_format = "PNG"
    render.image_settings.color_mode = "RGB"
    render.image_settings.color_depth = "8"
    render.image_settings.compression = 0  # the host re-encodes it anyway
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.look = "None"
    scene.view_settings.exposure = 0.0
    scene.view_settings.gamma = 1.0
    scene.view_layers[0].use_pass_object_index = True


def clear_scene() -> None:
    """Remove the factory-startup cube, light and camera."""
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj, do_unlink=True)


def color_material(name: str, inputs: dict[str, float]) -> bpy.types.Material:
    """A Principled material whose base color is the object's own color (`obj.color`, linear
    RGBA), so one material serves every object of that finish."""
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes["Principled BSDF"]
    for key, value in inputs.items():
        bsdf.inputs[key].default_value = value
    info = nodes.new("ShaderNodeObjectInfo")
    links.new(info.outputs["Color"], bsdf.inputs["Base Color"])
    return mat


def box_mesh(name: str, size: tuple[float, float, float]) -> bpy.types.Mesh:
    """A box of full extents `size` (metres) centred on its origin, flat shaded."""
    hx, hy, hz = (s / 2 for s in size)
    verts = [(x, y, z) for x in (-hx, hx) for y in (-hy, hy) for z in (-hz, hz)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    return mesh


def lathe_mesh(name: str, profile: list[list[float]], segments: int) -> bpy.types.Mesh:
    """Revolve a (radius m, height m) polyline about +z. Each profile segment gets its own
    rings of vertices, so shading is smooth around the axis and sharp at the profile's corners
    (the rim, the floor's edge)."""
    verts: list[tuple[float, float, float]] = []
    faces: list[tuple[int, ...]] = []
    angles = [2 * math.pi * k / segments for k in range(segments)]
    for (ra, za), (rb, zb) in itertools.pairwise(profile):
        base = len(verts)
        for r, z in ((ra, za), (rb, zb)):
            verts.extend((r * math.cos(a), r * math.sin(a), z) for a in angles)
        for k in range(segments):
            k1 = (k + 1) % segments
            faces.append((base + k, base + k1, base + segments + k1, base + segments + k))
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.shade_smooth()
    mesh.update()
    return mesh


def make_meshes(setup: dict, rubber: bpy.types.Material) -> dict[str, bpy.types.Mesh]:
    """The three object meshes ("block", "bowl", "stand") from the host's dimensions."""
    size = setup["block_size"]
    meshes = {"block": box_mesh("block", (size, size, size)),
              "bowl": lathe_mesh("bowl", setup["bowl_profile"], BOWL_SEGMENTS),
              "stand": box_mesh("stand", tuple(setup["stand_size"]))}
    for mesh in meshes.values():
        mesh.materials.append(rubber)
    return meshes


def make_table(rgb: list[float]) -> bpy.types.Object:
    """The ground plane, top at z = 0, centred under the workspace; `rgb` is sRGB 0-1."""
    half = TABLE_SIZE / 2
    mesh = bpy.data.meshes.new("table")
    mesh.from_pydata([(0.5 - half, -half, 0), (0.5 + half, -half, 0), (0.5 + half, half, 0),
                      (0.5 - half, half, 0)], [], [(0, 1, 2, 3)])
    mat = color_material("table", {"Roughness": 0.95, "Specular IOR Level": 0.2})
    mesh.materials.append(mat)
    table = bpy.data.objects.new("table", mesh)
    table.color = (*(srgb_to_linear(c) for c in rgb), 1.0)
    table.pass_index = 0  # object index 0 = table and background
    bpy.context.scene.collection.objects.link(table)
    return table


def make_lights_and_camera() -> tuple[dict[str, bpy.types.Object], bpy.types.Object]:
    """Three square area lights and the camera; the host sets their poses per image."""
    scene = bpy.context.scene
    lights = {}
    for name in LIGHTS:
        data = bpy.data.lights.new(name, "AREA")
        data.size = LIGHT_SIZES[name]
        lights[name] = bpy.data.objects.new(name, data)
        scene.collection.objects.link(lights[name])
    camera = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    camera.data.sensor_fit = "VERTICAL"  # the fov the host sends is vertical, as in PyBullet
    scene.collection.objects.link(camera)
    scene.camera = camera
    world = bpy.data.worlds.new("world")
    world.use_nodes = True
    background = world.node_tree.nodes["Background"]
    background.inputs["Color"].default_value = (1.0, 1.0, 1.0, 1.0)
    background.inputs["Strength"].default_value = WORLD_STRENGTH
    scene.world = world
    return lights, camera


def index_output(directory: Path) -> Path:
    """Route the object-index pass to a 32-bit EXR in `directory` (the compositor's File Output
    node; Blender 4.2's Viewer node is not updated in background renders). Cycles writes this
    pass from the first sample only, so it holds exact integer indices, not blends."""
    scene = bpy.context.scene
    scene.use_nodes = True
    tree = scene.node_tree
    layers = next(n for n in tree.nodes if n.bl_idname == "CompositorNodeRLayers")
    out = tree.nodes.new("CompositorNodeOutputFile")
    out.base_path = str(directory)
    out.format.file_format = "OPEN_EXR"
    out.format.color_depth = "32"
    out.format.exr_codec = "NONE"
    out.format.color_mode = "RGB"
    out.file_slots[0].path = "index"
    tree.links.new(layers.outputs["IndexOB"], out.inputs[0])
    scene.frame_set(1)
    return Path(directory) / "index0001.exr"
