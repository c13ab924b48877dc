"""The question reader's eighth round (the eleventh and twelfth sets as dev): each new rule
family on sentences of this file's own (none is in a paraphrase set), and the near misses of
the refused kinds that must stay refused."""

from __future__ import annotations

import pytest
from reader_cases import refused as _refused

from vrs import question_lists, question_typos
from vrs import question_reader as reader
from vrs.question_reader import take_apart
from vrs.questions import Question, parse_question, read_question


# -- slips: two letters swapped in a short word, "ther" before a pronoun --------------------
def test_two_swapped_letters_of_a_short_key_word_are_a_slip():
    assert reader.respell("is there a bolw on the stand") == "is there a bowl on the stand"
    assert reader.respell("what is lfet of the red block") == "what is left of the red block"
    assert read_question("how many blocks are in the pink bwol") == Question(
        "count", {"type": "block", "rel": "in", "anchor": "pink bowl"})


def test_a_changed_letter_or_a_swap_near_two_words_is_no_slip():
    assert reader.respell("is the block on the howl") == "is the block on the howl"
    assert question_typos.swap_slip("bolw", {"bowl", "blow"}, {"bowl"}) is None  # which one?
    assert question_typos.swap_slip("bolw", {"bowl"}, {"bowl"}) == "bowl"


def test_ther_before_anything_or_something_is_there():
    assert reader.plain("is ther something on the purple block") == (
        "is there something on the purple block")
    assert read_question("is ther anything under the cyan bowl") == Question(
        "exists", {"type": "object", "rel": "below", "anchor": "cyan bowl"})


# -- hedges and verbs of posture in an embedded question ------------------------------------
def test_a_hedge_inside_an_embedded_question_asks_whether_there_is_one():
    assert read_question("please tell me if there happens to be a white cube on the stand") == (
        Question("exists", {"type": "block", "color": "white", "rel": "on", "anchor": "stand"}))
    assert read_question("could you kindly say whether there happen to be pink bowls") == (
        Question("exists", {"type": "bowl", "color": "pink"}))
    assert _refused("if there happens to be a red block on the stand, would it fall?")


def test_an_embedded_question_with_a_verb_of_posture_is_asked():
    assert read_question("check whether any block rests on the stand") == Question(
        "exists", {"type": "block", "rel": "on", "anchor": "stand"})
    assert read_question("can you see if the red block sits in the blue bowl") == Question(
        "relation_yes_no", {"subject": "red block", "rel": "in", "anchor": "blue bowl"})


# -- the camera's viewpoint, emphasis of a universal ------------------------------------------
def test_the_cameras_viewpoint_said_around_a_question_goes():
    assert read_question("from where i am sitting, is the cyan block right of the stand") == (
        Question("relation_yes_no", {"subject": "cyan block", "rel": "right",
                                     "anchor": "stand"}))
    assert read_question("from the camera's point of view, what is left of the green bowl") == (
        Question("relate_object", {"rel": "left", "anchor": "green bowl"}))
    assert reader.plain("is the white block behind the stand from where the camera stands") == (
        "is the white block behind the stand")


@pytest.mark.parametrize("text", [
    "which block is farthest from the camera?",  # a distance: "from the camera" is no viewpoint
    "from behind the stand, is the red block left of the bowl?",  # another object's viewpoint
    "where is the camera?",
])
def test_a_viewpoint_that_is_not_the_cameras_own_is_refused(text):
    assert _refused(text)


def test_no_exceptions_after_a_universal_is_emphasis():
    assert read_question("is every block in some bowl, without exception") == Question(
        "all_in", {"mode": "any"})
    assert read_question("are all the cubes in matching bowls, no exceptions") == Question(
        "all_in", {"mode": "same"})
    assert reader.plain("is the red block in a bowl, no exceptions") == (
        "is the red block in a bowl no exceptions")  # no universal: "no" stays a guard
    assert _refused("are there no blocks in bowls?")


# -- all_in's mode said of plural colours -----------------------------------------------------
def test_matching_and_mismatched_colours_are_all_ins_mode():
    assert read_question("are all blocks in bowls with mismatched colours") == Question(
        "all_in", {"mode": "different"})
    assert read_question("are all of the blocks in bowls of colours that match them") == (
        Question("all_in", {"mode": "same"}))
    assert _refused("how many colours do the bowls come in?")  # a count of colours


# -- a relation's anchor after determiners ------------------------------------------------------
def test_determiners_between_a_relation_and_its_anchor_keep_the_direction():
    assert take_apart("is anything stacked on one of the other blocks").rel_target == 1
    assert read_question("is there something lying on any of the bowls") == Question(
        "exists", {"type": "object", "rel": "on", "anchor": "any bowl"})


# -- a modal before the objects: what could be ------------------------------------------------
@pytest.mark.parametrize("text", [
    "would the cyan block fit in the pink bowl?",
    "could the purple block go in the white bowl?",
    "can the green block be stacked on the blue block?",
    "does the red block fit on the stand?",
])
def test_what_could_be_is_refused(text):
    assert _refused(text)


def test_a_modal_before_the_objects_is_a_guard_but_not_a_polite_frame():
    assert "hypothetical" in take_apart("would the cyan block go in the pink bowl").guards
    assert "fit" in take_apart("would the cyan block fit in the pink bowl").guards
    assert read_question("could you tell me whether the red block is on the stand") == Question(
        "relation_yes_no", {"subject": "red block", "rel": "on", "anchor": "stand"})


# -- the list asked by a rundown of every kind --------------------------------------------------
@pytest.mark.parametrize(("text", "wanted"), [
    ("give me a rundown of each block, bowl and stand", True),
    ("an overview of the scene please", True),
    ("give me a rundown of the blocks and bowls", False),  # not every kind: not the list
    ("how many blocks, bowls and stands are there", False),  # a count
    ("give a rundown of every red block, bowl and stand", False),  # a colour
])
def test_a_rundown_of_every_kind_asks_for_the_list(text, wanted):
    assert question_lists.list_request(text) is wanted


# -- what supports another is below it --------------------------------------------------------
def test_supporting_says_below_with_the_supporter_as_subject():
    assert parse_question("is the stand supporting the red block") == Question(
        "relation_yes_no", {"subject": "stand", "rel": "below", "anchor": "red block"})
    assert parse_question("does the green block support the white block on top") == Question(
        "relation_yes_no", {"subject": "green block", "rel": "below", "anchor": "white block"})


# -- a mode word asks of all, a compared colour asks no colour ---------------------------------
@pytest.mark.parametrize("text", [
    "are any blocks in bowls of a different colour?",  # whether one is: no program says it
    "is any cube in a bowl of a mismatching colour",
    "which blocks are in the bowls of a different colour?",  # which ones: no program either
    "how many blocks are in bowls of a different colour",
])
def test_a_mode_word_said_of_some_blocks_is_refused(text):
    assert _refused(text)


def test_a_mode_word_said_of_all_blocks_is_still_all_in():
    assert read_question("is every block in a bowl of a different colour") == Question(
        "all_in", {"mode": "different"})
    assert read_question("what colour is the block stacked on another block") == Question(
        "query_color", {"type": "block", "rel": "on", "anchor": "any block"})
