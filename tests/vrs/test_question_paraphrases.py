"""Questions in other words: the paraphrase set, the issue's variants, generic anchors ("in
bowls"), the answer normaliser, refusals, and that the renderer still says what it said.

The paraphrase set and its scoring live in `runtime.eval.question_paraphrases` (`codeplan eval
questions`); its held-out part is pinned by hash, so it cannot be edited to fit the parser.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from ravens_env.scene_graph import Scene, SceneObject, compute_relations
from runtime.eval.question_paraphrases import (
    EIGHTEENTH_FILE,
    EIGHTH_FILE,
    ELEVENTH_FILE,
    FIFTEENTH_FILE,
    FIFTH_FILE,
    FOURTEENTH_FILE,
    FOURTH_FILE,
    HELDOUT_SHA256,
    INDEPENDENT_FILE,
    NINTH_FILE,
    PARAPHRASE_FILE,
    SEVENTEENTH_FILE,
    SEVENTH_FILE,
    SIXTEENTH_FILE,
    SIXTH_FILE,
    TENTH_FILE,
    THIRD_FILE,
    THIRTEENTH_FILE,
    TWELFTH_FILE,
    evaluate,
    load_paraphrases,
    readings,
)
from vrs.question_templates import TEMPLATES
from vrs.questions import (
    Question,
    UnsupportedQuestion,
    answer_question,
    normalize_answer,
    parse_question,
    render_question,
    same_answer,
    validate_question,
)

HELDOUT_TARGET = 0.98  # the issue's target; measured once on 2026-11-26: 249/249


@pytest.fixture(scope="module")
def rows():
    return load_paraphrases(PARAPHRASE_FILE)


INDEPENDENT_SHA256 = "77028e8326ef9b57b54b2706c380569098bb0358ef1fee70dba7194ee4b6ce80"


def test_the_independent_set_is_frozen_and_never_misread():
    """The second set, by another hand, measured once as a test (2026-11-26: 208/220 = 94.5%,
    below the 98% target, all 12 failures refusals). Since spent, and used as a dev set for
    the classes its failures showed (polite and embedded frames, the perfect, idioms, hyphens):
    219/220 = 99.6%. The one left, "What's on the table?", stays refused as the first set's copy
    of it expects (list or count?). Its failures are refusals with the supported forms, never
    a wrong program, and every question it expects refused is refused."""
    assert hashlib.sha256(INDEPENDENT_FILE.read_bytes()).hexdigest() == INDEPENDENT_SHA256
    result = evaluate(load_paraphrases(INDEPENDENT_FILE))
    assert result["parts"]["independent"]["n"] == 220
    assert result["parts"]["independent"]["correct"] >= 219
    assert all(f["got"] is None for f in result["failures"])  # refused, not misread
    assert result["parts"]["independent"]["by_template"]["refuse"]["accuracy"] == 1.0
    assert len(load_paraphrases()) == (220 + 224 + len(load_paraphrases(PARAPHRASE_FILE))
                                       + len(load_paraphrases(FOURTH_FILE))
                                       + len(load_paraphrases(FIFTH_FILE))
                                       + len(load_paraphrases(SIXTH_FILE))
                                       + len(load_paraphrases(SEVENTH_FILE))
                                       + len(load_paraphrases(EIGHTH_FILE))
                                       + len(load_paraphrases(NINTH_FILE))
                                       + len(load_paraphrases(TENTH_FILE))
                                       + len(load_paraphrases(ELEVENTH_FILE))
                                       + len(load_paraphrases(TWELFTH_FILE))
                                       + len(load_paraphrases(THIRTEENTH_FILE))
                                       + len(load_paraphrases(FOURTEENTH_FILE))
                                       + len(load_paraphrases(FIFTEENTH_FILE))
                                       + len(load_paraphrases(SIXTEENTH_FILE))
                                       + len(load_paraphrases(SEVENTEENTH_FILE))
                                       + len(load_paraphrases(EIGHTEENTH_FILE)))


@pytest.fixture(scope="module")
def result(rows):
    return evaluate(rows)


def test_the_heldout_part_is_the_frozen_one(rows):
    lines = [raw for raw in PARAPHRASE_FILE.read_text(encoding="utf-8").splitlines(keepends=True)
             if '"part": "heldout"' in raw]
    assert hashlib.sha256("".join(lines).encode()).hexdigest() == HELDOUT_SHA256
    assert len(lines) == sum(r.part == "heldout" for r in rows)


def test_the_set_is_large_split_and_covers_every_template(rows):
    assert len(rows) >= 300 and len({r.id for r in rows}) == len(rows)
    assert len({r.question.lower().rstrip("?. ") for r in rows}) == len(rows)  # no repeats
    heldout = [r for r in rows if r.part == "heldout"]
    assert 0.6 <= len(heldout) / len(rows) <= 0.72
    for part in ("dev", "heldout"):
        groups = {r.group for r in rows if r.part == part}
        assert groups == {t.id for t in TEMPLATES} | {"refuse"}, part
    for r in rows:  # every expected program is a valid one
        if r.expected is not None:
            validate_question(r.expected)


def test_heldout_accuracy_meets_the_target(result):
    heldout = result["parts"]["heldout"]
    assert heldout["n"] >= 200
    assert heldout["accuracy"] >= HELDOUT_TARGET, [
        f["question"] for f in result["failures"] if f["part"] == "heldout"]


def test_every_dev_row_parses_right_and_no_row_reads_two_ways(result):
    assert [f["question"] for f in result["failures"] if f["part"] == "dev"] == []
    assert [a["question"] for a in result["ambiguous"]] == []


BLOCKS_IN_BOWLS = Question("count", {"type": "block", "rel": "in", "anchor": "any bowl"})


@pytest.mark.parametrize(("text", "program"), [
    # plural / singular, "in bowls" / "in a bowl", "how many X are in Y"
    ("how many blocks are in bowls?", BLOCKS_IN_BOWLS),
    ("how many blocks are in a bowl?", BLOCKS_IN_BOWLS),
    ("How many cubes are in the bowls?", BLOCKS_IN_BOWLS),
    ("how many block are there?", Question("count", {"type": "block"})),
    ("how many blocks are in the blue bowl?",
     Question("count", {"type": "block", "rel": "in", "anchor": "blue bowl"})),
    ("is there any blocks?", Question("exists", {"type": "block"})),
    ("are there any red block?", Question("exists", {"type": "block", "color": "red"})),
    # "is there any", grey / gray, cube / block
    ("is there any grey cube?", Question("exists", {"type": "block", "color": "gray"})),
    ("Are there any gray cubes on the table?", Question(
        "exists", {"type": "block", "color": "gray", "rel": "on", "anchor": "table"})),
    ("is any block in a bowl?",
     Question("exists", {"type": "block", "rel": "in", "anchor": "any bowl"})),
    # "what is the colour of ...", "what's", contractions
    ("What is the colour of the block in the blue bowl?",
     Question("query_color", {"type": "block", "rel": "in", "anchor": "blue bowl"})),
    ("what's the color of the cube that's on the stand?",
     Question("query_color", {"type": "block", "rel": "on", "anchor": "stand"})),
    ("what colour bowl is the red block in?",
     Question("query_color", {"type": "bowl", "rel": "below", "anchor": "red block"})),
    ("what's in the blue bowl?", Question("relate_object", {"rel": "in", "anchor": "blue bowl"})),
    # "on top of", "inside", "to the left of", posture verbs
    ("is the red cube sitting on top of the green block?", Question(
        "relation_yes_no", {"subject": "red block", "rel": "on", "anchor": "green block"})),
    ("is the red block inside of the grey bowl?", Question(
        "relation_yes_no", {"subject": "red block", "rel": "in", "anchor": "gray bowl"})),
    ("is the red block to the left of the stand?", Question(
        "relation_yes_no", {"subject": "red block", "rel": "left", "anchor": "stand"})),
    ("is the red block in a bowl?", Question(
        "relation_yes_no", {"subject": "red block", "rel": "in", "anchor": "any bowl"})),
    ("Can you tell me if the red block is in the blue bowl?", Question(
        "relation_yes_no", {"subject": "red block", "rel": "in", "anchor": "blue bowl"})),
    ("which bowl is the red block in?",
     Question("relate_object", {"rel": "below", "anchor": "red block"})),
    ("name every object", Question("list_objects")),
    ("are all blocks in bowls with matching colours?", Question("all_in", {"mode": "same"})),
    ("is each cube in a differently coloured bowl?",
     Question("all_in", {"mode": "different"})),
])
def test_the_issues_variants_parse_to_the_right_program(text, program):
    assert parse_question(text) == program
    assert readings(text) == {program}


IN_BLUE = {"rel": "in", "anchor": "blue bowl"}


@pytest.mark.parametrize(("text", "program"), [
    # polite and embedded frames, with the statement word order restored
    ("Could you check if the yellow block is inside the gray bowl?", Question(
        "relation_yes_no", {"subject": "yellow block", "rel": "in", "anchor": "gray bowl"})),
    ("Check whether the green block is behind the stand.", Question(
        "relation_yes_no", {"subject": "green block", "rel": "behind", "anchor": "stand"})),
    ("Can you count how many bowls there are?", Question("count", {"type": "bowl"})),
    ("Do you happen to know how many red cubes there are in bowls?", Question(
        "count", {"type": "block", "color": "red", "rel": "in", "anchor": "any bowl"})),
    ("I'd love to know how many blocks the blue bowl holds.",
     Question("count", {"type": "block", **IN_BLUE})),
    ("I was wondering what colour the bowl under the red block is.",
     Question("query_color", {"type": "bowl", "rel": "below", "anchor": "red block"})),
    ("Any idea what the colour of the block on the stand is?",
     Question("query_color", {"type": "block", "rel": "on", "anchor": "stand"})),
    ("Can you tell me which bowl the green block is sitting in?",
     Question("relate_object", {"rel": "below", "anchor": "green block"})),
    ("Tell me what the yellow block is on.",
     Question("relate_object", {"rel": "below", "anchor": "yellow block"})),
    ("Could you let me know what there is in the blue bowl?",
     Question("relate_object", IN_BLUE)),
    ("Would you mind telling me if there are any bowls left of the stand?",
     Question("exists", {"type": "bowl", "rel": "left", "anchor": "stand"})),
    ("Can you tell me whether the blue bowl has anything in it?",
     Question("exists", {"type": "object", **IN_BLUE})),
    ("Can you tell me what you see?", Question("list_objects")),
    ("Could you show me the things on the table?", Question("list_objects")),
    # the perfect and the passive of verbs of putting: the state they leave
    ("Has the pink cube been placed on top of the yellow block?", Question(
        "relation_yes_no", {"subject": "pink block", "rel": "on", "anchor": "yellow block"})),
    ("Is the red block contained in the blue bowl?",
     Question("relation_yes_no", {"subject": "red block", **IN_BLUE})),
    ("Have any blocks been moved onto the stand?",
     Question("exists", {"type": "block", "rel": "on", "anchor": "stand"})),
    ("Has a red block been put into a bowl?", Question(
        "exists", {"type": "block", "color": "red", "rel": "in", "anchor": "any bowl"})),
    ("What has been put in the blue bowl?", Question("relate_object", IN_BLUE)),
    ("Tell me which bowl the red block has been put in.",
     Question("relate_object", {"rel": "below", "anchor": "red block"})),
    ("Do you know if the blocks have all been put in bowls?", Question("all_in", {"mode": "any"})),
    ("Has each block been placed into a matching bowl?", Question("all_in", {"mode": "same"})),
    ("Have all of the blocks been sorted into bowls of a different colour?",
     Question("all_in", {"mode": "different"})),
    # idioms: "at least one", "at all", "the number / count of", verbless "any X in Y?"
    ("Is there at least one block on the stand?",
     Question("exists", {"type": "block", "rel": "on", "anchor": "stand"})),
    ("Are there any cubes at all in the red bowl?",
     Question("exists", {"type": "block", "rel": "in", "anchor": "red bowl"})),
    ("Any bowls to the left of the stand?",
     Question("exists", {"type": "bowl", "rel": "left", "anchor": "stand"})),
    ("Any red cubes?", Question("exists", {"type": "block", "color": "red"})),
    ("Anything in the blue bowl?", Question("exists", {"type": "object", **IN_BLUE})),
    ("What's the count of red blocks?", Question("count", {"type": "block", "color": "red"})),
    ("What is the total number of blocks on the table?",
     Question("count", {"type": "block", "rel": "on", "anchor": "table"})),
    ("How many bowls contain blocks?",
     Question("count", {"type": "bowl", "rel": "below", "anchor": "any block"})),
    # hyphens and spacing
    ("Are all blocks in same-coloured bowls?", Question("all_in", {"mode": "same"})),
    ("Is every block in a matching-color bowl?", Question("all_in", {"mode": "same"})),
    ("Are all the blocks in different-colored bowls?",
     Question("all_in", {"mode": "different"})),
    ("Is the stand to the left-hand side of the red bowl?",
     Question("relation_yes_no", {"subject": "stand", "rel": "left", "anchor": "red bowl"})),
])
def test_frames_perfects_idioms_and_hyphens_parse_to_the_right_program(text, program):
    assert parse_question(text) == program
    assert readings(text) == {program}


@pytest.mark.parametrize("text", [
    "Did the robot put the red block in the blue bowl?",  # an action, not the scene
    "Has the robot put the red block in the blue bowl?",
    "Could you put the red block in the blue bowl?",  # an instruction
    "Can you tell me where the red bowl is?",
    "Hasn't the green block been put in the blue bowl?",
    "I wonder whether the red block is not in the blue bowl.",
    "Could you tell me what is next to the red block?",
    "Has the red block been put in the blue bowl or the green bowl?",
    "Any blocks not in a bowl?",
    "Are there at least two blocks?",
    "I'd like to know what the table is on.",  # the table rests on nothing named
    "Can you tell me what colour the red block is?",  # the name says it
    "How many bowls have nothing in them?",
    "Tell me what the blue bowl contains.",  # embedded "contains": not read, rather than guessed
])
def test_frames_and_perfects_do_not_open_refused_questions(text):
    with pytest.raises(UnsupportedQuestion):
        parse_question(text)
    assert readings(text) == set()


@pytest.mark.parametrize(("text", "says"), [
    ("is the red block not in the blue bowl?", "'not'"),
    ("how many blocks aren't in bowls?", "'not'"),
    ("what is next to the red block?", "'next'"),
    ("what is the table on?", "not in this order"),  # the table is no object to ask about
    ("where is the red block?", "'where'"),
])
def test_unsupported_questions_are_refused_with_the_supported_forms(text, says):
    with pytest.raises(UnsupportedQuestion) as err:
        parse_question(text)
    message = str(err.value)
    assert says in message
    assert "supported forms" in message and "is the <object> <relation> the" in message
    assert "'a bowl' (any bowl)" in message


def obj(name: str, x: float, y: float, z: float | None = None) -> SceneObject:
    kind = name.split()[-1]
    height = {"block": 0.02, "bowl": 0.0, "stand": 0.005}[kind]
    color = "brown" if kind == "stand" else name.split()[0]
    return SceneObject(name, kind, color, (x, y, height if z is None else z))


@pytest.fixture(scope="module")
def bowls_scene() -> Scene:
    """red block in the blue bowl, green block in the green bowl, pink block on the yellow
    block on the table; the gray bowl is empty."""
    objects = [obj("blue bowl", 0.5, 0.0), obj("red block", 0.51, 0.005, 0.026),
               obj("green bowl", 0.5, 0.2), obj("green block", 0.5, 0.2, 0.026),
               obj("yellow block", 0.5, -0.2), obj("pink block", 0.5, -0.2, 0.06),
               obj("gray bowl", 0.35, 0.1)]
    return Scene(objects, compute_relations(objects))


@pytest.mark.parametrize(("text", "answer"), [
    ("how many blocks are in bowls?", "2"), ("how many green blocks are in a bowl?", "1"),
    ("how many blocks are on other blocks?", "1"), ("how many bowls are in bowls?", "0"),
    ("is the red block in a bowl?", "yes"), ("is the yellow block in a bowl?", "no"),
    ("is the pink block on another block?", "yes"),
    ("is the yellow block on another block?", "no"),  # not on itself
    ("are there any blocks in bowls?", "yes"), ("is any pink block in a bowl?", "no"),
    ("is there anything on top of another block?", "yes"),
    ("how many bowls hold blocks?", "2"), ("how many blocks have another block on them?", "1"),
    ("has the red block been put in a bowl?", "yes"), ("any blocks in the gray bowl?", "no"),
])
def test_generic_anchors_are_answered_by_the_executor(bowls_scene, text, answer):
    assert answer_question(parse_question(text), bowls_scene) == answer


@pytest.mark.parametrize("program", [
    BLOCKS_IN_BOWLS,
    Question("exists", {"type": "block", "color": "red", "rel": "on", "anchor": "any block"}),
    Question("relation_yes_no", {"subject": "red block", "rel": "in", "anchor": "any bowl"}),
])
def test_generic_anchor_programs_render_and_parse_back(program):
    validate_question(program)
    assert parse_question(render_question(program)) == program
    assert parse_question(render_question(program, np.random.default_rng(0))) == program


def test_generic_anchors_are_not_for_templates_that_want_one_object():
    """relate_object and query_color take a group only by a support relation (a direction
    from "a bowl" has no one place to measure from); since round seven relate_object's
    executor holds one ("what is in a bowl": the first so related by name)."""
    for program in (Question("relate_object", {"rel": "left", "anchor": "any bowl"}),
                    Question("query_color", {"type": "block", "rel": "left",
                                             "anchor": "any bowl"})):
        with pytest.raises(UnsupportedQuestion):
            validate_question(program)
    validate_question(Question("relate_object", {"rel": "in", "anchor": "any bowl"}))


@pytest.mark.parametrize(("text", "program", "answer"), [
    ("what colour is the cube that's resting inside a dish?",
     Question("query_color", {"type": "block", "rel": "in", "anchor": "any bowl"}), "green"),
    ("which colour block sits on top of another block?",
     Question("query_color", {"type": "block", "rel": "on", "anchor": "any block"}), "pink"),
    ("what is the color of the block underneath some block?",
     Question("query_color", {"type": "block", "rel": "below", "anchor": "any block"}),
     "yellow"),
])
def test_the_colour_of_an_object_in_a_group_is_read_and_answered(bowls_scene, text, program,
                                                                  answer):
    assert parse_question(text) == program
    assert parse_question(render_question(program)) == program
    assert answer_question(program, bowls_scene) == answer


def test_the_tokenizer_corpus_is_unchanged():
    """The OFA tokenizer trains on rendered, normalized questions: pinned, so that a change to
    what the renderer says (and so to shipped checkpoints' tokenizers) cannot pass unnoticed."""
    from vrs.ofa.tokenizer import training_corpus

    digest = hashlib.sha256("\n".join(training_corpus()).encode()).hexdigest()
    assert digest == "41c8a4b1af40e49543bfc463998fe6753ffd5b3edbf9a5a486e5eabd3769b4ae", digest


@pytest.mark.parametrize(("a", "b"), [
    ("grey", "gray"), ("Gray.", "gray"), (" GREY ", "gray"),
    ("none", "nothing"), ("No objects", "nothing"), ("nothing.", "nothing"),
    ("Yes.", "yes"), ("yeah", "yes"), ("No!", "no"),
    ("two", "2"), ("Two blocks", "2"), ("0", "zero"),
    ("cube", "block"), ("the red cube", "red block"), ("The grey cube", "gray block"),
    ("the table", "table"),
    ("stand, red block and blue bowl", "blue bowl, red block, stand"),
    ("red block, blue bowl", "blue bowl, red block"), ("blue bowl and the red cube",
                                                       "blue bowl, red block"),
])
def test_equivalent_answers_normalise_to_one_form(a, b):
    assert same_answer(a, b)
    assert normalize_answer(a) == normalize_answer(b)


@pytest.mark.parametrize(("a", "b"), [
    ("gray", "green"), ("yes", "no"), ("2", "3"), ("red block", "red bowl"),
    ("nothing", "table"), ("blue bowl, red block", "blue bowl"),
])
def test_different_answers_stay_different(a, b):
    assert not same_answer(a, b)


def test_answer_normaliser_keeps_program_answers_and_reads_none_as_zero_for_counts():
    for answer in ("yes", "no", "gray", "3", "red block", "table", "nothing", "stand",
                   "blue bowl, gray block, stand"):
        assert normalize_answer(answer) == answer
    assert normalize_answer("none", "count") == "0"
    assert normalize_answer("none") == "nothing"


def test_vqa_scoring_records_equivalence_beside_exact_match():
    from vrs.reasoner import Answer
    from vrs.scoring import _record, is_correct, is_equivalent

    row = {"image_id": 0, "question": "how many blocks are in the blue bowl?", "answer": "0",
           "answer_type": "count", "template": "count", "family": "f", "same_color": False,
           "dark": False}
    record = _record(row, Answer("None."))
    assert record["correct"] is False and record["equivalent"] is True
    assert not is_correct("Grey", "gray") and is_equivalent("Grey", "gray")


def test_the_eval_questions_command_prints_the_figures(capsys, tmp_path):
    from runtime.cli import main

    assert main(["eval", "questions", "--part", "heldout"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("heldout: ") and "[" in out and "relation_yes_no" in out
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x1", "part": "dev", "question": "is the red block in a bowl?", '
                   '"template": "relation_yes_no", "params": {"subject": "red block", '
                   '"rel": "in", "anchor": "blue bowl"}}\n')
    assert main(["eval", "questions", "--file", str(bad), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["parts"]["dev"]["correct"] == 0 and len(result["failures"]) == 1


def test_eval_questions_all_leaves_out_the_sets_not_yet_measured(capsys, tmp_path, monkeypatch):
    """A frozen set is scored once, when named: `--part all` must not take it by the way."""
    import runtime.eval.question_paraphrases as qp
    from runtime.cli import main

    monkeypatch.setattr(qp, "UNMEASURED", ("twelfth",))
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(
        json.dumps({"id": f"x{i}", "part": part, "question": "is there a red block?",
                    "template": "exists", "params": {"type": "block", "color": "red"}}) + "\n"
        for i, part in enumerate(("dev", "twelfth"))))
    assert main(["eval", "questions", "--file", str(rows), "--json"]) == 0
    parts = json.loads(capsys.readouterr().out)["parts"]
    assert parts["dev"]["n"] == 1 and "twelfth" not in parts
    assert main(["eval", "questions", "--file", str(rows), "--part", "twelfth", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["parts"]["twelfth"]["n"] == 1


THIRD_SHA256 = "d873ffbad440ea4ba90ee9d6f075ceb28c86aafdeacaa1943c7443022b58d430"


def test_the_third_set_is_frozen_measured_once_and_never_misread():
    """The third set, by a third hand, frozen before the parser was extended for the
    independent set's failure classes and measured once (2026-11-26: 177/224 = 79.0%): what
    the parser does not understand it refuses, it never returns a wrong program."""
    assert hashlib.sha256(THIRD_FILE.read_bytes()).hexdigest() == THIRD_SHA256
    rows = load_paraphrases(THIRD_FILE, part="third")
    result = evaluate(rows)
    assert result["parts"]["third"]["n"] == 224
    assert all(f["got"] is None for f in result["failures"])
    assert result["parts"]["third"]["by_template"]["refuse"]["accuracy"] == 1.0


# Sets by hands that read none of the parser, the other sets or their tests, each frozen
# before its one measurement (the commit that froze it): the fourth (issue 27's third grammar
# round), the fifth (the question reader's first version, commit 51ed5d2), the sixth (its
# second round took the fifth as dev, commit 057bbf2) and the seventh (its third round took
# the sixth as dev, commit 0cfc388) and the eighth (its fourth round took the fourth to seventh
# as dev and bank, frozen in session 22 before the round was written); the ninth, frozen
# in session 22 and not yet measured: the fifth round's held-out set.
FROZEN = {
    "fourth": (FOURTH_FILE, "305a668748f8b81e6998d129d5fe3cf211f19135873b1ae5a78dd59a04836b9b"),
    "fifth": (FIFTH_FILE, "2dc1db572ecb9ca998fd7ec9eb9eeeb6b7fd76f1606a7a5f98f7df46f0f506ef"),
    "sixth": (SIXTH_FILE, "8e1c8b03f740089b085c97e02dffbeeece4549695142edca2124a59284d7af5f"),
    "seventh": (SEVENTH_FILE, "5675b675b2be76000c2a50666e6d172526d4e68090172c7940be83a5da7cae7d"),
    "eighth": (EIGHTH_FILE, "1e05f77985a9cc55495e60c3e13fdd906a42153382c080c6e89443e914332fbb"),
    "ninth": (NINTH_FILE, "4fea2265b429dd8a41005f0f35d03b4ff616723ba73b37d8ba09a1beee7a0588"),
    "tenth": (TENTH_FILE, "344639c859cccd36f5bc0ce2f30711589401dcc7dba071313f13878f6c3d3c5a"),
    "eleventh": (ELEVENTH_FILE,
                 "2441b6f8268fe263eaf3dbfea9276964ee2e3ef9d67272233d04666675d73883"),
    "twelfth": (TWELFTH_FILE,
                "af7a86e5d94418d03cf207f8c1cecf15b274931eb933f34481cfd19d3a597439"),
    "thirteenth": (THIRTEENTH_FILE,
                   "ee635910c088c9b8df234b85d5045af6fb599d4c08c7c3f881e11b7d9f69da7c"),
    "fourteenth": (FOURTEENTH_FILE,
                   "9917e11463b7b4fd86a518ccf365808f94858f72d03586a07e23f850e8a82fa5"),
    "fifteenth": (FIFTEENTH_FILE,
                  "72ffeccf1f55d619972e1a66ad79c1043268e2b119fa033e25eafd2a7cea161a"),
    "sixteenth": (SIXTEENTH_FILE,
                  "f50461c9b4a63ecfdc3099df6d20a0d7304063b8853db146584214fa76650a07"),
    "seventeenth": (SEVENTEENTH_FILE,
                    "262858a8f00cf709c0f7e4d94e84074ebdbbfc8964df79e9090f4a3f991fdd5e"),
    "eighteenth": (EIGHTEENTH_FILE,
                   "673b03122f78cafb064ff73f2787f7bad41cc5c6e6d927fce6ada4437448e06b"),
}


def test_the_readers_bank_never_holds_a_set_before_its_measurement():
    from runtime.eval.question_paraphrases import UNMEASURED
    from vrs.question_reader import BANK_FILES

    assert not {f"question_paraphrases_{p}.jsonl" for p in UNMEASURED} & set(BANK_FILES)


@pytest.mark.parametrize("part", sorted(FROZEN))
def test_a_set_written_by_another_hand_is_frozen_before_its_one_measurement(part):
    path, sha256 = FROZEN[part]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == sha256
    rows = load_paraphrases(path)
    assert len(rows) == 320 and {r.part for r in rows} == {part}
    assert sum(r.expected is None for r in rows) == 40


def test_every_part_can_be_scored_alone_from_the_command_line(capsys):
    """`--part` offers every part the loader knows (the fourth included), and only those; a
    frozen set not yet measured is offered but not scored here (its one measurement is kept)."""
    from runtime.cli import main
    from runtime.eval.question_paraphrases import PARTS, UNMEASURED

    for part in (p for p in PARTS if p not in UNMEASURED):
        assert main(["eval", "questions", "--part", part, "--json"]) == 0
        assert set(json.loads(capsys.readouterr().out)["parts"]) == {part}
