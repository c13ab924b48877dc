"""Procedural assets: every shape the simulator uses is built here from numbers, not files.

Why procedural: the public Ravens/CLIPort assets carry their own licences and mesh files that
must be downloaded; building the few shapes tabletop tasks need (a 4 cm block, a 12 cm bowl, a
pyramid stand, the table, a 5-joint arm) from code keeps the install to one wheel and makes
every dimension visible. Sizes follow Ravens' conventions (4 cm blocks, ~12 cm bowls).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ravens_env.bullet import pb
from ravens_env.dimensions import (
    ARM_DARK_RGBA,
    ARM_FORE,
    ARM_RGBA,
    ARM_SHOULDER_HEIGHT,
    ARM_TOOL,
    ARM_UPPER,
    BLOCK_MASS,
    BLOCK_SIZE,
    BOWL_FLOOR,
    BOWL_FLOOR_RADIUS,
    BOWL_HEIGHT,
    BOWL_MASS,
    BOWL_RADIUS,
    STAND_SIZE,
    TABLE_RGBA,
)


@dataclass(frozen=True)
class BowlProfile:
    """Cross-section of the bowl, (radius, height) pairs in metres, outside then inside."""

    points: tuple[tuple[float, float], ...] = (
        (0.0, 0.0),
        (BOWL_FLOOR_RADIUS, 0.0),
        (BOWL_RADIUS, BOWL_HEIGHT),
        (BOWL_RADIUS - 0.005, BOWL_HEIGHT),
        (BOWL_FLOOR_RADIUS - 0.004, BOWL_FLOOR),
        (0.0, BOWL_FLOOR),
    )


def create_table(client: int) -> int:
    """A static 4 m x 4 m slab whose top face is z = 0 (wide enough to fill every view)."""
    half = (2.0, 2.0, 0.01)
    col = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=half, physicsClientId=client)
    vis = pb.createVisualShape(
        pb.GEOM_BOX, halfExtents=half, rgbaColor=TABLE_RGBA, physicsClientId=client
    )
    return pb.createMultiBody(0, col, vis, basePosition=(0.5, 0, -0.01), physicsClientId=client)


def create_block(client: int, rgba: tuple, position: tuple, orientation: tuple) -> int:
    """A 4 cm cube; `position` is its centre (metres)."""
    half = (BLOCK_SIZE / 2,) * 3
    col = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=half, physicsClientId=client)
    vis = pb.createVisualShape(pb.GEOM_BOX, halfExtents=half, rgbaColor=rgba,
                               physicsClientId=client)
    return pb.createMultiBody(
        BLOCK_MASS, col, vis, basePosition=position, baseOrientation=orientation,
        physicsClientId=client,
    )


def create_stand(client: int, rgba: tuple, position: tuple, orientation: tuple) -> int:
    """The flat base of the 3-2-1 pyramid; static so that stacking on it is well defined."""
    half = tuple(s / 2 for s in STAND_SIZE)
    col = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=half, physicsClientId=client)
    vis = pb.createVisualShape(pb.GEOM_BOX, halfExtents=half, rgbaColor=rgba,
                               physicsClientId=client)
    return pb.createMultiBody(
        0, col, vis, basePosition=position, baseOrientation=orientation, physicsClientId=client
    )


def create_bowl(client: int, rgba: tuple, position: tuple, orientation: tuple) -> int:
    """A bowl whose origin is the centre of its bottom (z = 0 on the table).

    Collision is a compound of convex pieces (a floor disk and 16 slanted wall slabs): Bullet
    handles concave meshes only for static bodies, and a bowl must be knockable. The visual
    mesh is a lathe of `BowlProfile`, so the camera sees a round bowl.
    """
    col = _bowl_collision(client)
    vertices, indices, normals = _bowl_mesh()
    vis = pb.createVisualShape(
        pb.GEOM_MESH, vertices=vertices, indices=indices, normals=normals, rgbaColor=rgba,
        physicsClientId=client,
    )
    return pb.createMultiBody(
        BOWL_MASS, col, vis, basePosition=position, baseOrientation=orientation,
        physicsClientId=client,
    )


@functools.cache
def _bowl_mesh() -> tuple[list, list, list]:
    """The bowl's visual mesh, built once per process (~17 ms each time otherwise)."""
    return lathe_mesh(BowlProfile().points, segments=32)


def _bowl_collision(client: int, walls: int = 16) -> int:
    """Floor cylinder plus `walls` boxes leaning outwards like the visual profile."""
    thickness = 0.004
    r0, r1 = BOWL_FLOOR_RADIUS, BOWL_RADIUS - 0.002
    rise = BOWL_HEIGHT - BOWL_FLOOR
    lean = math.atan2(r1 - r0, rise)  # radians from vertical
    length = math.hypot(r1 - r0, rise)
    width = 2 * math.pi * r1 / walls * 1.15  # overlap so a corner cannot slip between slabs
    types, halves, radii, lengths, positions, orientations = [], [], [], [], [], []
    types.append(pb.GEOM_CYLINDER)
    halves.append((0, 0, 0))
    radii.append(r0 + 0.002)
    lengths.append(BOWL_FLOOR)
    positions.append((0, 0, BOWL_FLOOR / 2))
    orientations.append((0, 0, 0, 1))
    r_mid, z_mid = (r0 + r1) / 2, BOWL_FLOOR + rise / 2
    for k in range(walls):
        theta = 2 * math.pi * k / walls
        types.append(pb.GEOM_BOX)
        halves.append((thickness / 2, width / 2, length / 2))
        radii.append(0)
        lengths.append(0)
        positions.append((r_mid * math.cos(theta), r_mid * math.sin(theta), z_mid))
        orientations.append(pb.getQuaternionFromEuler((0, lean, theta)))
    return pb.createCollisionShapeArray(
        shapeTypes=types, halfExtents=halves, radii=radii, lengths=lengths,
        collisionFramePositions=positions, collisionFrameOrientations=orientations,
        physicsClientId=client,
    )


def lathe_mesh(
    profile: tuple[tuple[float, float], ...], segments: int
) -> tuple[list, list, list]:
    """Revolve a (radius, z) polyline about +z into a flat-shaded triangle mesh.

    Returns (vertices, indices, normals) for `pybullet.createVisualShape(GEOM_MESH, ...)`.
    Each quad gets its own four vertices so that its normal is exact (flat shading).
    """
    vertices: list[tuple[float, float, float]] = []
    normals: list[tuple[float, float, float]] = []
    indices: list[int] = []
    angles = np.linspace(0.0, 2 * math.pi, segments + 1)
    for (ra, za), (rb, zb) in itertools.pairwise(profile):
        for a0, a1 in itertools.pairwise(angles):
            quad = [
                (ra * math.cos(a0), ra * math.sin(a0), za),
                (ra * math.cos(a1), ra * math.sin(a1), za),
                (rb * math.cos(a1), rb * math.sin(a1), zb),
                (rb * math.cos(a0), rb * math.sin(a0), zb),
            ]
            normal = _quad_normal(quad)
            base = len(vertices)
            vertices.extend(quad)
            normals.extend([normal] * 4)
            indices.extend([base, base + 1, base + 2, base, base + 2, base + 3])
    return vertices, indices, normals


def _quad_normal(quad: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    p = np.asarray(quad)
    n = np.cross(p[1] - p[0], p[3] - p[0])
    if np.linalg.norm(n) < 1e-12:  # degenerate quad at the axis: use the other diagonal
        n = np.cross(p[2] - p[1], p[3] - p[1])
    n = n / max(np.linalg.norm(n), 1e-12)
    return (float(n[0]), float(n[1]), float(n[2]))


def arm_urdf() -> str:
    """URDF text of a 5-joint arm: base yaw, shoulder/elbow/wrist pitch, tool roll + suction tip.

    Five joints are all a top-down suction picker needs (position + yaw with the tool pointing
    down), and that makes inverse kinematics closed-form (see `robot.py`). Links carry visuals
    only: the arm is moved kinematically, so it never pushes objects by accident.
    """
    h, l1, l2, lt = ARM_SHOULDER_HEIGHT, ARM_UPPER, ARM_FORE, ARM_TOOL
    gray = "{:.3f} {:.3f} {:.3f} 1".format(*ARM_RGBA[:3])
    dark = "{:.3f} {:.3f} {:.3f} 1".format(*ARM_DARK_RGBA[:3])
    links = [
        _urdf_link("base_link", f'<cylinder radius="0.07" length="{h - 0.02:.3f}"/>',
                   f"0 0 {(h - 0.02) / 2:.3f}", "0 0 0", dark),
        _urdf_link("shoulder", '<sphere radius="0.06"/>', "0 0 0", "0 0 0", gray),
        _urdf_link("upper_arm", f'<cylinder radius="0.035" length="{l1:.3f}"/>',
                   f"{l1 / 2:.3f} 0 0", "0 1.5708 0", gray),
        _urdf_link("forearm", f'<cylinder radius="0.03" length="{l2:.3f}"/>',
                   f"{l2 / 2:.3f} 0 0", "0 1.5708 0", gray),
        _urdf_link("wrist", '<sphere radius="0.035"/>', "0 0 0", "0 0 0", dark),
        _urdf_link("tool", f'<cylinder radius="0.012" length="{lt - 0.03:.3f}"/>',
                   f"{(lt - 0.03) / 2:.3f} 0 0", "0 1.5708 0", gray),
        _urdf_link("suction_tip", '<cylinder radius="0.018" length="0.03"/>',
                   "-0.015 0 0", "0 1.5708 0", dark),
    ]
    joints = [
        _urdf_joint("base_yaw", "revolute", "base_link", "shoulder", f"0 0 {h:.3f}", "0 0 1"),
        _urdf_joint("shoulder_pitch", "revolute", "shoulder", "upper_arm", "0 0 0", "0 1 0"),
        _urdf_joint("elbow_pitch", "revolute", "upper_arm", "forearm", f"{l1:.3f} 0 0", "0 1 0"),
        _urdf_joint("wrist_pitch", "revolute", "forearm", "wrist", f"{l2:.3f} 0 0", "0 1 0"),
        _urdf_joint("tool_roll", "revolute", "wrist", "tool", "0 0 0", "1 0 0"),
        _urdf_joint("tip_fixed", "fixed", "tool", "suction_tip", f"{lt:.3f} 0 0", "1 0 0"),
    ]
    head = '<?xml version="1.0"?>\n<robot name="codeplan_arm">\n'
    return head + "".join(links + joints) + "</robot>\n"


def _urdf_link(name: str, geometry: str, xyz: str, rpy: str, rgba: str) -> str:
    return (
        f'<link name="{name}"><inertial><mass value="0.5"/>'
        '<inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>'
        f'<visual><origin xyz="{xyz}" rpy="{rpy}"/><geometry>{geometry}</geometry>'
        f'<material name="{name}_mat"><color rgba="{rgba}"/></material></visual></link>\n'
    )


def _urdf_joint(name: str, kind: str, parent: str, child: str, xyz: str, axis: str) -> str:
    limit = '<limit lower="-6.2832" upper="6.2832" effort="1000" velocity="10"/>'
    return (
        f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
        f'<origin xyz="{xyz}" rpy="0 0 0"/><axis xyz="{axis}"/>'
        f"{limit if kind != 'fixed' else ''}</joint>\n"
    )


def arm_urdf_path() -> Path:
    """The arm URDF as a file (PyBullet loads URDF only from a file), named by a digest of
    its text in the temp dir: one file per arm version, shared by every process. (It was a
    new temp folder per process, never removed: 726 of them after a few days here.)"""
    text = arm_urdf()
    digest = hashlib.sha1(text.encode()).hexdigest()[:12]
    path = Path(tempfile.gettempdir()) / f"codeplan-arm-{digest}.urdf"
    if not path.is_file():
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)  # atomic: parallel workers may write it at once
    return path
