"""What an instruction asks for, read from its words: the task family, the colour polarity of a
bowls instruction, and the objects it names. Used by the LLM planner to pick its few-shot
example and by the dry run (`plan_check`) to check a codeplan's end state.

Why not the closest example by shared words alone: a 1.5B model copies the one example it is
shown, and word overlap took "bowls that do not match their colors" and "a bowl of another
color" for the matching task (the words "match" and "color" outweighed "not"). Negation is read
per clause here: a "not", "no", "never" or "none" in a clause turns that clause's same-colour
words ("match", "own", "same") into different-colour ones.

Everything here answers None when the words do not settle it; callers then stay out (the
example falls back to shared words, the dry run checks nothing about colour). Rules were
written from the task families and the DEV sets (`prompts/paraphrases/dev.jsonl`,
`dev-a.jsonl`, `dev-b.jsonl`, `dev-c.jsonl`); `heldout-d.jsonl` was never read for them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

COLORS = ("red", "green", "blue", "yellow", "brown", "gray", "cyan", "orange", "purple", "pink",
          "white", "black", "violet", "magenta", "beige", "silver", "gold", "golden", "navy",
          "teal", "lime", "maroon", "olive", "tan", "indigo", "turquoise", "crimson")
_BOWL_WORDS = r"(dish|basin|container|vessel|receptacle)"  # what people call a bowl
_REWRITES = ((r"colou?r(ed|s)?\b", "color"), (r"\bgrey\b", "gray"),
             (r"\b(cube|brick)s\b", "blocks"), (r"\b(cube|brick)\b", "block"),
             (rf"\b{_BOWL_WORDS}e?s\b", "bowls"), (rf"\b{_BOWL_WORDS}\b", "bowl"),
             (r"n['’]t\b", " not"), (r"\bcannot\b", "can not"),
             (r"['’]s\b", ""), (r"\b(hue|tint|shade)s?\b", "color"), (r"-", " "),
             (rf"\b({'|'.join(COLORS)}) color (blocks?|bowls?)\b", r"\1 \2"))  # "red colored block"
_CLAUSE = re.compile(r"[;:,.!?()]| but | so that | while ")
_SAME = {"match", "matches", "matching", "matched", "same", "own", "corresponding",
         "identical", "correct", "right"}
_DIFFERENT = {"different", "differently", "differing", "differ", "differs", "mismatch",
              "mismatched",
              "mismatching", "mismatches", "unmatched", "nonmatching", "wrong", "another",
              "contrasting", "unlike"}
_NEGATION = {"not", "no", "never", "none", "nothing", "neither", "nor", "without", "avoid"}
_ALL = {"all", "every", "each", "blocks", "both", "everything"}
_TOWER = {"stack", "stacked", "stacking", "tower", "pile", "piled", "atop"}
_PYRAMID = re.compile(r"\bpyramid\b|\b3 2 1\b|\bthree two (and )?one\b|\b321\b")
_SUBSET_FORMS = ("except", "count", "tidy")
_MENTION = re.compile(r"\b(" + "|".join(COLORS) + r") (block|bowl)\b")


@dataclass(frozen=True)
class Intent:
    """family: "bowls" (every block into bowls by colour), "one" (one named block to one named
    place), "stack" (one tower of all blocks), "pyramid", a reasoning form ("except", "count",
    "refer", "swap", "restore", "reverse", "rainbow", "flag", ...), or None. polarity ("same" or
    "different") only for "bowls". base: the named bottom block of a stack. pick/place: the
    named block and place of "one"."""

    family: str | None = None
    polarity: str | None = None
    base: str | None = None
    pick: str | None = None
    place: str | None = None


def normalize(instruction: str) -> str:
    """Lower case, one spelling per word (colour/color, grey/gray, cube/block, n't/not)."""
    text = f" {instruction.lower()} "
    for pattern, repl in _REWRITES:
        text = re.sub(pattern, repl, text)
    return re.sub(r"\s+", " ", text).strip()


def color_polarity(instruction: str) -> str | None:
    """"same" (each block in the bowl of its own colour), "different", or None when the words
    do not say or say both. Each clause votes: a same-colour word votes "same", a
    different-colour word "different", and a negation in the clause swaps its votes."""
    votes = {"same": 0, "different": 0}
    for clause in _CLAUSE.split(normalize(instruction)):
        words = clause.split()
        different = sum(w in _DIFFERENT for w in words) + _other_color(clause)
        # "the block's colour" in a clause that says "different" is what the bowl differs from
        same = sum(w in _SAME for w in words) + (0 if different else _by_color(clause))
        if not same and not different:
            continue
        if _NEGATION & set(words):
            same, different = different, same
        votes["same"] += same
        votes["different"] += different
    if votes["same"] == votes["different"]:
        return None
    return "same" if votes["same"] > votes["different"] else "different"


def _reasoning_form(text: str) -> str | None:
    """The reasoning suite's form the words trigger ("except", "count", "swap", "restore",
    ...; `reasoning_readers.READERS`), or None. Such instructions get their own example and
    no colour or tower check in the dry run (whose checks know the classic families only)."""
    from runtime.planners.reasoning_readers import READERS

    form = next((r.name for r in READERS if r.trigger(text)), None)
    if form == "refer":  # two examples: a relation to an object, or a place in the row
        return "ordinal" if re.search(r"\b(leftmost|rightmost|second)\b", text) else "relation"
    return form


def _by_color(clause: str) -> int:
    """"sort by color", "its color", "their color", "the block's color": the block's own
    colour ("same color" is counted by its word "same")."""
    return len(re.findall(r"\bby color\b|\b(?:its|their|(?:the|that|this|each) blocks?) color\b",
                          clause))


def _other_color(clause: str) -> int:
    """"other color", "some other color", "other than": different; "other" alone (the other
    blocks) is not."""
    return len(re.findall(r"\bother (\w+ )?color\b|\bother than\b", clause))


def read_intent(instruction: str) -> Intent:
    """The instruction's family, polarity and named objects (see `Intent`)."""
    text = normalize(instruction)
    words = set(re.findall(r"[a-z0-9]+", text))
    mentions = [f"{c} {k}" for c, k in _MENTION.findall(text)]
    blocks = [m for m in mentions if m.endswith("block")]
    bowls = [m for m in mentions if m.endswith("bowl")]
    if _PYRAMID.search(text):
        return Intent("pyramid")
    reasoning = _reasoning_form(text)
    # "every block except ..." with same/different-colour words is still a bowls-by-colour
    # task; the other forms are never ("the block right of" is no colour word)
    if reasoning and (reasoning not in _SUBSET_FORMS or color_polarity(instruction) is None):
        return Intent(reasoning)
    if ("bowl" in words or "bowls" in words) and not bowls and words & _ALL \
            and not words & _TOWER:
        return Intent("bowls", color_polarity(instruction))
    if len(blocks) == 1 and len(bowls) == 1 and not words & {"blocks", "all", "every", "each"}:
        return Intent("one", pick=blocks[0], place=bowls[0])
    if (words & _TOWER or "on top of" in text or "one on another" in text) and "bowl" not in \
            text and (words & _ALL or "other" in words):
        return Intent("stack", base=blocks[0] if len(blocks) == 1 else None)
    return Intent()
