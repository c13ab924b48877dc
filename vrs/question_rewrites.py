"""Plain words for what people say around a program (the question reader's rewrites).

Why a module of its own: `question_reader.plain` puts a folded, respelled question in plainer
words before the grammar's second try and the frame lookup; the rules grew past what the
reader's module could hold readably. Each rule rewrites one way of saying something into a form
the grammar or a known frame hears; none is applied by the grammar itself (the grammar stays
strict, and a question it reads is never rewritten).
"""

from __future__ import annotations

import re

from vrs.question_vocab import ALL_COLORS

_QUANT = r"(?:every|each|all(?: the| of the)?)"
_REWRITES = [(re.compile(p), r) for p, r in (
    # two sentences, one question: "in the blue bowl there's a block. what colour is it?"
    (r"(?<=[a-z])[.?!]+ (?=[a-z])", " "),
    # a tag question asks the statement: "the X is under the Y, isn't it"
    (r"^(the .+?) (is|are) (.+?) (?:is|are) not (?:it|they|there)$", r"\2 \1 \3"),
    # sameness denied is difference: "a bowl that is not its colour", "does not match theirs",
    # "a non-matching colour", "unmatched"
    (r"\b(?:does|do) not match\b", "mismatch"),
    (r"\bnot (?:of )?(?:its|their) (?:own )?colors?\b", "a different color"),
    (r"\bnot (?:the same|a matching|matching) colors?\b", "a different color"),
    (r"\bnon ?(?:matching|matched|corresponding|identical)\b", "mismatching"),
    (r"\bun(?:matched|matching)\b", "mismatched"),
    (r"\bdiffering\b", "different"),
    # "some bowl or other" is any bowl ("other" is no word of difference there)
    (r"\b(some|any|a|an|one) (\w+) or (?:an)?other\b", r"\1 \2"),
    # what a bowl holds is what is in it
    (r"^what (?:does|do) (the .+?) (?:contain|hold)$", r"what is in \1"),
    (r"^what (?:is|are) (the .+?) (?:containing|holding)$", r"what is in \1"),
    (r"^how many (\S+(?: \S+)?) (?:is|are|does|do) (the (?:\S+ )?bowl) "
     r"(?:contain|hold|containing|holding|have in it|got in it)$", r"how many \1 are in \2"),
    (r"\b(?:being )?(?:held|contained) (?:by|in)\b", "in"),
    # a request to name what is somewhere asks what is there: "name whatever is in the bowl"
    (r"^(?:name|identify|say|tell me) (?:whatever|what) (is|are)\b", r"what \1"),
    # height in a stack said as a comparison
    (r"\b(?:higher|further) (?:up )?(?:in the (?:stack|tower|pile) )?than\b", "above"),
    (r"\b(?:lower|further down) (?:down )?(?:in the (?:stack|tower|pile) )?than\b", "below"),
    (r"\bsomewhere (above|below|on|in)\b", r"\1"),
    # "does any block sit on the pink block" asks whether there is one
    (r"^(?:does|do) (any|a|an) (.+?) (?:sit|rest|lie|stand|sits|rests|lies|stands) ",
     r"is there \1 \2 "),
    # the colour of an object said to be there: "there is a block in the bowl. what colour is
    # it?" (the grammar hears the form with the relation first)
    (r"^(?:is there|there is) (?:a|an|one) (.+?) (?:what|which) color (?:is|does) "
     r"(?:it|that|this)(?: have)?$", r"what color is the \1"),
    # chat spellings too short for `respell`
    (r"\br\b", "are"), (r"\bu\b", "you"), (r"\bther (?=(?:a|an|any|some) )", "there "),
    (r"\bal (?=the )", "all "),
    (r" if anything$", ""),
    (r"^((?:is|are) there .+?) (?:present|in view|in sight|around|here)$", r"\1"),
)]
# all_in's same mode said by example: "is every red block in a red bowl, every blue block in a
# blue bowl (and so on)?" -- each pair names one colour twice
_PAIR = re.compile(rf"{_QUANT} (\w+) blocks? (?:in|inside) (?:a|an|the) (\w+) bowls?")
_BY_EXAMPLE = re.compile(rf"^(?:is|are) {_QUANT} (?:\w+ )?blocks? .*$")
_MODE_SAID = re.compile(r"\b(?:same|matching|different|mismatched|mismatching|own)\b")
_AND_SO_ON = re.compile(r" (?:and so on|and so forth|etc|and the like|and likewise)$")


_EXAMPLE_TAIL = re.compile(r" (?:e\.?g\.?|for example|for instance|such as|say|like)"
                           r"(?: the| a)? \w+ blocks? (?:in|inside)(?: the| a)? \w+ bowls?.*$")


def by_example(text: str) -> str:
    """"is every red block in a red bowl, every blue block in a blue bowl" says all_in's same
    mode by examples: each pair names one colour for block and bowl, and there are two pairs or
    one and "and so on". Why: the frame of one pair reads as a question about red blocks (no
    program), the words of sameness are never said. Where the mode is said, an example after
    it ("..., e.g. red block in red bowl") only illustrates it and goes."""
    if not _BY_EXAMPLE.match(text):
        return text
    if _MODE_SAID.search(text):  # "of the same colour, e.g. red block in red bowl"
        return _EXAMPLE_TAIL.sub("", text)
    rest = _AND_SO_ON.sub("", text)
    pairs = _PAIR.findall(rest)
    if not pairs or any(b != c or b not in ALL_COLORS for b, c in pairs):
        return text
    leftover = _PAIR.sub("", rest).split()
    if set(leftover) - {"is", "are", "and"} or (len(pairs) < 2 and rest == text):
        return text
    return "is every block in a bowl of the same color"


def rewrite(text: str) -> str:
    """`text` (folded, respelled) in the plainer words the rules above know."""
    for pattern, replacement in _REWRITES:
        text = pattern.sub(replacement, text)
    return by_example(" ".join(text.split()))
