"""Relations on hand-built scenes: no simulator, so every expectation is exact."""

from __future__ import annotations

import pytest

from ravens_env.scene_graph import Relation, Scene, SceneObject, compute_relations


def block(name: str, x: float, y: float, z: float = 0.02, **kw) -> SceneObject:
    return SceneObject(name=name, type="block", color=name.split()[0], position=(x, y, z), **kw)


def bowl(name: str, x: float, y: float) -> SceneObject:
    return SceneObject(name=name, type="bowl", color=name.split()[0], position=(x, y, 0.0))


def rels(objects) -> set[Relation]:
    return set(compute_relations(objects))


def test_block_in_bowl_and_support_relations():
    objs = [bowl("blue bowl", 0.5, 0.0), block("red block", 0.51, 0.01, 0.026)]
    r = rels(objs)
    assert Relation("red block", "in", "blue bowl") in r
    assert Relation("red block", "above", "blue bowl") in r
    assert Relation("blue bowl", "below", "red block") in r
    assert Relation("blue bowl", "on", "table") in r
    assert Relation("red block", "on", "table") not in r


def test_block_beside_a_bowl_is_not_in_it():
    r = rels([bowl("blue bowl", 0.5, 0.0), block("red block", 0.5, 0.09)])
    assert Relation("red block", "in", "blue bowl") not in r
    assert Relation("red block", "on", "table") in r


def test_stack_gives_on_above_below_chain():
    objs = [block("red block", 0.5, 0.0), block("green block", 0.505, 0.0, 0.06),
            block("pink block", 0.5, 0.004, 0.10)]
    r = rels(objs)
    assert Relation("green block", "on", "red block") in r
    assert Relation("pink block", "on", "green block") in r
    assert Relation("green block", "below", "pink block") in r
    assert Relation("red block", "below", "green block") in r
    assert Relation("pink block", "on", "red block") not in r  # support is direct only
    scene = Scene(objs, list(r))
    assert scene.related("below", "pink block") == ["green block"]
    assert scene.support_of("red block") == "table"


def test_offset_block_is_not_on_the_one_below():
    r = rels([block("red block", 0.5, 0.0), block("green block", 0.5, 0.045, 0.06)])
    assert Relation("green block", "on", "red block") not in r


def test_tilted_or_floating_block_rests_on_nothing():
    r = rels([block("red block", 0.5, 0.0, 0.02, tilt=0.8), block("blue block", 0.6, 0.2, 0.2)])
    assert not any(x.relation in ("on", "in") for x in r)


@pytest.mark.parametrize(("dy", "dx", "expected"), [
    (-0.1, 0.0, {"left"}), (0.1, 0.0, {"right"}), (0.0, 0.1, {"front"}),
    (0.0, -0.1, {"behind"}), (0.1, 0.1, {"right", "front"}), (0.005, -0.005, set()),
])
def test_directions_as_seen_from_the_front_camera(dy, dx, expected):
    a, b = block("red block", 0.5 + dx, 0.0 + dy), block("blue block", 0.5, 0.0)
    got = {x.relation for x in rels([a, b]) if x.subject == "red block"
           and x.object == "blue block" and x.relation in ("left", "right", "front", "behind")}
    assert got == expected


def test_clevr_layout_indexes_relationships_by_object():
    objs = [block("red block", 0.5, -0.2), block("blue block", 0.5, 0.2)]
    data = Scene(objs, compute_relations(objs)).to_json()
    assert data["objects"][0]["shape"] == "block"
    assert data["objects"][0]["3d_coords"] == [0.5, -0.2, 0.02]
    # relationships["left"][i] lists the objects left of object i (CLEVR's convention).
    assert data["relationships"]["left"][1] == [0]
    assert data["relationships"]["right"][0] == [1]
    assert data["relationships"]["left"][0] == []


def test_scene_get_names_the_known_objects_when_missing():
    scene = Scene([block("red block", 0.5, 0.0)])
    with pytest.raises(KeyError, match="red block"):
        scene.get("purple block")


def test_a_block_straddling_two_blocks_is_on_both():
    objs = [block("red block", 0.5, -0.025), block("blue block", 0.5, 0.025),
            block("green block", 0.5, 0.0, 0.06)]
    r = rels(objs)
    assert Relation("green block", "on", "red block") in r
    assert Relation("green block", "on", "blue block") in r
    assert Relation("red block", "below", "green block") in r


def test_a_block_rolled_onto_its_side_still_rests_on_the_table(env):
    import math

    from ravens_env.bullet import pb

    env.reset("stack-blocks", 0)
    obj = env.objects[0]
    pb.resetBasePositionAndOrientation(obj.body, (0.5, 0.0, 0.02),
                                       pb.getQuaternionFromEuler((math.pi / 2, 0, 0)),
                                       physicsClientId=env.client)
    assert env.scene(visibility=False).support_of(obj.name) == "table"
