"""A pick-place as watchable, haltable motion segments (`TabletopEnv.start`)."""

from __future__ import annotations

import numpy as np
import pytest

from ravens_env.agents.oracle import OracleActor, step_holds
from ravens_env.env import SAFE_TIP_Z, TabletopEnv
from ravens_env.motion import CARRY_STEP, SEGMENTS, TIP_SPEED, carry_waypoints
from ravens_env.types import ActionResult, PickPlace

TASK = "put-block-in-bowl"


def _step_text(env: TabletopEnv) -> str:
    return env.task.oracle_step(env.scene(visibility=False))


def _run(motion) -> list:
    states = []
    while not motion.poll().done:
        states.append(motion.step())
    return states


def _positions(env: TabletopEnv) -> dict:
    return {o.name: np.round(o.position, 6) for o in env.scene(visibility=False).objects}


def test_carry_waypoints_split_the_carry_at_most_carry_step_apart():
    assert carry_waypoints(0.0) == 1
    assert carry_waypoints(CARRY_STEP) == 1
    assert carry_waypoints(CARRY_STEP * 1.01) == 2
    assert carry_waypoints(0.42) == 9


def test_a_stepwise_pick_place_runs_its_segments_in_order_and_does_the_step():
    with TabletopEnv() as env:
        obs = env.reset(TASK, seed=3)
        step = _step_text(env)
        motion = env.start(OracleActor(env).act(obs, step))
        states = _run(motion)
        names = [s.segment for s in states if not s.done]
        assert names[:3] == ["approach", "descend", "lift"]
        assert names[-3:] == ["lower", "release", "home"]
        assert set(names[3:-3]) == {"carry"} and len(names[3:-3]) >= 2  # carry in waypoints
        assert all(n in SEGMENTS for n in names)
        lifted = states[names.index("lift")]
        assert lifted.holding == step.split(" the ")[1].split(" in")[0]  # robot state
        assert states[names.index("release")].holding is None
        times = [s.sim_s for s in states]
        assert times == sorted(times) and times[-1] > 1.0
        assert motion.result.ok and motion.result.motion_s == pytest.approx(times[-1], abs=1e-3)
        assert step_holds(env.scene(visibility=False), step)
        assert env.observe().last_action is motion.result


def test_the_blocking_path_reports_motion_time_of_the_same_path():
    with TabletopEnv() as env:
        obs = env.reset(TASK, seed=3)
        action = OracleActor(env).act(obs, _step_text(env))
        blocking = env.execute(action).last_action
    with TabletopEnv() as env:
        env.reset(TASK, seed=3)
        stepwise = env.start(action)
        _run(stepwise)
    assert blocking.motion_s == pytest.approx(stepwise.result.motion_s, rel=1e-6)
    assert blocking.motion_s > 0.5 / TIP_SPEED


def test_halting_after_the_lift_keeps_the_block_and_the_next_action_places_it():
    with TabletopEnv() as env:
        obs = env.reset(TASK, seed=3)
        step = _step_text(env)
        action = OracleActor(env).act(obs, step)
        motion = env.start(action)
        while motion.step().segment != "lift":
            pass
        obs = motion.halt()
        assert obs.last_action.halted == "lift" and obs.holding is not None
        assert env.arm.tip_target[2] == pytest.approx(SAFE_TIP_Z)
        assert motion.poll().halted and motion.poll().done
        obs = env.execute(action)  # holding: the arm places without picking
        assert obs.holding is None
        assert step_holds(env.scene(visibility=False), step)


def test_halting_with_release_drops_the_block_where_it_is():
    with TabletopEnv() as env:
        obs = env.reset(TASK, seed=3)
        step = _step_text(env)
        motion = env.start(OracleActor(env).act(obs, step))
        while motion.step().segment != "lift":
            pass
        start_xy = np.array(env.arm.tip_target[:2])
        obs = motion.halt(release=True)
        assert obs.holding is None and obs.last_action.halted == "lift"
        block = env.scene(visibility=False).get(obs.last_action.picked)
        assert np.linalg.norm(np.array(block.position[:2]) - start_xy) < 0.05  # fell there
        assert block.position[2] < 0.05  # and landed
        assert not step_holds(env.scene(visibility=False), step)


def test_the_same_seed_and_calls_give_the_same_halted_state():
    def halted_positions() -> dict:
        with TabletopEnv(situations="hard") as env:
            obs = env.reset("stack-blocks", seed=11)
            motion = env.start(OracleActor(env).act(obs, _step_text(env)))
            for _ in range(5):
                motion.step()
            motion.halt(release=True)
            return _positions(env)

    a, b = halted_positions(), halted_positions()
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_a_drop_in_transport_shows_in_the_robot_state_during_the_carry():
    with TabletopEnv(situations="drop=1") as env:
        obs = env.reset(TASK, seed=3)
        motion = env.start(OracleActor(env).act(obs, _step_text(env)))
        states = _run(motion)
        carry = [s for s in states if s.segment == "carry"]
        assert carry and carry[-1].holding is None  # the cup lost it in transport
        assert any(s.holding for s in states if s.segment == "lift")
        assert "drop" in motion.result.situations
        lost = next(s for s in carry if s.holding is None)
        assert motion.result.lost_s == pytest.approx(lost.sim_s, abs=1e-3)
        assert 0 < motion.result.lost_s < motion.result.motion_s


def test_one_motion_at_a_time_and_a_failed_action_ends_at_once():
    with TabletopEnv() as env:
        obs = env.reset(TASK, seed=3)
        motion = env.start(OracleActor(env).act(obs, _step_text(env)))
        motion.step()
        with pytest.raises(RuntimeError, match="still in motion"):
            env.execute(PickPlace((0.5, 0.0, 0.0), (0.5, 0.1, 0.0)))
        motion.finish()
        far = env.start(PickPlace((9.0, 0.0, 0.0), (0.5, 0.1, 0.0)))
        state = far.step()
        assert state.done and not far.result.ok and "outside the workspace" in far.result.reason
        assert far.result.motion_s == 0.0


def _tower_between(env: TabletopEnv) -> tuple[list[str], str]:
    """Three blocks stacked at (0.5, 0) and a fourth at (0.5, -0.25): carrying the fourth to
    (0.5, 0.25) passes over the tower."""
    from ravens_env.bullet import pb

    blocks = [o for o in env.scene(visibility=False).objects if o.type == "block"]
    spots = [(0.5, 0.0, 0.021), (0.5, 0.0, 0.062), (0.5, 0.0, 0.103), (0.5, -0.25, 0.021)]
    far = [(0.3 + 0.06 * i, 0.4, 0.021) for i in range(len(blocks))]
    for body, xyz in zip([b.body_id for b in blocks], spots + far, strict=False):
        pb.resetBasePositionAndOrientation(body, xyz, (0, 0, 0, 1),
                                           physicsClientId=env.client)
    env.settle()
    return [b.name for b in blocks[:3]], blocks[3].name


def _carry_across(situations: str) -> tuple[float, list[str], list[str]]:
    """How far (metres) the tower's top block moved while another block was carried across,
    what the action's result says it displaced, and the tower's blocks."""
    with TabletopEnv(situations=situations) as env:
        env.reset("stack-blocks", seed=2)
        tower, mover = _tower_between(env)
        top = np.array(env.scene(visibility=False).get(tower[2]).position)
        obs = env.execute(PickPlace((0.5, -0.25, 0.04), (0.5, 0.25, 0.0)))
        assert obs.last_action.ok and obs.last_action.picked == mover
        moved = float(np.linalg.norm(np.array(env.scene(visibility=False).get(tower[2]).position)
                                     - top))
        return moved, obs.last_action.displaced, tower


def test_with_natural_failures_a_carried_block_knocks_a_tower_in_its_way():
    moved, displaced, _ = _carry_across("none")
    assert moved < 0.002 and displaced == []  # carried high above: the tower stands
    moved, displaced, tower = _carry_across("natural")
    assert moved > 0.02  # carried low: the top of the tower is struck
    assert tower[2] in displaced  # and the action's result names it (for the audit)
    assert "displaced" in ActionResult(True, displaced=[tower[2]]).to_dict()


def test_with_natural_failures_a_block_lifted_out_of_a_bowl_clears_its_rim():
    """The carry height counts the object the block left (the bowl's rim, not its floor)."""
    from ravens_env.bullet import pb
    from ravens_env.dimensions import BOWL_HEIGHT
    from ravens_env.env import NATURAL_CLEARANCE

    with TabletopEnv(situations="natural") as env:
        env.reset("empty-the-bowl", seed=0)
        scene = env.scene(visibility=False)
        block = next(o for o in scene.objects if o.type == "block"
                     and scene.container_of(o.name) is not None)
        motion = env.start(PickPlace((*block.position[:2], block.top), (0.35, 0.35, 0.0)))
        while motion.step().segment != "lift":
            pass
        bottom = pb.getAABB(env.arm.held, physicsClientId=env.client)[0][2]
        assert bottom == pytest.approx(BOWL_HEIGHT + NATURAL_CLEARANCE, abs=0.004)
        motion.finish()
