"""The third paraphrase round's everyday forms (issue 27), on sentences of their own (not rows
of any paraphrase set): each form reads as the program a person means, and what stays outside
the language is still refused."""

from __future__ import annotations

import pytest

from vrs.questions import UnsupportedQuestion, parse_question

READS = [
    ("Alright, is there an orange bowl?", "exists", {"type": "bowl", "color": "orange"}),
    ("There are some green cubes behind the stand?", "exists",
     {"type": "block", "color": "green", "rel": "behind", "anchor": "stand"}),
    ("Have we got any white bowls?", "exists", {"type": "bowl", "color": "white"}),
    ("Has anybody left a cube inside the red bowl?", "exists",
     {"type": "block", "rel": "in", "anchor": "red bowl"}),
    ("Could you spot a purple block?", "exists", {"type": "block", "color": "purple"}),
    ("How much bowls there are?", "count", {"type": "bowl"}),
    ("how many cubes there are in the cyan bowl", "count",
     {"type": "block", "rel": "in", "anchor": "cyan bowl"}),
    ("Behind the white bowl, how many blocks are there?", "count",
     {"type": "block", "rel": "behind", "anchor": "white bowl"}),
    ("How many yellow blocks do you see here?", "count", {"type": "block", "color": "yellow"}),
    ("Is it true that the gray block is on the stand?", "relation_yes_no",
     {"subject": "gray block", "rel": "on", "anchor": "stand"}),
    ("The orange bowl, it is left of the stand?", "relation_yes_no",
     {"subject": "orange bowl", "rel": "left", "anchor": "stand"}),
    ("is the pink block under green block", "relation_yes_no",
     {"subject": "pink block", "rel": "below", "anchor": "green block"}),
    ("What have you got inside the yellow bowl?", "relate_object",
     {"rel": "in", "anchor": "yellow bowl"}),
    ("What can be seen behind the red block?", "relate_object",
     {"rel": "behind", "anchor": "red block"}),
    ("What is hidden behind the cyan bowl?", "relate_object",
     {"rel": "behind", "anchor": "cyan bowl"}),
    ("The block on the stand: which colour is it?", "query_color",
     {"type": "block", "rel": "on", "anchor": "stand"}),
    ("Which colour does the bowl containing the white block have?", "query_color",
     {"type": "bowl", "rel": "below", "anchor": "white block"}),
    ("What colour do you think the bowl right of the stand is?", "query_color",
     {"type": "bowl", "rel": "right", "anchor": "stand"}),
    ("what color is the bowl that the blue block was put into", None, None),  # past: refused
    ("What colour is the bowl that the blue block has been placed in?", "query_color",
     {"type": "bowl", "rel": "below", "anchor": "blue block"}),
    ("what is inside the bowl which is cyan", "relate_object",
     {"rel": "in", "anchor": "cyan bowl"}),
    ("What's sitting on the tabletop right now?", "list_objects", {}),
    ("Can I get a list of all the objects?", "list_objects", {}),
    ("Tell me everything that is there.", "list_objects", {}),
    ("Did all the cubes end up in bowls?", "all_in", {"mode": "any"}),
    ("Are the blocks in bowls of another colour than their own?", "all_in",
     {"mode": "different"}),
    ("Is every block in a bowl whose color is different from its own?", "all_in",
     {"mode": "different"}),
    ("Are all blocks in bowls with the same colour as themselves?", "all_in", {"mode": "same"}),
]


@pytest.mark.parametrize("question,template,params", READS)
def test_an_everyday_form_reads_as_the_program_a_person_means(question, template, params):
    if template is None:
        with pytest.raises(UnsupportedQuestion):
            parse_question(question)
        return
    q = parse_question(question)
    assert (q.template, q.args) == (template, params)


@pytest.mark.parametrize("question", [
    "Would you say the red block is next to the blue bowl?",  # next to: not in the language
    "Am I right that the red block is not in a bowl?",        # a negation
    "Has anyone put the red block in the blue bowl?",         # an action, not a state
    "What is the red block in, the red bowl or the blue one?",
    "So where is the green block?",
])
def test_the_new_frames_do_not_let_an_unsupported_question_through(question):
    with pytest.raises(UnsupportedQuestion):
        parse_question(question)
