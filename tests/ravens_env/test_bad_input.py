"""Bad input gets a clear error or a recorded failed action, never a hang or a crash."""

from __future__ import annotations

import pytest

from ravens_env.env import TabletopEnv
from ravens_env.tasks import UnknownTaskError, make_task
from ravens_env.types import PickPlace


def _poses(env):
    return [o.position for o in env.scene(visibility=False).objects]


def test_unknown_task_names_the_known_ones(env):
    with pytest.raises(UnknownTaskError, match=r"unknown task 'stack-everything'.*stack-blocks"):
        env.reset("stack-everything", 0)
    with pytest.raises(UnknownTaskError):
        make_task("")


@pytest.mark.parametrize("seed", [-1, 1.5, "3", True])
def test_bad_seed_is_rejected(env, seed):
    with pytest.raises(ValueError, match="seed"):
        env.reset("stack-blocks", seed)


def test_using_the_env_before_reset_or_after_close_is_an_error():
    env = TabletopEnv()
    with pytest.raises(RuntimeError, match="reset"):
        env.execute(PickPlace((0.5, 0, 0), (0.5, 0.1, 0)))
    env.reset("stack-blocks", 0)
    env.close()
    with pytest.raises(RuntimeError, match="closed"):
        env.observe()


def test_execute_needs_a_pickplace(env):
    env.reset("stack-blocks", 0)
    with pytest.raises(TypeError, match="PickPlace"):
        env.execute(((0.5, 0, 0), (0.5, 0.1, 0)))


@pytest.mark.parametrize(("action", "reason"), [
    (PickPlace((0.1, 0.0, 0.0), (0.5, 0.0, 0.0)), "pick .* is outside the workspace"),
    (PickPlace((0.5, 0.0, 0.0), (0.5, 0.9, 0.0)), "place .* is outside the workspace"),
    (PickPlace((float("nan"), 0.0, 0.0), (0.5, 0.0, 0.0)), "pick has a non-finite"),
    (PickPlace((0.5, 0.0, 0.0), (0.5, float("inf"), 0.0)), "place has a non-finite"),
    (PickPlace((0.5, 0.0, 0.0), (0.5, 0.0, 0.0), pick_yaw=float("nan")), "pick_yaw"),
    (PickPlace((0.5, 0.0), (0.5, 0.0, 0.0)), r"pick must be \(x, y, z\)"),
])
def test_malformed_or_out_of_workspace_actions_are_recorded_failures(env, action, reason):
    env.reset("stack-blocks", 0)
    before = _poses(env)
    obs = env.execute(action)
    assert not obs.last_action.ok
    assert obs.last_action.picked is None
    assert __import__("re").search(reason, obs.last_action.reason), obs.last_action.reason
    assert _poses(env) == before  # nothing moved


def test_pick_on_empty_space_is_a_recorded_failure(env):
    env.reset("put-block-in-bowl", 0)
    scene = env.scene(visibility=False)
    # A corner of the workspace that no object covers.
    x, y = next((x, y) for x in (0.27, 0.73) for y in (-0.48, 0.48)
                if all(abs(x - o.position[0]) > 0.08 or abs(y - o.position[1]) > 0.08
                       for o in scene.objects))
    obs = env.execute(PickPlace((x, y, 0.0), (0.5, 0.0, 0.0)))
    assert not obs.last_action.ok and "nothing to pick" in obs.last_action.reason


def test_suction_cannot_pick_a_bowl(env):
    env.reset("put-block-in-bowl", 0)
    bowl = env.scene(visibility=False).get(env.task.target[1])
    # The bowl's floor, 2 cm off centre, is empty at reset.
    obs = env.execute(PickPlace((bowl.position[0] + 0.02, bowl.position[1], 0.0),
                                (0.5, 0.0, 0.0)))
    assert not obs.last_action.ok and "blocks only" in obs.last_action.reason


def test_failed_actions_still_count_as_steps(env):
    env.reset("stack-blocks", 0)
    obs = env.execute(PickPlace((0.1, 0.0, 0.0), (0.5, 0.0, 0.0)))
    assert obs.step == 1 and env.steps == 1
