"""The question reader's ninth round (the thirteenth and fourteenth sets as dev): each new rule
family on sentences of this file's own (none is in a paraphrase set), and the near misses of
the refused kinds that must stay refused."""

from __future__ import annotations

import pytest
from reader_cases import refused as _refused

from vrs import question_reader as reader
from vrs import question_topics, question_typos
from vrs.question_reader import take_apart
from vrs.question_vocab import fold_question
from vrs.questions import Question, read_question


# -- a box is a block, unless something is in it ----------------------------------------------
def test_a_box_is_a_block():
    assert fold_question("how many cyan boxes are there") == "how many cyan blocks are there"
    assert read_question("is the brown box left of the white bowl") == Question(
        "relation_yes_no", {"subject": "brown block", "rel": "left", "anchor": "white bowl"})
    assert read_question("what colour is the box on top of the gray box") == Question(
        "query_color", {"type": "block", "rel": "on", "anchor": "gray block"})


@pytest.mark.parametrize("text", [
    "is there a cube inside the box?",  # a box to be in is no block, nor in the scene
    "what have you got in the cardboard box",
    "is the pink block in the box or in the bowl",
])
def test_a_box_something_is_in_is_refused(text):
    assert "box" in fold_question(text)
    assert _refused(text)


# -- a slip of a long synonym -------------------------------------------------------------------
def test_a_slip_of_a_long_synonym_is_its_fold():
    assert question_typos.synonym_slip("contaner") == "bowl"
    assert question_typos.synonym_slip("platfrom") == "stand"
    assert question_typos.synonym_slip("pedestel") == "stand"
    assert read_question("how many cubes are in the cyan containr") == Question(
        "count", {"type": "block", "rel": "in", "anchor": "cyan bowl"})


def test_a_word_near_a_short_synonym_is_no_slip():
    assert question_typos.synonym_slip("tubes") is None  # cubes? a real word, left unknown
    assert question_typos.synonym_slip("tricks") is None  # bricks?
    assert question_typos.synonym_slip("contains") is None


# -- time and places off the tabletop are guards ----------------------------------------------
@pytest.mark.parametrize("text", [
    "how many cubes were sitting on the stand at the start?",
    "what was in the brown bowl initially?",
    "were there any blocks in the yellow bowl at the beginning?",
    "is there a block lying on the floor beneath the table?",
    "how many blocks have fallen to the ground?",
])
def test_the_past_and_the_floor_are_refused(text):
    assert _refused(text)


def test_history_and_floor_words_are_guards():
    assert take_apart("how many blocks were in the pink bowl at the start").guards == {
        "were", "start"}
    assert take_apart("is anything on the floor under the table").guards == {"floor"}


# -- idioms of existence: "do we have ... anywhere", "can you make out", "in view" ------------
@pytest.mark.parametrize(("text", "wanted"), [
    ("hey robot, do we have a green cube anywhere?",
     Question("exists", {"type": "block", "color": "green"})),
    ("hello robot are there any white dishes", Question("exists", {"type": "bowl",
                                                                     "color": "white"})),
    ("I was wondering if there may be a pink bowl in sight",
     Question("exists", {"type": "bowl", "color": "pink"})),
    ("I wonder if there could be a yellow block around", Question("exists", {
        "type": "block", "color": "yellow"})),
    ("how many cyan bowls could you pick out?", Question("count", {"type": "bowl",
                                                                     "color": "cyan"})),
])
def test_idioms_of_existence_ask_whether_there_is_one(text, wanted):
    assert read_question(text) == wanted


@pytest.mark.parametrize("text", [
    "robot, where did you put the green cube?",  # a question of place and of the past
    "how many blocks could you make out before?",
    "if there might be a red block on the stand, would it topple?",
])
def test_near_misses_of_existence_idioms_are_refused(text):
    assert _refused(text)


# -- a topic or a place said first --------------------------------------------------------------
def test_a_topic_said_first_is_what_the_pronoun_stands_for():
    assert question_topics.topic_first("as for the cyan bowl is the pink block in it") == (
        "is the pink block in the cyan bowl")
    assert read_question("Regarding the purple bowl, is the white block inside?") == Question(
        "relation_yes_no", {"subject": "white block", "rel": "in", "anchor": "purple bowl"})
    assert read_question("Looking at the stand, what's sitting on it?") == Question(
        "relate_object", {"rel": "on", "anchor": "stand"})


def test_a_place_said_first_is_where_the_question_asks():
    assert question_topics.place_first("on the green block what color is the block") == (
        "what color is the block on the green block")
    assert read_question("Inside the brown dish, how many cubes?") == Question(
        "count", {"type": "block", "rel": "in", "anchor": "brown bowl"})


@pytest.mark.parametrize("text", [
    "In the pink bowl, what colour is it?",  # "it": what is in it? the bowl?
    "On the stand, is the red block left of the bowl?",  # two places
    "Looking at the cyan bowl, is the red block next to it?",
    "Looking at the cyan bowl and the pink bowl, is the red block in it?",
])
def test_a_topic_the_question_does_not_point_back_to_once_is_refused(text):
    assert _refused(text)


# -- the colours of several objects -------------------------------------------------------------
def test_the_colours_of_several_objects_ask_the_colour():
    assert read_question("Which colours are the cubes lying on the stand?") == Question(
        "query_color", {"type": "block", "rel": "on", "anchor": "stand"})
    assert read_question("what are the colours of the blocks in the bowls") == Question(
        "query_color", {"type": "block", "rel": "in", "anchor": "any bowl"})


@pytest.mark.parametrize("text", [
    "what colours are there?",  # the set of colours: no program
    "how many colours are the blocks?",
    "what colours are the blocks and the bowls?",
    "which colours do the bowls come in?",
])
def test_colours_asked_of_no_one_place_are_refused(text):
    assert _refused(text)


# -- an object said by what holds it --------------------------------------------------------------
def test_what_a_bowl_holds_is_in_it_and_what_a_stand_holds_is_on_it():
    assert read_question("what colour is the block the pink bowl holds") == Question(
        "query_color", {"type": "block", "rel": "in", "anchor": "pink bowl"})
    assert read_question("how many cubes does the stand support") == Question(
        "count", {"type": "block", "rel": "on", "anchor": "stand"})
    assert read_question("which colour is the cube that the stand is holding up") == Question(
        "query_color", {"type": "block", "rel": "on", "anchor": "stand"})


def test_it_after_a_bare_plural_is_the_definite_object():
    assert take_apart("what color are the bowls that have blocks in them").rel_target == 0
    assert _refused("what colour is the bowl that has blocks in it")  # no program: a bowl
    # holding a block, its colour


# -- all_in's same mode said by named examples -----------------------------------------------------
def test_named_examples_said_of_every_block_are_the_same_mode():
    assert read_question("Is the green block in the green bowl, the cyan block in the cyan "
                         "bowl, and so forth?") == Question("all_in", {"mode": "same"})
    assert reader.plain("is the white block in the white bowl and so on for each block") == (
        "is every block in a bowl of the same color")


@pytest.mark.parametrize("text", [
    "Is the green block in the green bowl and the cyan block in the cyan bowl?",  # two named
    "Is the green block in the cyan bowl, the cyan block in the green bowl, and so on?",
])
def test_named_examples_not_said_of_all_or_not_the_same_are_refused(text):
    assert _refused(text)
