"""The scripted oracle actor: step parsing, clear errors, and picks that stay in the workspace."""

from __future__ import annotations

import pytest

from ravens_env.agents.oracle import OracleActor, UnknownObjectError, parse_step
from ravens_env.bullet import pb
from ravens_env.geometry import in_workspace


@pytest.mark.parametrize(("text", "expected"), [
    ("put the red block in the blue bowl", ("red block", "blue bowl")),
    ("Place the red block into the blue bowl.", ("red block", "blue bowl")),
    ("move red block onto green block", ("red block", "green block")),
    ("put the red block on the green block and the blue block",
     ("red block", "green block and the blue block")),
])
def test_steps_parse(text, expected):
    assert parse_step(text) == expected


def test_an_unreadable_step_says_what_was_expected():
    with pytest.raises(ValueError, match="expected 'put the <object> in"):
        parse_step("stack everything")


def test_unknown_object_lists_the_scene(env):
    obs = env.reset("put-block-in-bowl", 0)
    with pytest.raises(UnknownObjectError, match="no 'purple block' in the scene; objects: "):
        OracleActor(env).act(obs, "put the purple block in the pink bowl")


def test_a_block_partly_over_the_edge_is_picked_inside_the_workspace(env):
    obs = env.reset("put-block-in-bowl", 0)
    block, bowl = env.task.target
    body = env.scene(visibility=False).get(block).body_id
    pb.resetBasePositionAndOrientation(body, (0.5, 0.504, 0.02), (0, 0, 0, 1),
                                       physicsClientId=env.client)
    action = OracleActor(env).act(obs, f"put the {block} in the {bowl}")
    assert in_workspace(action.pick)
    obs = env.execute(action)
    assert obs.last_action.ok and obs.last_action.picked == block and env.success()


def test_a_block_already_on_the_stand_is_put_back_in_its_own_slot(env):
    """Redoing "put X on the stand" for a block a reasoner misread keeps the row: the block
    returns to the slot it fills, where before it went to the next free slot (or onto the
    middle one, with all three full); a block not on the stand takes the first free slot."""
    from ravens_env.tasks.stack_block_pyramid import slot_occupant, stand_slots

    obs = env.reset("stack-block-pyramid", 5001)
    actor = OracleActor(env)
    blocks = [o.name for o in env.scene(visibility=False).of_type("block")]
    for name in blocks[:3]:
        obs = env.execute(actor.act(obs, f"put the {name} on the stand"))
    scene = env.scene(visibility=False)
    slots = stand_slots(scene.get("stand"))[:3]
    assert [slot_occupant(scene, s) for s in slots] == blocks[:3]
    for name, slot in zip(blocks[:3], slots, strict=True):
        action = actor.act(obs, f"put the {name} on the stand")
        assert action.place[:2] == pytest.approx(slot[:2])
    obs = env.execute(actor.act(obs, f"put the {blocks[2]} on the stand"))
    scene = env.scene(visibility=False)
    assert [slot_occupant(scene, s) for s in slots] == blocks[:3]
