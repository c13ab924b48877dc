"""What each family holds: its tasks, its color rule (seen / unseen-only / CoGenT halves)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from datagen.families import DEFAULT_SPLITS, FAMILIES, family, shard_seed
from datagen.palette import (
    COGENT_A_RULE,
    COGENT_B_RULE,
    COGENT_HALVES,
    DARK_UNSAFE,
    SEEN_RULE,
    UNSEEN_ONLY,
    plan_colors,
    recolor_scene,
)
from datagen.scenes import sample_state
from ravens_env.colors import ALL_COLORS, SEEN_COLORS, UNSEEN_COLORS
from ravens_env.scene_graph import Scene, SceneObject, compute_relations
from ravens_env.tasks import task_ids


def test_family_tasks_are_registered_and_names_are_the_splits():
    assert list(DEFAULT_SPLITS) == ["block_stack", "block_bowl", "global_table", "unseen",
                                    "cogent_a", "cogent_b"]
    assert list(FAMILIES) == [*DEFAULT_SPLITS, "pyramid"]  # opt-in: not in the eval sets
    for fam in FAMILIES.values():
        assert set(fam.tasks) <= set(task_ids())
    with pytest.raises(ValueError, match="unknown split 'nope'; known splits: block_stack"):
        family("nope")


def test_unseen_colors_are_cliports_unseen_minus_seen():
    assert set(UNSEEN_ONLY) == set(UNSEEN_COLORS) - set(SEEN_COLORS)
    assert set(UNSEEN_ONLY) == {"orange", "purple", "pink", "white"}


def test_cogent_combination_sets_are_disjoint_and_cover_the_palette():
    a, b = COGENT_A_RULE.combinations(), COGENT_B_RULE.combinations()
    assert a.isdisjoint(b)
    assert a | b == {(k, c) for k in ("block", "bowl") for c in ALL_COLORS}
    assert set(COGENT_HALVES[0]).isdisjoint(COGENT_HALVES[1])


def _objects(spec: str) -> list[SceneObject]:
    """'block:red:dark bowl:red' -> scene objects at made-up spots."""
    out = []
    for i, item in enumerate(spec.split()):
        kind, color, *shade = item.split(":")
        out.append(SceneObject(f"{color} {kind}", kind, color, (0.3 + 0.05 * i, 0.0, 0.02),
                               shade=shade[0] if shade else ""))
    return out


@pytest.mark.parametrize("seed", range(20))
def test_plan_colors_keeps_names_unique_pairs_together_and_dark_shades_colored(seed):
    rng = np.random.default_rng(seed)
    objects = _objects("block:red:dark block:blue:dark block:green:dark bowl:red bowl:blue "
                       "bowl:yellow")
    for rule in (SEEN_RULE, COGENT_A_RULE, COGENT_B_RULE):
        mapping = plan_colors(objects, rule, rng)
        assert mapping is not None
        for kind in ("block", "bowl"):
            new = [mapping[(kind, o.color)] for o in objects if o.type == kind]
            assert len(set(new)) == len(new) and set(new) <= set(rule.colors(kind))
        assert not {mapping[("block", c)] for c in ("red", "blue", "green")} & set(DARK_UNSAFE)
        if rule.shared:  # red and blue blocks keep their same-color bowls
            assert mapping[("block", "red")] == mapping[("bowl", "red")]
        scene = recolor_scene(Scene(objects, compute_relations(objects)), mapping)
        assert len(set(scene.names())) == len(objects)


def test_plan_colors_refuses_what_the_palette_cannot_hold():
    five = _objects(" ".join(f"block:{c}" for c in ("red", "blue", "green", "cyan", "gray")))
    rule = FAMILIES["unseen"].colors
    assert plan_colors(five, rule, np.random.default_rng(0)) is None
    dark = _objects(" ".join(f"block:{c}:dark" for c in ("red", "blue", "green", "cyan")))
    assert plan_colors(dark, rule, np.random.default_rng(0)) is None  # white is unsafe


def _states(env, name, n=2):
    fam = FAMILIES[name]
    return [sample_state(env, fam, shard_seed(fam, 0, 0), i) for i in range(n)]


def test_unseen_states_use_only_unseen_colors_and_are_cluttered(env):
    for state in _states(env, "unseen"):
        colors = {o.color for o in state.scene.objects if o.type != "stand"}
        assert colors <= set(UNSEEN_ONLY)
        assert len(state.scene.objects) >= 6 and state.situations == "hard"


def test_seen_families_use_only_seen_colors(env):
    for name in ("block_stack", "block_bowl", "global_table"):
        for state in _states(env, name, 1):
            assert {o.color for o in state.scene.objects} <= set(SEEN_COLORS)


def test_pyramid_states_build_upper_rows_and_take_every_color(env):
    """The opt-in pyramid family exists for the second and third rows the other families
    almost never build: most of its states have a block on two blocks."""
    states = _states(env, "pyramid", 12)
    straddling = sum(any(len([r for r in s.scene.relations if r.subject == b.name and
                              r.relation == "on" and r.object.endswith("block")]) == 2
                         for b in s.scene.of_type("block")) for s in states)
    assert straddling >= 4
    colors = {o.color for s in states for o in s.scene.objects if o.type == "block"}
    assert colors - set(SEEN_COLORS)  # the tasks' whole palette, not the seen split


def test_cogent_states_and_questions_keep_to_their_condition(env, small_run):
    for name, rule in (("cogent_a", COGENT_A_RULE), ("cogent_b", COGENT_B_RULE)):
        for state in _states(env, name, 2):
            for o in state.scene.objects:
                assert o.color in rule.colors(o.type)
    out, _ = small_run  # questions never name a combination the condition lacks
    allowed = COGENT_A_RULE.combinations() | {("object", c) for c in ALL_COLORS}
    for q in json.loads((out / "cogent_a" / "questions.json").read_text())["questions"]:
        p = q["program"]["params"]
        for key in ("subject", "anchor"):
            if p.get(key, "table") not in ("table", "stand"):
                color, kind = p[key].split()
                assert (kind, color) in allowed
        if "color" in p:
            assert (p["type"], p["color"]) in allowed
