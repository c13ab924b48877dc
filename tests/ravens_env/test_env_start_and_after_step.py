"""The env's task seams: `ObjectSpec.on` start heights, and the `after_step` hook (called after
every pick-place with the step number; the blocks it names are set down where it says)."""

from __future__ import annotations

import pytest

from ravens_env.agents.oracle import OracleActor
from ravens_env.dimensions import BLOCK_SIZE, BOWL_FLOOR
from ravens_env.env import START_GAP, start_position
from ravens_env.tasks import ObjectSpec
from ravens_env.tasks.put_block_in_bowl import PutBlockInBowl


def test_start_heights_in_a_bowl_and_on_a_block():
    placed = {}
    for spec in (ObjectSpec("bowl", "red", (0.5, 0.1)),
                 ObjectSpec("block", "blue", (0.0, 0.0), on="red bowl"),
                 ObjectSpec("block", "green", (0.9, 0.9), on="blue block")):
        placed[spec.name] = (spec.type, start_position(spec, placed))
    _, (x, y, z) = placed["blue block"]
    assert (x, y) == (0.5, 0.1) and z == pytest.approx(BOWL_FLOOR + BLOCK_SIZE / 2 + START_GAP)
    _, (x, y, z2) = placed["green block"]
    assert (x, y) == (0.5, 0.1) and z2 == pytest.approx(z + BLOCK_SIZE + START_GAP)
    assert start_position(ObjectSpec("block", "red", (0.4, 0.2)), {}) == (0.4, 0.2, 0.02)


@pytest.mark.parametrize(("spec", "message"), [
    (ObjectSpec("block", "red", (0.4, 0.2), on="pink bowl"), "not created before it"),
    (ObjectSpec("bowl", "red", (0.4, 0.2), on="blue block"), "only a block can start"),
])
def test_a_bad_start_support_is_named(spec, message):
    with pytest.raises(ValueError, match=message):
        start_position(spec, {"blue block": ("block", (0.5, 0.0, 0.02))})


def test_after_step_gets_each_step_and_its_moves_are_disturbances(env, monkeypatch):
    calls = []

    def after_step(self, scene, step):
        calls.append((step, scene.container_of(self.target[0])))
        others = [o.name for o in scene.of_type("block") if o.name != self.target[0]]
        return [(others[0], (0.3, -0.45))] if step == 1 else []

    monkeypatch.setattr(PutBlockInBowl, "after_step", after_step)
    obs = env.reset("put-block-in-bowl", 2)
    actor, step = OracleActor(env), env.task.instruction
    pick, place = env.task.target
    obs = env.execute(actor.act(obs, step))
    assert calls == [(1, place)]  # called once the place has settled
    assert obs.last_action.situations == ["disturbance"]
    moved = env.scene(visibility=False)
    bumped = next(o for o in moved.of_type("block") if o.name != pick)
    assert bumped.position[:2] == pytest.approx((0.3, -0.45), abs=0.01)
    assert moved.support_of(bumped.name) == "table"
    obs = env.execute(actor.act(obs, f"put the {pick} in the {place}"))
    assert calls[-1][0] == 2 and obs.last_action.situations == []


def test_tasks_without_a_hook_add_no_situation(env):
    obs = env.reset("put-blocks-in-matching-bowls", 0)
    actor = OracleActor(env)
    while (step := env.task.oracle_step(env.scene(visibility=False))) is not None:
        obs = env.execute(actor.act(obs, step))
        assert obs.last_action.situations == []
    assert env.success()
