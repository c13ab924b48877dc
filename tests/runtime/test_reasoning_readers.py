"""The offline parser on the reasoning suite's forms: what it reads, and what it refuses.

The readings are checked on the plan level here (fast); `test_instruction_corpus.py` runs
corpus lines closed-loop.
"""

from __future__ import annotations

import pytest

from runtime.planners.base import PlannerError, PlanRequest
from runtime.planners.instruction_parser import parse_instruction
from runtime.planners.offline import OfflinePlanner
from runtime.planners.reasoning_readers import Memory

BOWLS = ["red block", "green block", "blue block", "yellow bowl", "pink bowl", "gray bowl"]
COLORS = ["red block", "orange block", "yellow block", "blue block", "green block",
          "gray bowl", "pink bowl", "white bowl", "cyan bowl"]


def accept(goal) -> dict:
    return dict(goal.accept)


@pytest.mark.parametrize(("text", "excluded"), [
    ("put every block except the red block in a bowl", "red block"),
    ("put all the blocks but the green one in bowls", "green block"),
    ("Please put the blocks that aren't blue into bowls.", "blue block"),
    ("put each non-red block in a bowl", "red block"),
    ("leave the green block out; everything else goes in a bowl", "green block"),
    ("put every block in a bowl, but don't put the blue block in one", "blue block"),
])
def test_exclusion_keeps_the_named_block_out_of_every_bowl(text, excluded):
    goal = parse_instruction(text, BOWLS)
    places = accept(goal)
    assert goal.family == "subset" and excluded not in goal.blocks
    assert set(places[excluded]) & {"yellow bowl", "pink bowl", "gray bowl"} == set()
    assert all(set(places[b]) == {"yellow bowl", "pink bowl", "gray bowl"} for b in goal.blocks)


@pytest.mark.parametrize(("text", "family", "polarity_blocks"), [
    ("put the blocks in bowls that don't share their colour", "mismatched", None),
    ("put no block in a bowl of its own colour", "mismatched", None),
    ("put the blocks in bowls so that no block sits in a bowl of a different colour",
     "matching", None),
    ("every block goes in a bowl; none of them in the bowl that matches it", "mismatched", None),
])
def test_negated_colour_words_flip_the_colour_reading(text, family, polarity_blocks):
    objects = ["red block", "blue block", "red bowl", "blue bowl"]
    assert parse_instruction(text, objects).family == family


@pytest.mark.parametrize(("text", "words"), [
    ("put the blocks in bowls if you feel like it", "'if', 'feel'"),
    ("put the red block in the yellow bowl unless it is already full", "'unless', 'already'"),
    ("stack the blocks except the ones that are shiny", "'shiny'"),
    ("put the heaviest block in the yellow bowl", "'heaviest'"),
    ("put the red block on the table", "'table'"),
    ("put the blocks with lukewarm colours in bowls", "'lukewarm'"),
])
def test_a_word_no_reader_accounts_for_is_named_in_the_refusal(text, words):
    with pytest.raises(PlannerError, match="could not read") as e:
        parse_instruction(text, BOWLS)
    assert words in str(e.value) and "--planner llm" in str(e.value)


@pytest.mark.parametrize(("text", "why"), [
    ("is the red block in the yellow bowl?", "a question, not an instruction"),
    ("put every block except the red one in the yellow bowl", "a bowl holds one block"),
    ("put 2 blocks in each bowl", "a bowl holds one block"),
    ("put the blocks in the colours of the flag of Atlantis in bowls", "'atlantis'"),
    ("don't put the red block in a bowl", "not what to do with the others"),
])
def test_impossible_or_undetermined_instructions_are_refused(text, why):
    with pytest.raises(PlannerError, match=why):
        parse_instruction(text, BOWLS)


def test_counting_takes_blocks_already_in_bowls_first_and_leaves_the_rest_out():
    memory = Memory({}, (), {"blue block": "pink bowl"})
    goal = parse_instruction("put exactly two blocks in bowls", BOWLS, memory)
    assert goal.blocks[0] == "blue block" and len(goal.blocks) == 2
    (other,) = [b for b in ("red block", "green block", "blue block") if b not in goal.blocks]
    assert "table" in accept(goal)[other] and "yellow bowl" not in accept(goal)[other]


def test_one_block_per_bowl_chooses_as_many_blocks_as_bowls():
    goal = parse_instruction("give each bowl exactly one block", BOWLS)
    assert len(goal.blocks) == 3


@pytest.mark.parametrize(("text", "colors"), [
    ("put the warm coloured blocks in bowls", {"red", "orange", "yellow"}),
    ("put the cool colored blocks in bowls", {"blue", "green"}),
    ("put the blocks in the colours of the French flag in bowls", {"red", "blue"}),
    ("put the blocks of primary colors in bowls", None),  # green is primary to RGB: refused
])
def test_world_knowledge_picks_the_blocks_by_colour(text, colors):
    if colors is None:
        with pytest.raises(PlannerError, match="green block is primary to some"):
            parse_instruction(text, COLORS)
        return
    goal = parse_instruction(text, COLORS)
    assert {b.split()[0] for b in goal.blocks} == colors


def test_a_borderline_colour_is_refused_for_warm_and_cool():
    with pytest.raises(PlannerError, match="pink block is neither clearly warm nor cool"):
        parse_instruction("put the warm colored blocks in bowls", ["pink block", "red block",
                                                                   "blue bowl"])


def test_rainbow_order_is_a_tower_red_at_the_bottom():
    goal = parse_instruction("stack the blocks in rainbow order", ["blue block", "red block",
                                                                   "yellow block"])
    assert accept(goal) == {"yellow block": ("red block",), "blue block": ("yellow block",)}


INITIAL = {"red block": "gray bowl", "green block": "pink bowl", "blue block": "table"}


def test_swap_reads_the_bowls_from_the_start_not_from_now():
    memory = Memory(INITIAL, (("red block", "yellow bowl"),),
                    {"red block": "yellow bowl", "green block": "pink bowl"})
    goal = parse_instruction("swap the red block and the green block", BOWLS, memory)
    assert accept(goal) == {"red block": ("pink bowl",), "green block": ("gray bowl",)}
    assert goal.check_end


def test_a_block_that_stood_on_the_table_cannot_be_swapped_back():
    with pytest.raises(PlannerError, match="cannot be put back on the table"):
        parse_instruction("swap the red block and the blue block", BOWLS, Memory(INITIAL))


def test_restore_does_the_first_put_only_once():
    text = "put the blue block in the yellow bowl, then put every block back where it started"
    first = parse_instruction(text, BOWLS, Memory(INITIAL))
    assert first.first == (("blue block", "yellow bowl"),)
    assert accept(first) == {"red block": ("gray bowl",), "green block": ("pink bowl",)}
    later = parse_instruction(text, BOWLS, Memory(INITIAL, (("blue block", "yellow bowl"),)))
    assert later.first == ()


def test_reverse_reads_the_tower_from_the_start_and_checks_a_named_bottom():
    start = {"green block": "red block", "blue block": "green block", "red block": "table"}
    goal = parse_instruction("reverse the tower", BOWLS, Memory(start))
    assert accept(goal) == {"green block": ("blue block",), "red block": ("green block",)}
    with pytest.raises(PlannerError, match="puts the blue block there"):
        parse_instruction("flip the tower so the red block ends up at the bottom", BOWLS,
                          Memory(start))


def test_memory_forms_refuse_without_a_remembered_start():
    with pytest.raises(PlannerError, match="nothing was perceived before"):
        parse_instruction("swap the red block and the green block", BOWLS, Memory({}))


def test_a_reference_codeplan_asks_about_the_start_and_branches_per_block():
    request = PlanRequest("put the leftmost block in the pink bowl", BOWLS, [])
    source = OfflinePlanner().plan(request).source
    assert "at_start=True" in source and "' left of the ' + name" in source
    assert all(f"if block == '{b}'" in source or f"elif block == '{b}'" in source
               for b in ("red block", "green block", "blue block"))
    assert "tell_planner('expected one block" in source


def test_a_memory_plan_looks_again_before_done():
    request = PlanRequest("swap the red block and the green block", BOWLS,
                          [("red block", "in", "gray bowl"), ("green block", "in", "pink bowl")],
                          initial_facts=[("red block", "in", "gray bowl"),
                                         ("green block", "in", "pink bowl")])
    source = OfflinePlanner().plan(request).source
    body = source.split("Look again")[1]
    assert "is the red block in the pink bowl?" in body and "not as asked yet" in body
