"""The shared oracle moves reach the goal from tangled states, on hand-built scenes.

A tiny kinematic stand-in for the simulator applies each step (a block in a bowl sits on its
floor, a block on a block one block higher) so that the tests run without PyBullet physics and
can start from states the oracle never makes itself: a spare bowl taken, a target buried under
another block, too many blocks in bowls.
"""

from __future__ import annotations

import pytest

from ravens_env.agents.oracle import parse_step
from ravens_env.scene_graph import Scene, SceneObject, compute_relations
from ravens_env.tasks import make_task
from ravens_env.tasks.oracle_steps import assignment_step, chain_length, chain_step, is_clear
from ravens_env.tasks.subset_in_bowls import subset_step

IN_Z, BLOCK = 0.026, 0.04  # metres: a block's centre in a bowl; block edge


def scene_of(table: dict[str, tuple[float, float]], stacks: dict[str, str]) -> Scene:
    """Bowls and blocks at table xy, then blocks put in/on others (in dict order)."""
    objects = {}
    for name, (x, y) in table.items():
        kind = name.split()[-1]
        objects[name] = SceneObject(name, kind, name.split()[0],
                                    (x, y, 0.0 if kind == "bowl" else BLOCK / 2))
    for name, under in stacks.items():
        objects[name] = _placed(name, objects[under])
    return Scene(list(objects.values()), compute_relations(list(objects.values())))


def _placed(name: str, under: SceneObject) -> SceneObject:
    x, y, z = under.position
    z = IN_Z if under.type == "bowl" else z + BLOCK
    return SceneObject(name, "block", name.split()[0], (x, y, z))


def apply(scene: Scene, step: str) -> Scene:
    """The step's effect; the picked block must be clear (the suction takes the top)."""
    pick, place = parse_step(step)
    assert is_clear(scene, pick), f"{step!r}: the {pick} is covered"
    objects = [o for o in scene.objects if o.name != pick]
    objects.append(_placed(pick, scene.get(place)))
    return Scene(objects, compute_relations(objects))


def run(scene: Scene, next_step, limit: int = 10) -> tuple[Scene, list[str]]:
    steps = []
    while (step := next_step(scene)) is not None:
        steps.append(step)
        assert len(steps) <= limit, steps
        scene = apply(scene, step)
    return scene, steps


TABLE = {"red bowl": (0.4, -0.3), "blue bowl": (0.4, 0.0), "green bowl": (0.4, 0.3),
         "red block": (0.6, -0.3), "blue block": (0.6, 0.0), "green block": (0.6, 0.3)}


def test_swap_through_the_spare_bowl_in_three_steps():
    scene = scene_of(TABLE, {"red block": "red bowl", "blue block": "blue bowl"})
    goal = {"red block": "blue bowl", "blue block": "red bowl"}
    scene, steps = run(scene, lambda s: assignment_step(s, goal))
    assert steps[0].endswith("in the green bowl")
    assert len(steps) == 3 and all(scene.container_of(b) == w for b, w in goal.items())


def test_assignment_clears_a_taken_spare_and_a_covered_block():
    table = {**TABLE, "pink bowl": (0.6, 0.4), "cyan block": (0.3, 0.4)}
    # the green block sits on the red block in the red bowl; the cyan block has the spare
    scene = scene_of(table, {"red block": "red bowl", "blue block": "blue bowl",
                             "green block": "red block", "cyan block": "green bowl"})
    goal = {"red block": "blue bowl", "blue block": "red bowl"}
    scene, _ = run(scene, lambda s: assignment_step(s, goal))
    assert all(scene.container_of(b) == w for b, w in goal.items())


@pytest.mark.parametrize("stacks", [
    {},  # the plain case
    {"green block": "red bowl"},  # a non-target in a bowl must come out
    {"green block": "red block"},  # a target buried under a non-target
    {"blue block": "red block", "green block": "blue block"},  # a pile of three
])
def test_subset_reaches_exactly_the_targets(stacks):
    table = {**TABLE, "pink bowl": (0.3, -0.1)}
    scene, _ = run(scene_of(table, stacks), lambda s: subset_step(s, ["red block", "blue block"]))
    inside = {o.name for o in scene.of_type("block") if scene.container_of(o.name)}
    assert inside == {"red block", "blue block"}


def test_chain_builds_a_tower_from_a_scattered_table():
    chain = ["red block", "blue block", "green block"]
    scene = scene_of(TABLE, {"green block": "red block"})  # a wrong block on the base
    on_table = lambda s, b: s.support_of(b) == "table"  # noqa: E731

    def step(s: Scene) -> str | None:
        k = chain_length(s, chain, on_table)
        return chain_step(s, chain, k) if 0 < k < len(chain) else None

    scene, _ = run(scene, step)
    assert chain_length(scene, chain, on_table) == 3


def test_reverse_tower_oracle_lifts_a_block_off_the_old_top_first():
    task = make_task("reverse-tower")
    task.tower = ["red block", "blue block", "green block"]
    table = {**TABLE, "pink block": (0.3, 0.4)}
    del table["green bowl"]
    scene = scene_of(table, {"blue block": "red block", "green block": "blue block",
                             "pink block": "green block"})
    scene, steps = run(scene, task.oracle_step)
    assert task.success(scene) and len(steps) == 4, steps


def test_counting_oracle_takes_blocks_out_of_bowls_too():
    task = make_task("put-n-blocks-in-bowls")
    task.n = 1
    scene = scene_of(TABLE, {"red block": "red bowl", "blue block": "blue bowl",
                             "green block": "green bowl"})
    scene, steps = run(scene, task.oracle_step)
    assert task.success(scene) and len(steps) == 2, steps


def test_empty_the_bowl_oracle_unpiles_into_other_bowls():
    task = make_task("empty-the-bowl")
    task.choice = {"bowl": "red bowl", "block": "red block"}
    scene = scene_of(TABLE, {"red block": "red bowl", "blue block": "red block"})
    scene, steps = run(scene, task.oracle_step)
    assert task.success(scene) and len(steps) == 2, steps
