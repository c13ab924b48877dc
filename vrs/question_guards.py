"""Words whose meaning no program carries: the question reader's guards (`guards`).

Why a module of its own: the reader's module had grown past what it could hold readably, and
the guards are a family of their own: negation, disjunction, nearness, order, time, absence, a
hypothetical, a command, two questions in one, places off the tabletop. A known frame lends its
program only to a question that says the same guards (`question_reader.read_nearest`).
"""

from __future__ import annotations

import re

# Words whose meaning no program carries: a frame may only lend its program to a question that
# says the same ones (a nearest frame without "not" must not answer "which block is not ...").
GUARDS = frozenset({"not", "no", "never", "nor", "or", "without", "except", "besides", "near",
                    "nearest", "closest", "next", "beside", "between", "where", "why",
                    "biggest", "largest", "smallest", "tallest", "highest", "lowest",
                    "leftmost", "rightmost", "first", "second", "third", "last",
                    # time: the programs ask about the scene now ("were", "at the start")
                    "before", "after", "ago", "earlier", "later", "previously", "originally",
                    "was", "were", "start", "initially", "beginning", "formerly",
                    # touching is nearness, "how many colours" counts colours; the floor is off
                    # the tabletop, a box to be in (no block: `fold_question`) not in the scene;
                    # "non-red": what no rewrite made plain is denied
                    "touch", "touches", "touching", "colors", "floor", "ground", "box", "boxes",
                    "non",
                    # a number asks for a count to check ("are there three blocks": no program
                    # says it), "only" / "exactly" for uniqueness; and a number is a real word,
                    # never a slip ("three" is not "there")
                    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                    *(str(n) for n in range(2, 21)), "only", "exactly",
                    # absence: "there's nothing on the stand, is there" is no exists
                    "nothing", "none", "empty", "neither", "nobody", "nowhere",
                    # a hypothetical asks about a scene that is not there ("if I put the pink
                    # block on the stand, would it fall?"; "if" left after the fold peeled
                    # "tell me if"); "would" alone is no guard ("what colour would the block
                    # on the stand be"), "would there happen to be" is rewritten before
                    "if", "will", "happen", "happens", "suppose", "supposing",
                    "imagine", "hypothetically", "fall", "falls", "topple", "collapse",
                    # a size or room to check ("would the block fit in the bowl"): no program
                    "fit", "fits",
                    # a degree of a relation ("almost in the bowl"), and what ought to be (the
                    # goal, not the scene: "what should be in the blue bowl")
                    "almost", "nearly", "partly", "partially", "half", "halfway", "barely",
                    "should", "supposed", "ought"})
# two questions in one ("how many blocks are there and what colour is the bowl?"): no program
# answers both, so the guard below (`guards`) refuses them
_TWO_QUESTIONS = re.compile(r"\b(?:and|also|plus|then|but) (?:also )?"
                            r"(?:what|which|how|where|who|why)\b")
# a modal before the objects asks what could be, not what is ("would the green block go in
# the bowl", "could a block stand on the stand"); "could you tell me ..." is peeled by the
# fold, "would there happen to be" rewritten to "is there", "can you see" says "you"
_HYPOTHETICAL = re.compile(r"^(?:would|could|might|should|can|may|will) "
                           r"(?:the|a|an|any|every|each|all|some|it|they|this|that)\b")
# a request to act is not a question: these verbs are guards when said as a command (first, or
# after "you" / "please" / "to": "can you stack ...", "please put ..."), not "put away in bowls"
ACTS = frozenset({"put", "stack", "move", "place", "pick", "take", "grab", "push", "lift",
                   "drop", "sort", "arrange"})


# outside a place is the opposite of in it ("are all blocks out of the bowls"), and one bowl's
# identity is no colour ("are the blocks all in the same bowl", "each in a different bowl",
# "all in one bowl"): no program asks either, and both read as all_in's modes before round 10
_OUTSIDE = re.compile(r"\b(?:outside|out of|off|away from)\b")
_ONE_BOWL = re.compile(r"\b(?:same|different|one|single|separate|distinct) bowls?\b")
_COLOR_WORD = re.compile(r"\bcolou?r|\bmatch")
# "all blocks but one", "every block but the red one": an exception
_BUT = re.compile(r"\bbut (?:one|two|three|the|a|an|for)\b")
# a comparison of counts ("is there more than one red block"): no program compares
_MORE = re.compile(r"\b(?:more|fewer|less) than\b")


def guards(words: list[str]) -> frozenset[str]:
    """The guard words said, an action verb only as a command."""
    said = {w for w in words if w in GUARDS}
    text = " ".join(words)
    said |= {g for g, rx in (("outside", _OUTSIDE), ("but", _BUT), ("more than", _MORE))
             if rx.search(text)}
    if _ONE_BOWL.search(text) and not _COLOR_WORD.search(text):
        said.add("one bowl")
    said |= {w for n, w in enumerate(words)
             if w in ACTS and (n == 0 or words[n - 1] in ("you", "please", "to"))}
    if _TWO_QUESTIONS.search(text):
        said.add("two questions")
    if _HYPOTHETICAL.match(text):
        said.add("hypothetical")
    return frozenset(said)
