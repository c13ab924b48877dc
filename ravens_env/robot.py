"""The 5-joint suction arm: closed-form inverse kinematics and kinematic motion.

Why kinematic: Ravens drives a UR5 with position motors and steps physics until the joints
arrive, giving up after 5 s of *wall-clock* time, so results change with machine load and a
pick-place costs ~700 physics steps. Here the arm follows its IK waypoints exactly and physics
is stepped only where objects move on their own (falling, settling). Suction is Ravens' model:
on contact with a pickable object a fixed constraint ties it to the tip.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ravens_env.assets import ARM_FORE, ARM_SHOULDER_HEIGHT, ARM_TOOL, ARM_UPPER, arm_urdf_path
from ravens_env.bullet import pb

HOME_TIP = (0.10, 0.0, 0.55)  # metres: tip parked above the base, out of the workspace


class UnreachableError(ValueError):
    """A tip pose outside the arm's reach."""


@dataclass(frozen=True)
class JointAngles:
    """Radians for base_yaw, shoulder_pitch, elbow_pitch, wrist_pitch, tool_roll."""

    values: tuple[float, float, float, float, float]


def solve_ik(x: float, y: float, z: float, yaw: float) -> JointAngles:
    """Joint angles that put the suction tip at (x, y, z) metres, tool down, tool yaw `yaw`.

    Geometry: the base yaw points the arm's vertical plane at (x, y); in that plane the wrist
    axis sits ARM_TOOL above the tip and a 2-link (elbow-up) solution reaches it; the wrist
    pitch then makes the tool vertical. Joint signs: a positive pitch about +y tips +x down.
    """
    q1 = math.atan2(y, x)
    reach = math.hypot(x, y)
    dx, dz = reach, z + ARM_TOOL - ARM_SHOULDER_HEIGHT
    d = math.hypot(dx, dz)
    if not (abs(ARM_UPPER - ARM_FORE) + 1e-6 < d < ARM_UPPER + ARM_FORE - 1e-6):
        raise UnreachableError(f"tip ({x:.3f}, {y:.3f}, {z:.3f}) m is out of the arm's reach")
    cos_a = (ARM_UPPER**2 + d**2 - ARM_FORE**2) / (2 * ARM_UPPER * d)
    alpha = math.atan2(dz, dx) + math.acos(max(-1.0, min(1.0, cos_a)))  # upper-arm elevation
    ex, ez = ARM_UPPER * math.cos(alpha), ARM_UPPER * math.sin(alpha)
    beta = math.atan2(dz - ez, dx - ex)  # forearm elevation
    q2, q3, q4 = -alpha, alpha - beta, math.pi / 2 + beta
    q5 = q1 - yaw  # rolling the downward tool by +q5 turns its frame by -q5 about world z
    return JointAngles((q1, q2, q3, q4, q5))


class SuctionArm:
    """Loads the arm into a PyBullet client, moves it, and holds at most one object."""

    def __init__(self, client: int) -> None:
        self.client = client
        self.body = pb.loadURDF(
            str(arm_urdf_path()), basePosition=(0, 0, 0), useFixedBase=True,
            physicsClientId=client,
        )
        n_joints = pb.getNumJoints(self.body, physicsClientId=client)
        kinds = [pb.getJointInfo(self.body, j, physicsClientId=client)[2] for j in range(n_joints)]
        self.joints = [j for j, kind in enumerate(kinds) if kind == pb.JOINT_REVOLUTE]
        self.tip_link = n_joints - 1
        self.held: int | None = None
        self._constraint: int | None = None
        self._held_offset: tuple | None = None  # object pose in the tip frame
        self.tip_yaw = 0.0
        self.tip_target: tuple[float, float, float] = HOME_TIP  # where the last move put the tip
        self.move_to(*HOME_TIP, 0.0)

    def move_to(self, x: float, y: float, z: float, yaw: float) -> None:
        """Put the tip at (x, y, z) metres with tool yaw `yaw`; carry the held object along."""
        angles = solve_ik(x, y, z, yaw)
        for joint, q in zip(self.joints, angles.values, strict=True):
            pb.resetJointState(self.body, joint, q, 0.0, physicsClientId=self.client)
        # Hold the pose if physics is stepped while the arm is parked (gravity would sag it).
        pb.setJointMotorControlArray(
            self.body, self.joints, pb.POSITION_CONTROL, targetPositions=list(angles.values),
            forces=[1e4] * len(self.joints), physicsClientId=self.client,
        )
        self.tip_yaw = yaw
        self.tip_target = (x, y, z)
        if self.held is not None:
            self._carry()

    def go_home(self) -> None:
        self.move_to(*HOME_TIP, 0.0)

    def tip_pose(self) -> tuple[tuple, tuple]:
        """World (position, quaternion) of the suction tip frame."""
        state = pb.getLinkState(self.body, self.tip_link, computeForwardKinematics=True,
                                physicsClientId=self.client)
        return state[4], state[5]

    def attach(self, body: int) -> None:
        """Seal the suction cup on `body`: a fixed constraint at the current relative pose."""
        tip_pos, tip_orn = self.tip_pose()
        obj_pos, obj_orn = pb.getBasePositionAndOrientation(body, physicsClientId=self.client)
        inv_pos, inv_orn = pb.invertTransform(tip_pos, tip_orn)
        self._held_offset = pb.multiplyTransforms(inv_pos, inv_orn, obj_pos, obj_orn)
        self._constraint = pb.createConstraint(
            self.body, self.tip_link, body, -1, pb.JOINT_FIXED, (0, 0, 0),
            parentFramePosition=self._held_offset[0], childFramePosition=(0, 0, 0),
            parentFrameOrientation=self._held_offset[1], physicsClientId=self.client,
        )
        self.held = body

    def release(self) -> int | None:
        """Break the seal; returns the body that was held (or None)."""
        body = self.held
        if self._constraint is not None:
            pb.removeConstraint(self._constraint, physicsClientId=self.client)
        self.held, self._constraint, self._held_offset = None, None, None
        return body

    def _carry(self) -> None:
        tip_pos, tip_orn = self.tip_pose()
        pos, orn = pb.multiplyTransforms(tip_pos, tip_orn, *self._held_offset)
        pb.resetBasePositionAndOrientation(self.held, pos, orn, physicsClientId=self.client)
        pb.resetBaseVelocity(self.held, (0, 0, 0), (0, 0, 0), physicsClientId=self.client)
