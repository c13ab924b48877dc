"""Words whose meaning no program carries: the question reader's guards (`guards`).

Why a module of its own: the reader's module had grown past what it could hold readably, and
the guards are a family of their own: negation, disjunction, nearness, order, time, absence, a
hypothetical, a command, two questions in one, places off the tabletop; and (round 10, from a
red team's probes) shapes of several words (`_SHAPES`: an object told apart by a word no
program says, a side said with a possessive, a quantity phrase, ...), which `shape_guards`
also finds in the question as typed, before a fold made it plainer. A known frame lends its
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
                    "should", "supposed", "ought",
                    # round 10's probing: a quantity, a share or a group ("are there several",
                    # "both", "most", "a pair of", "per bowl", "alone in the bowl")
                    "several", "multiple", "pair", "pairs", "couple", "dozen", "trio", "few",
                    "lot", "lots", "lone", "alone", "most", "both", "fraction", "percentage",
                    "percent", "average", "per", "kinds", "groups", "share", "shares",
                    "sharing", "alongside", "high", "minus", "excluding", "else",
                    # ... what will be, what belongs, what changed, what is right or false
                    "going", "gonna", "goes", "belong", "belongs", "needs", "remain", "remains",
                    "extra", "missing", "new", "removed", "remove", "gone", "pretend",
                    "when", "used", "correct", "incorrect", "false", "untrue",
                    # relations no program says ("covered by", "separate from")
                    "cover", "covers", "covered", "covering", "separate", "separated",
                    "opposite",
                    # a degree of a side ("slightly / far / directly left of"; "so far")
                    "slightly", "far", "farther", "further", "directly", "well", "way",
                    "somewhat", "roughly",
                    # colours the scene has no name for, and materials ("a teal bowl")
                    "black", "teal", "navy", "maroon", "beige", "violet", "indigo", "magenta",
                    "turquoise", "lime", "olive", "tan", "gold", "golden", "silver", "crimson",
                    "scarlet", "amber", "ivory", "cream", "lavender", "coral", "khaki",
                    "bronze", "plastic", "metal", "metallic", "glass", "rubber", "paper"})
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
_MORE = re.compile(r"\b(?:more|fewer|less)(?: \w+)? than\b")
_KIND = r"(?:blocks?|bowls?|stands?|objects?|things?)"
_COLOR = r"(?:red|green|blue|yellow|brown|gray|cyan|orange|purple|pink|white)"
# Round 10's probing: the shapes that lent a program to a question about something else.
_SHAPES = {
    # an object told apart by a word no program says ("the left bowl", "the bigger bowl",
    # "that block", "the bowl on the left", "the top block")
    "described": re.compile(
        rf"\b(?:left|right|front|back|big|bigger|biggest|small|smaller|large|larger|little|"
        rf"tall|taller|short|shorter|far|near|top|bottom|middle|center|deep|deeper|shallow|"
        rf"light|dark|bright|this|that|these|those|other)(?: {_COLOR})? {_KIND}\b"
        rf"|\b{_KIND} on the (?:left|right|far left|far right|top|bottom)\b(?! of)"
        r"|\bon the (?:left|right)$"),
    # a side said with a possessive ("the stand's left", folded to "stand is left")
    "possessive side": re.compile(rf"\b{_KIND}(?: is|'s) (?:left|right|front|back|top|bottom)"
                                  r"(?: side)?\b(?! of)"),
    # a part of the table ("on the left side of the table")
    "region": re.compile(r"\b(?:left|right|front|back|far|near) (?:side|part|half|end|edge|"
                         r"corner|hand side) of the table\b|\bthe (?:left|right) of the table\b"),
    # "does the blue block have the red block above it": the two objects come swapped
    "have it": re.compile(r"\b(?:have|has|got)\b.*\b(?:above|below|beneath|under|underneath|"
                          r"left|right|front|behind)\b|\bhave on top\b"),
    # "the other block", "how many other blocks", "another red block", "each other"
    # ("another block" after a relation is any block: "left of another block")
    "other": re.compile(r"\b(?:the|what|many|there|are) other\b|\beach other\b|"
                        r"\bthe others\b|\b(?:is there|are there|there is|any) another\b"),
    # two kinds at once ("how many blocks and stands")
    "two kinds": re.compile(rf"\b{_KIND} (?:and|plus) (?:the |a )?(?:{_COLOR} )?{_KIND}\b"),
    # a block in a bowl with another block, a bowl "of its own" (no colour): who shares a bowl
    "with a block": re.compile(rf"\bin (?:a|the) bowls? with (?:another|other|an?|one) "
                               rf"(?:{_COLOR} )?blocks?\b|\bof (?:its|their) own$"),
    # "which block is on top", "what is the top block": an order in the stack
    "top": re.compile(r"(?<!on )\btop\b(?! of)"),
    # "need to", "do i need": what is wanted, not what is ("i need the count of" is a request)
    "need": re.compile(r"\bneed to\b|\bdo (?:i|we|you) need\b|\bneeds?$"),
    # a quantity or a state said in a phrase ("are there many", "just one", "one more", "by
    # itself", "on their own", "about to", "a stack of", "go in", "on the bottom")
    # an owner said ("my bowl", "the user's bowl"), a pronoun with nothing before it ("are
    # they in bowls", "how many of them"), "other than" (not "than its own"), a material
    "owner": re.compile(rf"\b(?:my|your|his|her|our)(?: {_COLOR})? {_KIND}\b|"
                        rf"\b(?!(?:what|there|that|it|where|who|here|how|colou?r)'s)\w+'s"
                        rf"(?: {_COLOR})? {_KIND}\b|\bwooden (?!stands?|platforms?|boards?|"
                        r"planks?)|\b(?:plastic|metal|metallic|glass|rubber|paper)\b"),
    "pronoun": re.compile(r"^(?:are|is|were|was) (?:they|it|them)\b(?! true)|\bhow many of "
                          r"(?:them|those)\b|\bother than (?!its|their|them|itself|themselves|"
                          r"the blocks?\b)"),
    "phrase": re.compile(r"(?<!how )\bmany\b|\bjust one\b|\bone more\b|\bby (?:itself|"
                         r"themselves)\b|\bon (?:its|their) own\b(?! colou?rs?)|\babout to\b|"
                         r"\bstack of\b|\bgo in\b|\bon the bottom\b|\b(?:have|has) moved$"),
}


_HOLD = re.compile(r"\b(?:hold|holds|holding|carry|carries|carrying)\b(?! up)")
_KINDS_SAID = re.compile(r"\b(?:blocks?|bowls?|stands?|table|objects?|things?|anything|"
                         r"something)\b")
# a relation to "it" / "them", or a relation said last, with no second object to point at
_NO_ANCHOR = re.compile(r"\b(?:in|on|under|inside|underneath|behind|above|below|beneath|top of) "
                        r"(?:it|them)\b|\b(?:inside|underneath|beneath|below|above|behind|"
                        r"under|in there|on top)$")


def shape_guards(text: str) -> frozenset[str]:
    """The round-10 shapes said in a question, folded and as typed (lower case, letters only):
    before any fold or rewrite made it plainer (the fold turns "this bowl" into "the bowl", a
    rewrite takes "right" for a tag)."""
    from vrs.question_vocab import fold_question

    said = (fold_question(text), " ".join(re.sub(r"[^a-z' ]", " ", text.lower()).split()))
    return frozenset(name for name, rx in _SHAPES.items() if any(rx.search(t) for t in said))


def guards(words: list[str]) -> frozenset[str]:
    """The guard words said, an action verb only as a command."""
    said = {w for w in words if w in GUARDS}
    text = " ".join(words)
    said |= {g for g, rx in (("outside", _OUTSIDE), ("but", _BUT), ("more than", _MORE))
             if rx.search(text)}
    if _ONE_BOWL.search(text) and not _COLOR_WORD.search(text):
        said.add("one bowl")
    said |= {name for name, rx in _SHAPES.items() if rx.search(text)}
    if _HOLD.search(text) and "bowl" not in text:
        said.add("held by no bowl")  # a stand or block holds nothing in it: things are on it
    if _NO_ANCHOR.search(text) and len(_KINDS_SAID.findall(text)) < 2:
        said.add("no anchor")
    said |= {w for n, w in enumerate(words)
             if w in ACTS and (n == 0 or words[n - 1] in ("you", "please", "to"))}
    if _TWO_QUESTIONS.search(text):
        said.add("two questions")
    if _HYPOTHETICAL.match(text):
        said.add("hypothetical")
    return frozenset(said)
