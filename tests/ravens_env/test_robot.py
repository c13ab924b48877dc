"""Closed-form IK against PyBullet's forward kinematics, and the suction contract."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ravens_env.bullet import pb
from ravens_env.robot import SuctionArm, UnreachableError, solve_ik


@pytest.fixture(scope="module")
def arm():
    client = pb.connect(pb.DIRECT)
    yield SuctionArm(client)
    pb.disconnect(client)


def test_ik_reaches_the_whole_workspace(arm):
    rng = np.random.default_rng(0)
    for _ in range(100):
        x, y, z = rng.uniform(0.25, 0.75), rng.uniform(-0.5, 0.5), rng.uniform(0.0, 0.35)
        yaw = rng.uniform(-math.pi, math.pi)
        arm.move_to(x, y, z, yaw)
        pos, orn = arm.tip_pose()
        rot = np.asarray(pb.getMatrixFromQuaternion(orn)).reshape(3, 3)
        assert np.allclose(pos, (x, y, z), atol=1e-6)
        assert rot[2, 0] < -0.9999  # the tool axis (tip frame x) points straight down
        tool_yaw = math.atan2(rot[1, 1], rot[0, 1]) - math.pi / 2
        assert abs((tool_yaw - yaw + math.pi) % (2 * math.pi) - math.pi) < 1e-6


@pytest.mark.parametrize("target", [(2.0, 0.0, 0.0), (0.0, 0.0, 0.28), (0.5, 0.0, 1.5)])
def test_unreachable_targets_raise(target):
    with pytest.raises(UnreachableError, match="out of the arm's reach"):
        solve_ik(*target, 0.0)


def test_carried_object_keeps_its_pose_relative_to_the_tip(arm):
    c = arm.client
    box = pb.createMultiBody(0.05, pb.createCollisionShape(pb.GEOM_BOX, halfExtents=[0.02] * 3,
                                                           physicsClientId=c),
                             basePosition=(0.5, 0.0, 0.02), physicsClientId=c)
    arm.move_to(0.5, 0.0, 0.04, 0.0)
    arm.attach(box)
    arm.move_to(0.4, 0.2, 0.3, math.pi / 2)
    pos, orn = pb.getBasePositionAndOrientation(box, physicsClientId=c)
    assert np.allclose(pos, (0.4, 0.2, 0.28), atol=1e-6)
    assert abs(abs(pb.getEulerFromQuaternion(orn)[2]) - math.pi / 2) < 1e-6
    assert arm.release() == box and arm.held is None


def test_the_arm_urdf_is_one_shared_file_per_arm_version(monkeypatch, tmp_path):
    """One file named by the URDF's digest, reused by every process: a temp folder per
    process, never removed, had left 726 of them in /tmp."""
    import tempfile

    from ravens_env import assets

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    first = assets.arm_urdf_path()
    assert first.parent == tmp_path and first.read_text() == assets.arm_urdf()
    assert assets.arm_urdf_path() == first and len(list(tmp_path.iterdir())) == 1
    first.unlink()  # a temp cleaner removed it: written again
    assert assets.arm_urdf_path().is_file()
    monkeypatch.setattr(assets, "arm_urdf", lambda: "<robot name='other'/>")
    assert assets.arm_urdf_path() != first  # another arm, another file
