"""Reading an instruction's kind: family, colour polarity with negation per clause, named
objects. Wordings are from the DEV sets and the task families (never heldout-d)."""

from __future__ import annotations

import json

import pytest

from prompts import __file__ as prompts_init
from runtime.planners.intent import Intent, color_polarity, normalize, read_intent


@pytest.mark.parametrize(("instruction", "polarity"), [
    ("put the blocks in the bowls with matching colors", "same"),
    ("sort the blocks into the bowls by colour", "same"),
    ("each block goes into the bowl that matches its color", "same"),
    ("put the blocks in bowls of a different color", "different"),
    ("place every block in a bowl of some other color", "different"),
    ("put each block in a bowl that is not its color", "different"),
    ("place the blocks in bowls that don't match their colours", "different"),
    ("no block may be in the bowl of its own color: put them all in bowls", "different"),
    ("put every block in a bowl, but not the one of its own colour", "different"),
    ("don't put any block in a bowl of a different color", "same"),  # negated "different"
    # a negation in another clause does not turn this one
    ("the blocks are not in bowls yet; put every block in the bowl of its color", "same"),
    # the block's own colour named as "the block's colour"
    ("each block in a bowl whose colour isn't the block's colour", "different"),
    ("put each cube in the dish that shares its hue", "same"),  # dish: a bowl
    # ... unless the clause says "different": then it is what the bowl differs from
    ("each block in a bowl whose colour differs from the block's colour", "different"),
    ("each block in a bowl other than the block's colour", "different"),
    ("each block in a bowl of a colour different from the block's colour", "different"),
    ("each block in a bowl unlike the block's colour", "different"),
    ("put the blocks in bowls", None),  # the words do not say
    ("put each block in a bowl of the same or a different color", None),  # they say both
])
def test_colour_polarity_reads_negation_per_clause(instruction, polarity):
    assert color_polarity(instruction) == polarity


@pytest.mark.parametrize(("instruction", "intent"), [
    ("put the darker blocks in the bowls with matching colors", Intent("bowls", "same")),
    ("put the red cube inside the blue bowl", Intent("one", pick="red block", place="blue bowl")),
    ("stack all the blocks on the red block", Intent("stack", base="red block")),
    ("make a tower of all the blocks", Intent("stack")),
    ("stack all the blocks in a 3-2-1 pyramid on the stand", Intent("pyramid")),
    ("sort the cubes: every cube goes in the dish of its own color", Intent("bowls", "same")),
    ("put the red brick in the blue container", Intent("one", pick="red block", place="blue bowl")),
    ("stack all the blocks next to the dish", Intent()),  # a tower by a bowl: not "bowls"
    ("put the red block on the green block", Intent()),  # one block on a block: not read
    ("open the drawer", Intent()),
])
def test_the_family_and_named_objects(instruction, intent):
    assert read_intent(instruction) == intent


def test_normalize_spells_each_word_one_way():
    assert normalize("Don't put the GREY cubes in their colour's bowl-sets") == \
        "do not put the gray blocks in their color bowl sets"


def test_every_dev_wording_is_read_as_its_task():
    """The DEV paraphrases (both sets used for choices) all read as their own family."""
    family = {"put-blocks-in-matching-bowls": ("bowls", "same"),
              "put-darker-blocks-in-matching-bowls": ("bowls", "same"),
              "put-blocks-in-mismatched-bowls": ("bowls", "different"),
              "put-block-in-bowl": ("one", None), "stack-blocks": ("stack", None),
              "stack-block-pyramid": ("pyramid", None)}
    from pathlib import Path

    folder = Path(prompts_init).parent / "paraphrases"
    for name in ("dev.jsonl", "dev-a.jsonl", "dev-b.jsonl", "dev-c.jsonl"):
        for line in (folder / name).read_text().splitlines():
            row = json.loads(line)
            words = row["instruction"].format(pick="red", place="blue", base="green block")
            intent = read_intent(words)
            assert (intent.family, intent.polarity) == family[row["task"]], words


@pytest.mark.parametrize(("text", "family"), [
    ("pick up the block right of the purple block and put it in the pink bowl", "relation"),
    ("put the rightmost block in the red bowl", "ordinal"),
    ("put every block except the red one in a bowl", "except"),
    ("swap the red block and the blue block", "swap"),
    ("reverse the tower", "reverse"),
    ("put the blocks in bowls of a different color", "bowls"),
])
def test_reasoning_forms_get_their_own_family(text, family):
    assert read_intent(text).family == family
