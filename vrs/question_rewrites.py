"""Plain words for what people say around a program (the question reader's rewrites).

Why a module of its own: `question_reader.plain` puts a folded, respelled question in plainer
words before the grammar's second try and the frame lookup; the rules grew past what the
reader's module could hold readably. Each rule rewrites one way of saying something into a form
the grammar or a known frame hears; none is applied by the grammar itself (the grammar stays
strict, and a question it reads is never rewritten).
"""

from __future__ import annotations

import re

from vrs.question_topics import fronted
from vrs.question_vocab import ALL_COLORS

_QUANT = r"(?:every|each|all(?: the| of the)?)"
_HELD = r"the (?:\w+ )?(?:block|object|thing|one)s?"  # what another object holds
_REWRITES = [(re.compile(p), r) for p, r in (
    # two sentences, one question: "in the blue bowl there's a block. what colour is it?"
    (r"(?<=[a-z])[.?!]+ (?=[a-z])", " "),
    # sameness denied is difference: "a bowl that is not its colour", "does not match theirs",
    # "a non-matching colour", "unmatched"
    (r"\b(?:does|do) not match\b", "mismatch"),
    (r"\bnot (?:of )?(?:its|their) (?:own )?colors?\b", "a different color"),
    (r"\bnot (?:of )?(?:the same|a matching|matching) colors?\b", "a different color"),
    (r"\bwhose colors? (?:is|are) not (?:the same as|identical to|equal to|like|that of|those of)"
     r" (?:its own|their own|theirs|its|itself|themselves|it|them|the blocks?(?:'s|')?)(?= |$)",
     "of a different color"),
    (r"\bnon ?(?:matching|matched|corresponding|identical)\b", "mismatching"),
    (r"\bun(?:matched|matching)\b", "mismatched"),
    (r"\bdiffering\b", "different"),
    # "some bowl or other" is any bowl ("other" is no word of difference there)
    (r"\b(some|any|a|an|one) (\w+) or (?:an)?other\b", r"\1 \2"),
    # what a bowl holds is what is in it
    # (a bowl holds what is in it; a stand or a block what is on it)
    (r"^what (?:does|do) (the (?:\w+ )?bowls?) (?:contain|hold)$", r"what is in \1"),
    (r"^what (?:is|are) (the (?:\w+ )?bowls?) (?:containing|holding)$", r"what is in \1"),
    (r"^what (?:does|do) (the (?:\w+ )?(?:stand|block)s?) (?:hold|carry)$", r"what is on \1"),
    (r"^what (?:is|are) (the (?:\w+ )?(?:stand|block)s?) (?:holding|carrying)$",
     r"what is on \1"),
    (r"^how many (\S+(?: \S+)?) (?:is|are|does|do) (the (?:\S+ )?bowl) "
     r"(?:contain|hold|containing|holding|have in it|got in it)$", r"how many \1 are in \2"),
    (r"\b(?:being )?(?:held|contained) (?:by|in)\b", "in"),
    # ... and an object said by what holds it: "the block that the green bowl contains" is the
    # block in it, "the block that the stand supports" the block on it
    (rf"\b({_HELD}) (?:that |which )?(the (?:\w+ )?bowls?) (?:contains?|holds?|has in it|"
     r"have in them|(?:is|are) (?:holding|containing))\b", r"\1 in \2"),
    (rf"\b({_HELD}) (?:that |which )?(the (?:\w+ )?(?:blocks?|stands?)) (?:supports?|holds? up|"
     r"carry|carries|holds?|(?:is|are) (?:supporting|holding up|holding|carrying))\b",
     r"\1 on \2"),
    # ... and a count of what the stand or a block holds: "how many blocks does the stand
    # support" (on it; a bowl's is the rule above)
    (r"^how many (\S+(?: \S+)?) (?:is|are|does|do) (the (?:\S+ )?(?:stand|block)) (?:support|"
     r"hold up|hold|carry|supporting|holding up|holding|carrying|have on it|got on it)$",
     r"how many \1 are on \2"),
    # the colours of several objects ask the colour the one program asks ("what colours are the
    # blocks in bowls"); the plural "colors" stays a guard elsewhere ("how many colours")
    (r"^(what|which) colors (are|is|do|does)\b", r"\1 color \2"),
    (r"^what are the colors of\b", "what is the color of"),
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
    (r"\br\b", "are"), (r"\bu\b", "you"),
    (r"\bther (?=(?:a|an|any|some|anything|something|one) )", "there "),
    (r"\bal (?=the )", "all "),
    # what an object is made of names no other object: "the wooden platform", "a plastic bowl"
    (r"\b(?:wooden|wood|plastic|ceramic|metal|metallic) (?=(?:\w+ )?(?:stand|bowl|block)s?\b)",
     ""),
    # "would there happen to be", "would you happen to see": a polite "is there", not a
    # hypothetical ("would" and "happen" are guards)
    (r"^(?:would|will|might|may|could|do|does) there (?:happen to )?be\b", "is there"),
    # ... and the same hedge embedded: "(i was wondering) if there might be an orange block"
    (r"^(?:if|whether) there (?:might|may|could) (?:possibly )?be\b", "is there"),
    (r"^(?:would|will|might|could|do|does) (you|we) happen to (see|have)\b", r"do \1 \2"),
    # the same hedge inside an embedded question: "(tell me) whether there happens to be a
    # yellow dish" (the fold put "whether there is" in question order, not this)
    (r"\bthere happens to be\b", "there is"), (r"\bthere happen to be\b", "there are"),
    (r"^(?:if|whether) there (is|are)\b", r"\1 there"),
    # an embedded question with a verb of posture: "(check) if any object sits left of X" asks
    # whether there is one, "whether the red block rests on X" asks it of the block
    (r"^(?:if|whether) (any|a|an|some) ((?:\w+ ){0,2}?\w+) (?:sits|sit|rests|rest|lies|lie) ",
     r"is there \1 \2 "),
    (r"^(?:if|whether) (the (?:\w+ )?(?:block|bowl|stand)) (sit|rest|lie)s ", r"does \1 \2 "),
    # "(tell me) if you can spot a gray block": the embedded question of seeing, asked
    (r"^(?:if|whether) (you|we|i) (can|could) ", r"\2 \1 "),
    # the stack said as the place of a height: "higher up than the white block in the stack"
    (r"\b((?:above|below) the (?:\w+ )?(?:block|bowl|stand)) in the (?:stack|tower|pile)$",
     r"\1"),
    # a place put before a count of what is seen there: "on the stand, how many bricks do you
    # count?" (the fold hears the place first only before "are there")
    (r"^((?:in|inside|on|on top of|under|beneath|below|above|behind|in front of|"
     r"(?:to the )?(?:left|right) of) the (?:\w+ )?(?:block|bowl|stand)) how many (\w+(?: \w+)?) "
     r"(?:do|can|did|could) (?:you|we|i) (?:count|see|spot|find|make out)$", r"how many \2 are \1"),
    # a statement with a question mark: "so the gray cube is sitting in the brown bowl?"
    (r"^(the (?:\w+ )?(?:block|bowl|stand)) (is|are) (?!(?:what|which|how)\b)", r"\2 \1 "),
    (r" if anything$", ""),
    (r"^((?:is|are) there .+?)(?: (?:present|in view|in sight|around|here|somewhere|anywhere|"
     r"at all|visible|to be seen))+$", r"\1"),
    # a count of what can be seen: "how many brown blocks can you make out" (how many there are)
    (r"^how many (.+?) (?:can|could|do|did) (?:you|we|i) (?:see|spot|find|count|make out|notice|"
     r"detect|observe|pick out)(?: here| there| in view| in the scene)?$",
     r"how many \1 are there"),
)]
# where the question is asked from, when it is the camera's own view (the one every relation is
# seen from): "from where the camera is, ...", "..., as seen from the camera", "from my point
# of view". Never another object's ("from behind the bowl") nor a bare "from the camera"
# ("the block farthest from the camera" asks a distance).
_VIEWER = r"(?:the camera(?:'s| s)?|my|our|your|the viewer(?:'s| s)?|this|the image(?:'s| s)?)"
_VIEW = r"(?:view|viewpoint|point of view|perspective|vantage point|angle|side)"
_VIEWPOINT = (rf"(?:as )?(?:(?:seen|viewed|looking|looked at|judging) )?from (?:{_VIEWER} {_VIEW}|"
              r"where (?:the camera|the viewer|i|we|you) (?:is|am|are|stands?|sits?)"
              r"(?: standing| looking| sitting| placed)?)"
              r"|(?:as )?(?:seen|viewed|looking|looked at) (?:from|by|through) "
              r"(?:the camera|the viewer|me|us)")
_VIEWPOINTS = re.compile(rf"^(?:{_VIEWPOINT}) | (?:{_VIEWPOINT})$")
# emphasis of a universal: "are all the blocks in bowls, no exceptions?" ("no" and "without"
# are guards, said here of no object)
_EMPHASIS = re.compile(r"^without (?:any )?exceptions? | (?:(?:with )?no exceptions?|"
                       r"without (?:any )?exceptions?|bar none)$")
_UNIVERSAL = re.compile(r"\b(?:all|every|each)\b")
# all_in's mode said of plural colours: "in bowls with non-matching colours", "of colours that
# don't match them" (the plural "colors" is a guard word, for "how many colours")
_MODES_SAID = (
    (re.compile(r"\bcolors? (?:that|which) (?:mismatch|mismatches|do not match|does not match|"
                r"differ from|are different from|is different from) "
                r"(?:them|it|theirs|its own|their own|the blocks?)\b"),
     "a mismatching color"),
    (re.compile(r"\bcolors? (?:that|which) (?:match|matches|are the same as|is the same as) "
                r"(?:them|it|theirs|its own|their own|the blocks?)\b"), "a matching color"),
    (re.compile(r"\b(mismatching|mismatched|matching|matched|wrong|corresponding) colors\b"),
     r"\1 color"),
)


def said_plainly(text: str) -> str:
    """`text` without the camera's viewpoint or the emphasis of a universal, and with all_in's
    mode said of one colour. Why: each is said around a program (every relation is seen from
    the camera; "no exceptions" repeats "all"), but brings words (a "where", a "no", "colors")
    that the reader's guards rightly refuse elsewhere."""
    text = _VIEWPOINTS.sub(" ", text).strip()
    if _UNIVERSAL.search(text):
        text = _EMPHASIS.sub("", text)
    for pattern, replacement in _MODES_SAID:
        text = pattern.sub(replacement, text)
    return text


# all_in's same mode said by example: "is every red block in a red bowl, every blue block in a
# blue bowl (and so on)?" -- each pair names one colour twice
_PAIR = re.compile(rf"{_QUANT} (\w+) blocks? (?:in|inside) (?:a|an|the) (\w+) bowls?")
_BY_EXAMPLE = re.compile(rf"^(?:is|are) {_QUANT} (?:\w+ )?blocks? .*$")
_MODE_SAID = re.compile(r"\b(?:same|matching|different|mismatched|mismatching|own)\b")
_AND_SO_ON = re.compile(r" (?:and so on|and so forth|etc|and the like|and likewise)$")


_EXAMPLE_TAIL = re.compile(r" (?:e\.?g\.?|for example|for instance|such as|say|like)"
                           r"(?: the| a)? \w+ blocks? (?:in|inside)(?: the| a)? \w+ bowls?.*$")
# an example said with colours alone: "like red in red", "e.g. blue in blue"
_COLOR_EXAMPLE = re.compile(r" (?:e\.?g\.?|for example|for instance|such as|say|like)"
                            rf" ({'|'.join(ALL_COLORS)}) (?:in|inside) (\w+)$")


# the same said of named blocks, then of all: "is the red block in the red bowl, the blue block
# in the blue bowl, and so on for every block?"
_DEFINITE_PAIR = re.compile(r"\bthe (\w+) block (?:in|inside) the (\w+) bowl\b")
_FOR_ALL = re.compile(r"(?: (?:and so on|and so forth|etc|and likewise|and the same))?"
                      r"(?: for (?:every|each|all(?: the| of the)?) (?:blocks?|ones?|of them)"
                      r"| for the (?:rest|others))?$")


def _by_definite_example(text: str) -> bool:
    """Whether `text` asks all_in's same mode by named examples said of all: each pair names
    one colour for block and bowl, and a tail says the rest ("and so on", "for every block").
    Why the tail is needed: "is the red block in the red bowl and the blue block in the blue
    bowl" asks of two named blocks, a conjunction no program says."""
    if not re.match(r"^(?:is|are) the ", text):
        return False
    tail = _FOR_ALL.search(text)
    rest = text[:tail.start()]
    pairs = _DEFINITE_PAIR.findall(rest)
    leftover = set(_DEFINITE_PAIR.sub("", rest).split()) - {"is", "are", "and"}
    return bool(tail[0] and pairs and not leftover
                and all(b == c and b in ALL_COLORS for b, c in pairs))


def by_example(text: str) -> str:
    """"is every red block in a red bowl, every blue block in a blue bowl" says all_in's same
    mode by examples: each pair names one colour for block and bowl, and there are two pairs or
    one and "and so on". Why: the frame of one pair reads as a question about red blocks (no
    program), the words of sameness are never said. Where the mode is said, an example after
    it ("..., e.g. red block in red bowl") only illustrates it and goes."""
    if _by_definite_example(text):
        return "is every block in a bowl of the same color"
    if not _BY_EXAMPLE.match(text):
        return text
    short = _COLOR_EXAMPLE.search(text)
    if short and _MODE_SAID.search(text):  # "with the same colour as the block, like red in red"
        return text[:short.start()]
    if short and short[1] == short[2] and re.search(r" in (?:a|the) bowls?$", text[:short.start()]):
        return text[:short.start()] + " of the same color"  # "in a bowl, like red in red"
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


# -- a tag question asks its statement ---------------------------------------------------------
# the tag, folded: "isn't it" / "aren't they" / "doesn't it" / "isn't there", "can't you", "right"
# (not "on the right": a relation), "correct", "is that right", "am i right", "no", ...
_TAG = re.compile(r" (?:(?:is|are|does|do|has|have|was|were|can|could|would) ?not (?:it|they|there|"
                  r"that|this|you|we)(?: think| agree| say| reckon)?|"
                  r"(?:is|was) (?:that|it) (?:right|correct|true|so)|am i right|"
                  r"(?<!the )right|correct|true|(?<!or )(?:yes|no)|yes or no|true or false|"
                  r"or not|yeah|yep|ok|okay|eh|huh|innit)$")
_ASKED = re.compile(r"^(?:is|are|does|do|has|have|can|could|what|which|how)\b")
_HAS = {"has": "have", "holds": "hold", "contains": "contain", "carries": "carry", "sits": "sit",
        "rests": "rest", "lies": "lie", "stands": "stand"}
_SUBJECT = r"((?:the|every|each|all|a|an|some|any)\b(?:(?!\b(?:that|which|who)\b).)*?)"
_STATEMENTS = (
    (re.compile(rf"^{_SUBJECT} (has|have) been (.+)$"), lambda m: f"{m[2]} {m[1]} been {m[3]}"),
    (re.compile(rf"^{_SUBJECT} (is|are) (.+)$"), lambda m: f"{m[2]} {m[1]} {m[3]}"),
    (re.compile(rf"^{_SUBJECT} (has|holds|contains|carries|sits|rests|lies|stands) (.+)$"),
     lambda m: f"does {m[1]} {_HAS[m[2]]} {m[3]}"),
    (re.compile(rf"^{_SUBJECT} (have|hold|contain|carry|sit|rest|lie|stand) (.+)$"),
     lambda m: f"do {m[1]} {m[2]} {m[3]}"),
    (re.compile(r"^(you|we) (?:can )?(see|have) (.+)$"),
     lambda m: f"{'can' if ' can ' in m[0] else 'do'} {m[1]} {m[2]} {m[3]}"),
)


def tag_question(text: str) -> str:
    """"every block is in a bowl, isn't it?", "there's a brown block, right?", "the bowl has a
    block in it, doesn't it?" ask the statement before the tag ("is every block in a bowl").
    Why: the tag's "not" is no negation of the statement (it is a guard word), and the statement
    order is one no phrasing hears. A stem that is no plain statement ("the block that is ...")
    keeps its tag, and so stays refused."""
    tag = _TAG.search(text)
    if tag is None:
        return text
    stem = text[:tag.start()]
    if _ASKED.match(stem):  # "is there a brown block somewhere, isn't there" (folded)
        return stem
    for pattern, asked in _STATEMENTS:
        m = pattern.match(stem)
        if m:
            return asked(m)
    return text


# -- a colour said as a condition of its own --------------------------------------------------
_COLORS = "|".join(ALL_COLORS)
_KINDS = r"blocks?|bowls?|objects?|things?"
# where a condition says a place: a relation, or a posture before one
_WHERE = (r"(?:in|inside|within|on|onto|under|underneath|beneath|below|above|over|left|right|"
          r"to|behind|sitting|resting|lying|stacked|placed|located|standing|kept|put|found|set|"
          r"held|contained|stored|positioned)\b")
_AND_WHERE = re.compile(rf"\b({_KINDS}) ((?:that|which) )?((?:is|are) )?(?:both )?({_COLORS}) and "
                        rf"(?={_WHERE})")
_SOME = frozenset({"any", "a", "an", "some", "there"})  # "is any block white and in a bowl"
_WHERE_AND = re.compile(rf"^how many ((?:of )?(?:the )?)({_KINDS}) (is|are) ({_WHERE}.*?) and "
                        rf"(?:(?:is|are) )?({_COLORS})$")
_WHERE_ARE = re.compile(rf"^how many ((?:of )?(?:the )?)({_KINDS}) ({_WHERE}.*?) (?:is|are) "
                        rf"({_COLORS})$")


def colour_condition(text: str) -> str:
    """"how many of the blocks are white and sitting in a bowl", "... are in a bowl and white",
    "how many blocks in bowls are white", "is there a block that is white and on the stand":
    the colour said as a condition is the colour of the counted kind ("how many of the white
    blocks are sitting in a bowl"). Why: no phrasing hears a colour and a place joined by "and",
    and the frame of two conditions reads like a disjunction's. Only a colour joins, and only a
    place after it ("white and red" stays two colours); a kind already coloured stays as said."""
    m = _WHERE_AND.match(text) or _WHERE_ARE.match(text)
    if m and m.re is _WHERE_AND:
        return f"how many {m[1]}{m[5]} {m[2]} {m[3]} {m[4]}"
    if m:
        return f"how many {m[1]}{m[4]} {m[2]} are {m[3]}"

    def joined(m: re.Match) -> str:
        before = m.string[:m.start()].split()
        if before and before[-1] in ALL_COLORS:
            return m[0]  # "red blocks that are white and ...": two colours
        if not m[3] and not (before and before[-1] in _SOME):
            return m[0]  # "is the block white and in a bowl" asks two things of one block
        return f"{m[4]} {m[1]} {m[2] or ''}{m[3] or ''}"

    return _AND_WHERE.sub(joined, text)


# a second question after a first one's mark: "how many blocks are there? what colour is the
# bowl?" (not a follow-up about it: "there's a block in the bowl? what colour is it?")
_SECOND = re.compile(r"\?+ (?=(?:what|which|how|where|who|why)\b"
                     r"(?!.*\b(?:it|its|they|them|their|that|this)\b))")


# words before a question that do not change it, however many are said, and the one asked
# when named before a question ("hey robot, do we have ...": "robot" names no object)
_FILLERS = re.compile(r"^(?:(?:so|ok|okay|and|hey|hi|hello|yo|now|well|alright|um|uh|hmm|oh) )+")
_ADDRESS = re.compile(r"^(?:robot|bot|buddy|assistant|pal|mate|friend) (?=(?:is|are|do|does|can|"
                      r"could|what|which|how|have|has|any|please)\b)")


def rewrite(text: str) -> str:
    """`text` (folded, respelled) in the plainer words the rules above know."""
    text = _SECOND.sub(" and ", text)  # two questions, said as the reader's guard hears them
    text = _FILLERS.sub("", said_plainly(text))  # the fold peels one ("hey so is every ...")
    text = _ADDRESS.sub("", text)
    for n, (pattern, replacement) in enumerate(_REWRITES):
        text = pattern.sub(replacement, text)
        if n == 0:  # two sentences joined, the tag's statement and a topic said first
            text = fronted(tag_question(text))  # put back before the other rules
    return by_example(colour_condition(" ".join(text.split())))
