"""The Blender render worker: a process that imports `bpy` and renders one image per request.

Why a separate process: `bpy` is one Blender per process with global state, it may only be
installable in its own virtual environment (bpy 4.5 and 5.0 pin numpy<2), and Cycles already
uses every core it is given, so the data generator talks to one long-lived worker per
generating process (`render_blender.BlenderRenderer`). Run as a script, never imported by the
project:  python datagen/blender_worker.py  (stdlib, numpy and bpy only).

Protocol: one JSON object per line on stdin, one reply per line on the process's original
stdout; Blender's own prints ("Fra:1 ...", "Saved: ...", ~60 lines an image) go to a log
file that is emptied before each request, so they can neither corrupt a reply nor pile up.
Requests: {"op": "setup", ...dimensions...} once, then {"op": "render", ...} per image (fields:
`render_blender.setup_message` and `render_message`). Replies: {"ok": true, ...} or
{"ok": false, "error": traceback and the log's last lines}. EOF on stdin ends the worker, so it
never outlives the process that started it.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

import bpy
import numpy as np
from mathutils import Matrix, Quaternion, Vector

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script: find the sibling
import blender_scene as world


class Renderer:
    """The Blender scene of one worker: static world from `setup`, objects pooled per type."""

    def __init__(self, setup: dict, workdir: Path):
        world.clear_scene()
        world.configure_render(setup["width"], setup["height"], setup["samples"],
                               setup["threads"])
        self.materials = {name: world.color_material(name, inputs)
                          for name, inputs in world.MATERIALS.items()}
        self.meshes = world.make_meshes(setup, self.materials["rubber"])
        self.vertices = {kind: _mesh_vertices(mesh) for kind, mesh in self.meshes.items()}
        world.make_table(setup["table_rgb"])
        self.lights, self.camera = world.make_lights_and_camera()
        self.index_path = world.index_output(workdir)
        self.image_path = workdir / "image.png"
        self.pool: dict[str, list[bpy.types.Object]] = {kind: [] for kind in self.meshes}

    def render(self, msg: dict) -> dict:
        """Pose everything, render, and measure the ground truth of each object."""
        started, cpu = time.perf_counter(), time.process_time()
        scene = bpy.context.scene
        scene.render.resolution_x, scene.render.resolution_y = msg["width"], msg["height"]
        scene.cycles.seed = msg["seed"]
        self._pose_camera(msg["camera"])
        for name, light in msg["lights"].items():
            self.lights[name].location = light["location"]
            self.lights[name].rotation_euler = _look_at(light["location"], light["target"],
                                                        (0, 0, 1)).to_euler()
            self.lights[name].data.energy = light["energy"]
        placed = self._place_objects(msg["objects"])
        bpy.context.view_layer.update()
        for path in (self.index_path, self.image_path):
            path.unlink(missing_ok=True)
        scene.render.filepath = str(self.image_path)
        bpy.ops.render.render(write_still=True)
        counts = np.bincount(self._read_index().ravel(), minlength=len(placed) + 1)
        truth = [self._project(obj, kind, msg) | {"visible_pixels": int(counts[i + 1])}
                 for i, (obj, kind) in enumerate(placed)]
        return {"png_b64": base64.b64encode(self.image_path.read_bytes()).decode("ascii"),
                "objects": truth, "seconds": time.perf_counter() - started,
                "cpu_seconds": time.process_time() - cpu}

    def _pose_camera(self, cam: dict) -> None:
        self.camera.location = cam["eye"]
        self.camera.rotation_euler = _look_at(cam["eye"], cam["target"], cam["up"]).to_euler()
        self.camera.data.angle_y = np.radians(cam["fov_deg"])
        self.camera.data.clip_start, self.camera.data.clip_end = cam["near"], cam["far"]

    def _place_objects(self, objects: list[dict]) -> list[tuple[bpy.types.Object, str]]:
        """Pose one pooled object per scene object (pass index = position + 1); hide the rest."""
        used = {kind: 0 for kind in self.pool}
        placed = []
        for i, spec in enumerate(objects):
            kind = spec["type"]
            obj = self._pooled(kind, used[kind])
            used[kind] += 1
            x, y, z, w = spec["orientation_xyzw"]  # PyBullet's quaternion order
            obj.rotation_mode = "QUATERNION"
            obj.rotation_quaternion = Quaternion((w, x, y, z))
            obj.location = spec["position"]
            obj.color = (*(world.srgb_to_linear(c) for c in spec["rgb"]), 1.0)
            obj.material_slots[0].material = self.materials[spec["material"]]
            obj.pass_index = i + 1
            obj.hide_render = False
            placed.append((obj, kind))
        for kind, objs in self.pool.items():
            for obj in objs[used[kind]:]:
                obj.hide_render = True
        return placed

    def _pooled(self, kind: str, n: int) -> bpy.types.Object:
        while len(self.pool[kind]) <= n:
            obj = bpy.data.objects.new(f"{kind}.{len(self.pool[kind])}", self.meshes[kind])
            bpy.context.scene.collection.objects.link(obj)
            obj.material_slots[0].link = "OBJECT"  # per-object finish over the shared mesh
            self.pool[kind].append(obj)
        return self.pool[kind][n]

    def _read_index(self) -> np.ndarray:
        """(H, W) int32 object index per pixel, row 0 at the top (0 = table / background)."""
        image = bpy.data.images.load(str(self.index_path), check_existing=False)
        try:
            w, h = image.size
            flat = np.empty(w * h * image.channels, np.float32)
            image.pixels.foreach_get(flat)
        finally:
            bpy.data.images.remove(image)
        return np.rint(flat.reshape(h, w, -1)[::-1, :, 0]).astype(np.int32)

    def _project(self, obj: bpy.types.Object, kind: str, msg: dict) -> dict:
        """Pixel box of the object's mesh vertices and CLEVR pixel_coords of its origin, both as
        this camera sees them (same rounding and clipping as `ravens_env.cameras`)."""
        w, h = msg["width"], msg["height"]
        matrix = np.array(obj.matrix_world)  # (4, 4) object -> world
        verts = self.vertices[kind] @ matrix[:3, :3].T + matrix[:3, 3]  # (N, 3) metres
        uvd = self._camera_uvd(np.vstack([verts, matrix[:3, 3]]), w, h)  # (N+1, 3)
        lo = np.clip(uvd[:-1, :2].min(0), 0, (w - 1, h - 1))
        hi = np.clip(uvd[:-1, :2].max(0), 0, (w - 1, h - 1))
        box = [int(lo[0]), int(lo[1]), int(np.ceil(hi[0])), int(np.ceil(hi[1]))]
        return {"pixel_box": box, "pixel_coords": [round(float(v), 3) for v in uvd[-1]]}

    def _camera_uvd(self, points: np.ndarray, w: int, h: int) -> np.ndarray:
        """World points (N, 3) m -> (N, 3) of (u px, v px, depth m along the view axis)."""
        depsgraph = bpy.context.evaluated_depsgraph_get()
        proj = np.array(self.camera.calc_matrix_camera(depsgraph, x=w, y=h))  # (4, 4)
        view = np.array(self.camera.matrix_world.inverted())  # (4, 4) world -> camera
        cam = np.c_[points, np.ones(len(points))] @ view.T  # (N, 4), camera looks down -z
        clip = cam @ proj.T
        ndc = clip[:, :3] / clip[:, 3:4]
        return np.stack([(ndc[:, 0] + 1) / 2 * w, (1 - ndc[:, 1]) / 2 * h, -cam[:, 2]], axis=1)


def _mesh_vertices(mesh: bpy.types.Mesh) -> np.ndarray:
    flat = np.empty(len(mesh.vertices) * 3, np.float32)
    mesh.vertices.foreach_get("co", flat)
    return flat.reshape(-1, 3).astype(float)  # (N, 3) metres in the object frame


def _look_at(eye, target, up) -> Matrix:
    """Rotation whose -z looks from `eye` to `target` with +y towards `up` (OpenGL's camera,
    as PyBullet's computeViewMatrix builds it)."""
    forward = (Vector(target) - Vector(eye)).normalized()
    side = forward.cross(Vector(up)).normalized()
    upward = side.cross(forward)
    return Matrix((side, upward, -forward)).transposed()


def main() -> int:
    """Serve requests until stdin closes; returns the exit status."""
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    workdir = Path(tempfile.mkdtemp(prefix="codeplan-blender-"))
    log = workdir / "blender.log"  # Blender's prints, emptied before each request
    os.dup2(os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644), 1)
    renderer = None
    replies.write(json.dumps({"ok": True, "blender": bpy.app.version_string,
                              "numpy": np.__version__}) + "\n")
    try:
        for line in sys.stdin:
            msg = json.loads(line)
            os.truncate(log, 0)  # O_APPEND: Blender's next print lands at the start again
            try:
                if msg["op"] == "setup":
                    renderer = Renderer(msg, workdir)
                    reply = {"ok": True}
                else:
                    reply = {"ok": True, **renderer.render(msg)}
            except Exception:
                tail = log.read_text(errors="replace").splitlines()[-10:]
                reply = {"ok": False, "error": "\n".join([traceback.format_exc(), *tail])}
            replies.write(json.dumps(reply) + "\n")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
