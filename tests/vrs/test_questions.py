"""The question language on hand-built scenes: parsing, rendering round trips, and answers.

Scenes are built from poses with `compute_relations`, as the simulator does, so every expected
answer here is exact and follows from the layout written next to it.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from ravens_env.colors import ALL_COLORS
from ravens_env.scene_graph import Scene, SceneObject, compute_relations
from vrs.question_templates import TEMPLATES
from vrs.question_vocab import normalize
from vrs.questions import (
    ANSWER_TYPES,
    Question,
    UnknownObject,
    UnsupportedQuestion,
    answer_question,
    answer_type,
    list_templates,
    parse_question,
    render_question,
    validate_question,
)


def obj(name: str, x: float, y: float, z: float | None = None) -> SceneObject:
    kind = name.split()[-1]
    color = "brown" if kind == "stand" else name.split()[0]
    height = {"block": 0.02, "bowl": 0.0, "stand": 0.005}[kind]
    return SceneObject(name, kind, color, (x, y, height if z is None else z))


def scene_of(*objects: SceneObject) -> Scene:
    return Scene(list(objects), compute_relations(list(objects)))


@pytest.fixture(scope="module")
def tabletop() -> Scene:
    """+x is towards the camera (front), +y is right.

    red block in the blue bowl; pink block on the green block; orange block on the stand;
    yellow block and green block on the table; green bowl empty, behind everything.
    """
    return scene_of(
        obj("blue bowl", 0.5, 0.0), obj("red block", 0.51, 0.005, 0.026),
        obj("green block", 0.5, 0.2), obj("pink block", 0.5, 0.2, 0.06),
        obj("yellow block", 0.5, -0.2), obj("stand", 0.7, -0.1),
        obj("orange block", 0.7, -0.1, 0.03), obj("green bowl", 0.35, 0.1),
    )


@pytest.fixture(scope="module")
def straddle() -> Scene:
    """The green block straddles the red and the blue block (a pyramid's second row)."""
    return scene_of(obj("red block", 0.5, -0.025), obj("blue block", 0.5, 0.025),
                    obj("green block", 0.5, 0.0, 0.06))


def ask(scene: Scene, text: str) -> str:
    return answer_question(parse_question(text), scene)


CASES = [
    # exists
    ("is there a red block?", "yes"), ("is there a purple block?", "no"),
    ("is there a stand?", "yes"), ("are there any white objects?", "no"),
    ("is there a block in the blue bowl?", "yes"), ("is there a block in the green bowl?", "no"),
    ("is there anything on the stand?", "yes"), ("are there any bowls on the table?", "yes"),
    # count
    ("how many blocks are there?", "5"), ("how many red blocks are there?", "1"),
    ("how many purple blocks are there?", "0"), ("how many bowls?", "2"),
    ("how many blocks are in the blue bowl?", "1"), ("how many blocks are in the green bowl?", "0"),
    ("how many blocks are on the table?", "2"), ("how many objects are on the table?", "5"),
    ("how many green objects are there?", "2"), ("how many blocks are left of the stand?", "1"),
    # relation_yes_no
    ("is the red block in the blue bowl?", "yes"), ("is the red block in the green bowl?", "no"),
    ("is the pink block on the green block?", "yes"),
    ("is the green block on the pink block?", "no"),
    ("is the orange block on the stand?", "yes"), ("is the yellow block on the table?", "yes"),
    ("is the red block on the table?", "no"), ("is the red block above the blue bowl?", "yes"),
    ("is the blue bowl below the red block?", "yes"), ("is the pink block above the table?", "no"),
    ("is the yellow block left of the blue bowl?", "yes"),
    ("is the green block right of the blue bowl?", "yes"),
    ("is the green block left of the blue bowl?", "no"),
    ("is the stand in front of the blue bowl?", "yes"),
    ("is the green bowl behind the blue bowl?", "yes"),
    ("is the blue bowl behind the green bowl?", "no"),
    ("is the red block left of the blue bowl?", "no"),  # 5 mm apart: within the 1 cm margin
    ("is the red block right of the blue bowl?", "no"),
    # relate_object
    ("what is below the pink block?", "green block"), ("what is below the green block?", "table"),
    ("what is the orange block on?", "stand"), ("what is below the red block?", "blue bowl"),
    ("what is below the blue bowl?", "table"), ("what is above the green block?", "pink block"),
    ("what is above the pink block?", "nothing"), ("what is in the blue bowl?", "red block"),
    ("what is in the green bowl?", "nothing"), ("what is on the stand?", "orange block"),
    ("what is on the green block?", "pink block"), ("what is the red block in?", "blue bowl"),
    ("what is behind the blue bowl?", "green bowl"), ("what is in front of the stand?", "nothing"),
    # query_color
    ("what color is the block in the blue bowl?", "red"),
    ("what color is the block in the green bowl?", "nothing"),
    ("what color is the block on the green block?", "pink"),
    ("what color is the bowl that the red block is in?", "blue"),
    ("what color is the bowl that the yellow block is in?", "nothing"),
    ("what color is the block that the pink block is on?", "green"),
    ("what is the color of the block on the stand?", "orange"),
    ("what color is the block on the table?", "green"),  # green and yellow: first by name
    # list_objects
    ("what objects are on the table?", "blue bowl, green block, green bowl, orange block, "
                                       "pink block, red block, stand, yellow block"),
    # all_in
    ("are all the blocks in bowls?", "no"), ("is every block in a bowl of the same color?", "no"),
]


@pytest.mark.parametrize(("question", "expected"), CASES)
def test_answers_on_the_tabletop_scene(tabletop, question, expected):
    assert ask(tabletop, question) == expected


@pytest.mark.parametrize(("question", "expected"), [
    ("what is below the green block?", "blue block"),  # both support it: first by name
    ("what is the green block on?", "blue block"),
    ("what is above the red block?", "green block"),
    ("what is above the blue block?", "green block"),
    ("is the green block on the red block?", "yes"),
    ("is the green block on the blue block?", "yes"),
    ("how many blocks are below the green block?", "2"),
    ("what color is the block that the green block is on?", "blue"),
    ("is the green block on the table?", "no"),
])
def test_a_block_straddling_two_blocks(straddle, question, expected):
    assert ask(straddle, question) == expected


def test_directions_pick_the_nearest_and_break_ties_by_name():
    scene = scene_of(obj("red block", 0.5, 0.0), obj("blue block", 0.5, -0.3),
                     obj("green block", 0.5, -0.1), obj("pink block", 0.4, 0.0),
                     obj("white block", 0.6, 0.0), obj("cyan block", 0.4, -0.3))
    assert ask(scene, "what is left of the red block?") == "green block"
    # pink and white are both 10 cm away along x, one in front, one behind; cyan is further.
    assert ask(scene, "what is behind the red block?") == "pink block"
    assert ask(scene, "what is in front of the red block?") == "white block"
    twins = scene_of(obj("red block", 0.5, 0.0), obj("yellow block", 0.5, 0.1),
                     obj("blue block", 0.5, 0.1, 0.06))  # stacked: same xy distance
    assert ask(twins, "what is right of the red block?") == "blue block"
    assert ask(twins, "what color is the block right of the red block?") == "blue"


def test_direction_ties_within_the_margin_give_no_relation():
    scene = scene_of(obj("red block", 0.5, 0.0), obj("blue block", 0.508, -0.009))
    for rel in ("left of", "right of", "in front of", "behind"):
        assert ask(scene, f"is the blue block {rel} the red block?") == "no"
        assert ask(scene, f"what is {rel} the red block?") == "nothing"
    assert ask(scene, "how many blocks are left of the red block?") == "0"


@pytest.mark.parametrize(("layout", "any_", "same", "different"), [
    ([("red block", "red bowl"), ("blue block", "blue bowl")], "yes", "yes", "no"),
    ([("red block", "blue bowl"), ("blue block", "red bowl")], "yes", "no", "yes"),
    ([("red block", "red bowl"), ("blue block", "green bowl")], "yes", "no", "no"),
    ([("red block", "red bowl"), ("blue block", None)], "no", "no", "no"),
    ([], "yes", "yes", "yes"),  # no blocks: vacuously true
])
def test_all_in(layout, any_, same, different):
    objects = []
    for i, (block, bowl) in enumerate(layout):
        y = 0.2 * i - 0.1
        objects.append(obj(block, 0.5, y, 0.026 if bowl else 0.02))
        objects.append(obj(bowl or "gray bowl", 0.5, y if bowl else y + 0.1))
    scene = scene_of(*objects)
    assert ask(scene, "are all the blocks in bowls?") == any_
    assert ask(scene, "is every block in a bowl of the same color?") == same
    assert ask(scene, "is every block in a bowl of a different color?") == different


def test_list_objects_of_an_empty_scene_is_nothing():
    assert ask(Scene([]), "list the objects") == "nothing"


def test_unknown_objects_raise_and_list_the_scene(tabletop):
    for text in ("is the purple block in the blue bowl?", "what is below the purple block?",
                 "how many blocks are in the purple bowl?"):
        with pytest.raises(UnknownObject, match="purple") as err:
            ask(tabletop, text)
        assert "blue bowl, green block" in str(err.value)
    assert ask(tabletop, "is there a purple block?") == "no"  # a filter, not a name


@pytest.mark.parametrize(("text", "says"), [
    ("is the banana in the blue bowl?", "'banana'"),
    ("what is the red block doing?", "'doing'"),
    ("", "empty"),
    ("the red block is in the blue bowl", "not in this order"),
    ("is the red block in?", "not in this order"),
    ("what is the table on?", "not in this order"),  # the table is no object to ask about
])
def test_parse_errors_say_what_was_not_understood(text, says):
    with pytest.raises(UnsupportedQuestion) as err:
        parse_question(text)
    message = str(err.value)
    assert says in message
    assert "supported forms" in message and "is the <object> <relation> the" in message
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize(("variant", "canonical"), [
    ("  IS the Red Block   in the BLUE bowl ?? ", "is the red block in the blue bowl?"),
    ("is red block inside blue bowl", "is the red block in the blue bowl?"),
    ("is the red block to the left of the blue bowl", "is the red block left of the blue bowl?"),
    ("is the red block on the left of the stand", "is the red block left of the stand?"),
    ("is the red block on top of the green block", "is the red block on the green block?"),
    ("is the red block underneath the green block", "is the red block below the green block?"),
    ("is the red block over the grey bowl.", "is the red block above the gray bowl?"),
    ("what is the pink block resting on", "what is below the pink block?"),
    ("what is under the pink block", "what is below the pink block?"),
    ("which object is inside the blue bowl", "what is in the blue bowl?"),
    ("is there an orange block", "is there an orange block?"),
    ("are there any red blocks", "is there a red block?"),
    ("how many things are on the table", "how many objects are on the table?"),
    ("how many blocks are there in the blue bowl", "how many blocks are in the blue bowl?"),
    ("which colour is the block inside the blue bowl", "what color is the block in the blue bowl?"),
    ("what is the color of the bowl that the red block is in",
     "what color is the bowl that the red block is in?"),
    ("list all the objects", "what objects are on the table?"),
    ("what objects do you see", "what objects are on the table?"),
    ("are all blocks in bowls", "are all the blocks in bowls?"),
    ("is each block in a matching bowl", "are all the blocks in bowls of the same color?"),
    ("are all of the blocks in mismatched bowls",
     "are all the blocks in bowls of a different color?"),
])
def test_synonyms_parse_to_the_canonical_program(variant, canonical):
    q = parse_question(variant)
    assert q == parse_question(canonical)
    assert render_question(q) == canonical


def _random_params(phrasing, rng) -> dict[str, str]:
    params = dict(phrasing.fixed)
    for slot in phrasing.slots:
        if not slot.optional or rng.random() < 0.5:
            params[slot.name] = str(rng.choice(slot.kind.values))
    return params


def _all_readings(text: str) -> set[Question]:
    norm = normalize(text)
    return {Question(t.id, params) for t in TEMPLATES for p in t.phrasings
            if (params := p.match(norm)) is not None}


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda t: t.id)
def test_every_phrasing_round_trips_over_many_rngs(template):
    for seed in range(50):
        rng = np.random.default_rng(seed)
        for phrasing in (p for p in template.phrasings if not p.parse_only):
            q = Question(template.id, _random_params(phrasing, rng))
            text = phrasing.render(q.args, rng)
            assert parse_question(text) == q, text
            assert _all_readings(text) == {q}, text  # no other phrasing reads it otherwise
            assert parse_question(render_question(q, rng)) == q
            assert parse_question(render_question(q)) == q


def test_render_without_rng_is_canonical_and_with_rng_varies():
    q = parse_question("is the red block left of the blue bowl?")
    assert render_question(q) == "is the red block left of the blue bowl?"
    texts = {render_question(q, np.random.default_rng(s)) for s in range(50)}
    assert {"is the red block to the left of the blue bowl?",
            "is the red block on the left of the blue bowl?"} <= texts


def test_programs_are_hashable_values_whatever_the_param_order():
    a = Question("exists", {"type": "block", "color": "red"})
    b = Question("exists", (("color", "red"), ("type", "block")))
    assert a == b and hash(a) == hash(b) and a.get("color") == "red"
    assert parse_question("is there a red block?") == a


@pytest.mark.parametrize("q", [
    Question("no_such_template"), Question("exists", {"color": "red"}),
    Question("relate_object", {"rel": "below", "anchor": "table"}),
    Question("count", {"type": "block", "rel": "in"}),  # rel without anchor
    Question("exists", {"type": "block", "color": "mauve"}),
])
def test_invalid_programs_are_refused(q):
    with pytest.raises(UnsupportedQuestion):
        validate_question(q)
    with pytest.raises(UnsupportedQuestion):
        render_question(q)
    with pytest.raises(UnsupportedQuestion):
        answer_question(q, Scene([]))


def test_template_listing_and_answer_types(tabletop):
    infos = {t.id: t for t in list_templates()}
    assert set(infos) >= {"exists", "count", "relation_yes_no", "relate_object",
                          "query_color", "list_objects", "all_in"}
    assert all(t.answer_type in ANSWER_TYPES and t.forms for t in infos.values())
    assert {p.name: p.optional for p in infos["count"].params} == {
        "anchor": True, "color": True, "rel": True, "type": False}
    for question, answer in CASES:
        kind = answer_type(parse_question(question))
        valid = {"yes/no": {"yes", "no"}, "color": {*ALL_COLORS, "nothing"},
                 "count": {str(n) for n in range(11)}}.get(kind)
        assert valid is None or answer in valid, (question, answer)
    assert answer_type(parse_question("what is below the red block?")) == "object"
    assert answer_type(parse_question("list the objects")) == "objects"


def test_the_language_does_not_import_the_simulator():
    code = "import sys, vrs.questions, vrs.oracle; assert 'pybullet' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_relate_object_with_a_group_anchor_answers_the_first_so_related(tabletop):
    """"what is in a bowl": the first object by name in some bowl; "nothing" when none is."""
    assert ask(tabletop, "what is sitting in a bowl?") == "red block"
    assert ask(tabletop, "what is resting on some block?") == "pink block"
    # below a block: the blue bowl (the red block in it), the green block, the stand
    assert ask(tabletop, "what is under another block?") == "blue bowl"
    assert ask(scene_of(obj("blue bowl", 0.5, 0.0), obj("red block", 0.3, 0.2)),
               "what is in a bowl?") == "nothing"
