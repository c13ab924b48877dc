"""Question checks and sampling on hand-built scenes (no simulator): what an image supports."""

from __future__ import annotations

import numpy as np

from datagen.families import FAMILIES
from datagen.question_checks import answerable
from datagen.question_sampler import same_color, sample_questions
from ravens_env.scene_graph import Scene, SceneObject, compute_relations
from vrs.questions import Question, answer_question, parse_question


def obj(name: str, x: float, y: float, z: float | None = None, **kw) -> SceneObject:
    kind = name.split()[-1]
    color = "brown" if kind == "stand" else name.split()[0]
    height = {"block": 0.02, "bowl": 0.0, "stand": 0.005}[kind]
    return SceneObject(name, kind, color, (x, y, height if z is None else z),
                       visible_pixels=kw.pop("pixels", 200), **kw)


def scene_of(*objects: SceneObject) -> Scene:
    return Scene(list(objects), compute_relations(list(objects)))


def rel_q(subject: str, rel: str, anchor: str) -> Question:
    return Question("relation_yes_no", {"subject": subject, "rel": rel, "anchor": anchor})


TABLETOP = scene_of(
    obj("red bowl", 0.5, 0.0), obj("red block", 0.505, 0.0, 0.026),
    obj("blue block", 0.6, -0.2), obj("green block", 0.6, 0.205),
    obj("stand", 0.35, 0.2), obj("yellow block", 0.35, 0.17, 0.03),
    obj("cyan block", 0.35, 0.23, 0.03),
    obj("gray block", 0.45, -0.3, tilt=1.5708),  # rolled onto its side
    obj("pink block", 0.7, 0.35, pixels=5),  # hidden
)


def test_support_questions_skip_a_block_lying_on_its_side():
    assert TABLETOP.support_of("gray block") is None  # the scene graph's view of it
    assert not answerable(rel_q("gray block", "on", "table"), TABLETOP)
    assert answerable(rel_q("gray block", "left", "green block"), TABLETOP)


def test_hidden_objects_are_never_named_counted_or_listed():
    assert not answerable(rel_q("pink block", "right", "blue block"), TABLETOP)
    assert not answerable(Question("count", {"type": "block"}), TABLETOP)
    assert not answerable(Question("list_objects", {}), TABLETOP)
    assert answerable(Question("count", {"type": "bowl"}), TABLETOP)


def test_one_object_questions_need_a_single_support_answer():
    two_on_stand = Question("relate_object", {"rel": "on", "anchor": "stand"})
    assert answer_question(two_on_stand, TABLETOP) == "cyan block"  # first by name
    assert not answerable(two_on_stand, TABLETOP)
    assert answerable(Question("relate_object", {"rel": "in", "anchor": "red bowl"}), TABLETOP)


def test_direction_near_ties_are_refused():
    near = scene_of(obj("red block", 0.5, 0.0), obj("blue block", 0.7, 0.02))
    assert answer_question(rel_q("blue block", "right", "red block"), near) == "yes"
    assert not answerable(rel_q("blue block", "right", "red block"), near)  # 2 cm < TIE
    assert answerable(rel_q("blue block", "front", "red block"), near)


def test_same_color_flag():
    assert same_color(rel_q("red block", "in", "red bowl"), "yes", TABLETOP)
    assert not same_color(rel_q("blue block", "in", "red bowl"), "no", TABLETOP)
    what = Question("relate_object", {"rel": "in", "anchor": "red bowl"})
    assert same_color(what, "red block", TABLETOP)
    color = Question("query_color", {"type": "block", "rel": "in", "anchor": "red bowl"})
    assert same_color(color, "red", TABLETOP)


def test_sampled_questions_parse_back_and_are_answered_right():
    for name, fam in FAMILIES.items():
        for seed in range(3):
            qas = sample_questions(TABLETOP, fam, 10, np.random.default_rng(seed))
            assert qas, name
            for qa in qas:
                assert parse_question(qa.question) == qa.program
                assert answer_question(qa.program, TABLETOP) == qa.answer
                assert answerable(qa.program, TABLETOP)
                assert "pink block" not in qa.question and "pink block" not in qa.answer
