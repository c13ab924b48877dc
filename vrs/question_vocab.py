"""The words of the question language: colors, object names, relations, types, and synonyms.

Each parameter *kind* maps canonical values (what programs hold: "left", "red block") to the
phrases that may say them ("to the left of", "left of"); the first phrase is canonical. The
parser accepts every phrase, the renderer picks among them, so both read from one table.

Some phrases are *heard* only (`Kind.heard`): the parser accepts them, the renderer never says
them ("blocks" after "is there any", "in back of" for "behind"), so generated data and the
tokenizer trained on it stay as they were. Likewise `normalize` folds what the renderer says
("grey", "an") and the tokenizer sees, whereas `fold_question` folds further spellings only on
the parser's side ("cube", "what's", "different-coloured", "can you tell me if ...", "i'd like
to know what colour the X is": a polite frame peeled off, an embedded question's word order
restored). `normalize_answer` is the answer side: equivalent answers ("grey", "Gray.", "none"
/ "nothing", "two" / "2", lists in any order) to one form.

Names follow the simulator's scene ("<color> block", "<color> bowl", "stand", "table") and
relation ids follow `ravens_env.scene_graph` (which, like this module, does not import
PyBullet, so a VQA service using the language stays light).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ravens_env.colors import ALL_COLORS
from ravens_env.scene_graph import TABLE

NOTHING = "nothing"
DIRECTIONS = ("left", "right", "front", "behind")
SUPPORT_RELATIONS = ("in", "on", "above", "below")
RELATIONS = SUPPORT_RELATIONS + DIRECTIONS
OBJECT_TYPES = ("block", "bowl", "stand")
ANSWER_TYPES = ("yes/no", "color", "count", "object", "objects")

# Words rewritten before parsing: spelling variants and the article before a vowel.
WORD_SYNONYMS = {"grey": "gray", "colour": "color", "colours": "colors", "an": "a"}

# Generic anchors: "in a bowl" / "in bowls" is Relation(S, rel, B) for some bowl B (not S).
# Programs hold them as anchor values; only parse-only phrasings hear them.
GROUPS = {"any bowl": "bowl", "any block": "block"}

# Parse-side word folds, after `normalize` (see the module docstring): never in rendered text.
PARSE_WORDS = {
    "cube": "block", "cubes": "blocks", "item": "object", "items": "objects",
    "brick": "block", "bricks": "blocks", "dish": "bowl", "dishes": "bowls",
    "coloured": "colored", "what's": "what is", "whats": "what is", "what're": "what are",
    "where's": "where is", "that's": "that is", "there's": "there is", "it's": "it is",
    "isn't": "is not", "aren't": "are not", "don't": "do not", "doesn't": "does not",
    "can't": "cannot", "color's": "color is", "colour's": "color is", "block's": "block is",
    "cube's": "block is", "bowl's": "bowl is", "stand's": "stand is",
    # the frames "i'd like to know", "i'm wondering"; "hasn't" / "haven't" so that the negation
    # of a perfect ("hasn't the red block been put in the bowl?") is named as one and refused
    "i'd": "i would", "i'm": "i am", "hasn't": "has not", "haven't": "have not",
    # the same negations typed without the apostrophe ("what isnt in the bowl"): a negation
    # still, to be named and refused, never a word the reader drops
    "isnt": "is not", "arent": "are not", "dont": "do not", "doesnt": "does not",
    "cant": "cannot", "hasnt": "has not", "havent": "have not", "wasnt": "was not",
    "werent": "were not", "didnt": "did not", "wont": "will not", "aint": "is not",
    "shouldnt": "should not", "couldnt": "could not", "wouldnt": "would not",
    # the scene's objects in other people's words: the stand is the one raised flat thing
    # ("platform", "board", "pedestal"), a bowl any open vessel ("container", "basin")
    "platform": "stand", "platforms": "stands", "board": "stand", "boards": "stands",
    "pedestal": "stand", "pedestals": "stands", "container": "bowl", "containers": "bowls",
    "basin": "bowl", "basins": "bowls",
    # run-together and clipped words: "infront of", "a diff colour bowl"
    "infront": "in front", "ontop": "on top", "inbetween": "in between", "diff": "different",
    "dif": "different", "what've": "what have", "we've": "we have", "you've": "you have",
    "pls": "please", "plz": "please", "kindly": "please",
}
# Parse-side phrase rewrites, in order: a polite or embedded question becomes the question.
# Why in order: a frame is peeled from the front ("please", "can you", "tell me", "if"), each
# rule seeing what the one before it left.
_ASK_VERBS = (r"(?:list|name|enumerate|identify|count|tell|show|give|let|check|confirm|verify|"
              r"determine|find out|work out|figure out|say)\b|see (?:if|whether)\b")
_FRAMES = (
    # a word before the question that does not change it: "so how many ...", "ok, is there ..."
    (re.compile(r"^(?:so|ok|okay|and|hey|now|well|right|alright) "), ""),
    # a statement put up for confirmation: "am i right that the X is Y", "would you say the X
    # is Y", "is it true that ..." -> "whether the X is Y" (then question order, below)
    (re.compile(r"^(?:am i right (?:in thinking )?(?:that )?|is it (?:true|correct|right) that |"
                r"would you say (?:that )?|do you think (?:that )?|would you agree (?:that )?|"
                r"(?:confirm|verify|check) that |any chance (?:that )?)"), "whether "),
    # "please", and "can you (please)" / "could you" before a verb that asks ("could you check
    # if ..."); "can you see" only before "if" / "whether": "can you see a red block?" is itself
    # a question, and "could you put ..." an instruction (refused)
    (re.compile(r"^(?:please )?(?:(?:can|could|would|will) you (?:please )?"
                rf"(?=(?:{_ASK_VERBS})))?"), ""),
    # "would you mind telling me ...", "do you mind checking whether ..."
    (re.compile(r"^(?:would|do) you mind (?=(?:telling|showing|checking) )"), ""),
    # ... but not before the objects to list: "tell me all the objects" is itself a question
    (re.compile(r"^(?:(?:tell|show|telling|showing) me (?:please )?|let me know )"
                r"(?!(?:the |all |all the |all of the |every |each |each of the |every single )?"
                r"(?:objects?|things?|everything)\b)"), ""),
    # a verb of finding out, only before "if" / "whether" ("check the blocks" is not a frame)
    (re.compile(r"^(?:check|checking|see|confirm|verify|determine|find out|work out|figure out|"
                r"tell|say) (?=(?:if|whether) )"), ""),
    # "i'd like to know", "i was wondering", "do you happen to know", "any idea"
    (re.compile(r"^(?:i (?:want|would like|would love|need) to know|i (?:am |was )?wondering|"
                r"i wonder|i am curious|do you (?:happen to )?know|any idea) "), ""),
    # "(can you) count how many blocks are in the bowl" asks "how many blocks are in the bowl"
    (re.compile(r"^count (?=how many )"), ""),
    # ... and inside a wh-question: "what color would you say the X is" -> "what color the X
    # is" (an embedded question, reordered below)
    (re.compile(r"^((?:what|which|how many)\b.*?) (?:would you say|do you think)(?: that)? "),
     r"\1 "),
)
# Statement word order after "if" / "whether" (with or without a frame): "if the X is in Y" ->
# "is the X in Y"; the perfect too ("whether the X has been put in Y" -> "has the X been put
# in Y"); "whether the bowl has / holds / contains X" -> "does the bowl have / hold / contain X".
_HAVE = {"has": "have", "holds": "hold", "contains": "contain", "carries": "carry"}
_IF = (
    (re.compile(r"^whether there (is|are) "), r"\1 there "),
    (re.compile(r"^(?:if|whether) (.+?) (is|are|does|do|(?:has|have)(?= (?:all |each )?been\b)) "
                r"(.+)$"), r"\2 \1 \3"),
    (re.compile(r"^(?:if|whether) (the (?:\S+ )?\S+) (has|holds|contains|carries) (?!been\b)(.+)$"),
     lambda m: f"does {m[1]} {_HAVE[m[2]]} {m[3]}"),
)
# Statement word order of an embedded wh-question, restored only after a frame was peeled off
# (so a direct question is never reordered): "(tell me) what colour the X is" -> "what color is
# the X", "how many X there are" -> "how many X are there", "which bowl the X is in" -> "which
# bowl is the X in", "how many blocks the bowl holds" -> "how many blocks does the bowl hold".
_WH = r"(?:what|which)(?: block| bowl| object| thing| one| color block| color bowl)?"
_EMBEDDED = (
    (re.compile(rf"^(how many .+?|{_WH}) there (is|are)\b"), r"\1 \2 there"),
    (re.compile(r"^(what|which) color (the .+) (is|are)$"), r"\1 color \3 \2"),
    (re.compile(r"^what the color of (.+) (?:is|are)$"), r"what is the color of \1"),
    (re.compile(rf"^({_WH}) (the .+?) (is|are) ?(.*)$"), r"\1 \3 \2 \4"),
    (re.compile(rf"^({_WH}) (the .+?) (has|have) been ?(.*)$"), r"\1 \3 \2 been \4"),
    (re.compile(r"^how many (\S+(?: \S+)?) (the (?:\S+ )?\S+) (has|holds|contains|carries)\b"),
     lambda m: f"how many {m[1]} does {m[2]} {_HAVE[m[3]]}"),
    (re.compile(r"^(what|which)( objects| things)? you (can )?see\b"),
     lambda m: f"{m[1]}{m[2] or ''} {'can' if m[3] else 'do'} you see"),
)
_TIDY = (
    (re.compile(r" please$"), ""),
    (re.compile(r"\binside of\b"), "inside"),
)
_COLOR_WORDS = "|".join(ALL_COLORS)
_REL_WORDS = (r"in front of|behind|to the left of|to the right of|left of|right of|on top of|"
              r"inside|in|on|under|underneath|beneath|below|above|over")
# Everyday and non-native forms of the language's questions, one rule per form (parse side
# only; applied after the frames): each rewrites to a form the templates hear.
_FORMS = (
    # words after the question that do not change it
    (re.compile(r"(?: (?:by any chance|somewhere|about|around|then|at the moment|right now|"
                r"at present|currently|here))+$"), ""),
    # a statement with a question mark: "there is a red block left of the bowl?"
    (re.compile(r"^there (is|are) "), r"\1 there "),
    (re.compile(r"^(?:have|has) (?:you|we) got (a|any|some) "), r"is there \1 "),
    (re.compile(r"^(?:has|did) (?:anyone|anybody|someone|somebody) (?:left|leave) "
                r"(a|any|some) "), r"is there \1 "),
    (re.compile(r"^(?:can|could|do) (?:you|we|i) (?:spot|find|notice|make out) "), "can you see "),
    # "how much blocks", "how many blocks there are (on the table)"
    (re.compile(r"^how much (\S+s)\b"), r"how many \1"),
    (re.compile(r"^how many (\S+(?: \S+)?) there (?:is|are)$"), r"how many \1 are there"),
    (re.compile(r"^how many (\S+(?: \S+)?) there (?:is|are) (.+)$"), r"how many \1 are \2"),
    (re.compile(r"^how many (.+?) (?:have|do) (?:you|we) (?:got|have|see|count)(?: here| there)?$"),
     r"how many \1 are there"),
    # a relation put first: "in front of the stand, how many blocks are there?"
    (re.compile(rf"^((?:{_REL_WORDS}) the \S+(?: (?:block|bowl))?) (how many .+?) (?:are|is) "
                r"there$"), r"\2 are \1"),
    (re.compile(rf"^((?:{_REL_WORDS}) the \S+(?: (?:block|bowl))?) (is|are) there (.+)$"),
     r"\2 there \3 \1"),
    # a topic first: "the red block, it is in the bowl?", "the bowl behind X: what colour is it?"
    (re.compile(r"^(the (?:\S+ )?(?:block|bowl|stand)) (?:it|that) (is|are) "), r"\2 \1 "),
    (re.compile(r"^(the .+?) (?:what|which) color is (?:it|that|this)$"), r"what color is \1"),
    (re.compile(rf"^((?:{_REL_WORDS}) the .+?) there is (?:a|an|one) (block|bowl|object|thing) "
                r"(?:what|which) color is (?:it|that)$"), r"what color is the \2 \1"),
    (re.compile(r"^of what color "), "what color "),
    (re.compile(r"^(?:which|what) color (?:does|do) (the .+) have$"), r"what color is \1"),
    (re.compile(r"^(?:which|what) color (?:has|have) (the .+)$"), r"what color is \1"),
    # "what do we have above X", "what can be found over X", "what have we got on the table"
    (re.compile(r"^what (?:do|have|did) (?:we|you) (?:have|got|see) (?!there\b)"), "what is "),
    (re.compile(r"^what can (?:be|you) (?:found|seen|find|see) (?=(?:" + _REL_WORDS + r") )"),
     "what is "),
    # "the bowl that is purple" -> "the purple bowl"; "that bowl" -> "the bowl"
    (re.compile(rf"\bthe (block|bowl) (?:that|which) (?:is|are) ({_COLOR_WORDS})\b"),
     r"the \2 \1"),
    (re.compile(r"\b(?:that|this) (block|bowl|stand|object|thing)\b"), r"the \1"),
    # "the bowl that the X has been dropped into" -> "the bowl that the X is in"
    (re.compile(r"\b(that|which) (the (?:\S+ )?(?:block|bowl|stand)) (?:has|had) been (?:dropped|"
                r"put|placed|moved|set|stacked|left) (into|in|inside|onto|on|on top of)$"),
     lambda m: f"{m[1]} {m[2]} is {'on' if m[3].startswith('on') else 'in'}"),
    # a dropped article: "inside blue bowl", "on table", "in bowl"
    (re.compile(rf"\b({_REL_WORDS}|of) ((?:{_COLOR_WORDS}) (?:block|bowl)|stand|table)\b"),
     r"\1 the \2"),
    (re.compile(r"\b(in|inside|into) bowl$"), r"\1 a bowl"),
    (re.compile(r"^is all "), "are all "),
    (re.compile(r"^did (every|each) (block|bowl) (?:end up|get put|get|go|land) "), r"is \1 \2 "),
    (re.compile(r"^did (all the|all of the|all|the) (blocks|bowls) (?:all )?(?:end up|get put|get|"
                r"go|land) "), r"are \1 \2 "),
    # all_in, said another way: "of a different colour than themselves", "whose colour differs
    # from its own", "of mismatched colours", "with the same colour as them"
    (re.compile(r"\b(bowls?) (?:of|with|in) (?:a )?(?:different|another|other) colors? "
                r"(?:than|from|to) (?:themselves|itself|them|it|the blocks?|their own|its own)\b"),
     r"\1 of a different color"),
    (re.compile(r"\b(bowls?) whose colors? (?:differs?|is different|are different) "
                r"(?:from|than|to) (?:its|their) own\b"), r"\1 of a different color"),
    (re.compile(r"\b(bowls?) of mismatched colors?\b"), r"\1 of a different color"),
    (re.compile(r"\b(bowls?) (?:with|of) the same colors? as (?:them|themselves|it|itself|"
                r"the blocks?)\b"), r"\1 of the same color"),
    # what is on the table, with every word people add
    (re.compile(r"\btabletop\b"), "table"),
    (re.compile(r"^(?:give me|i would like|i want|i need|(?:can|could) i (?:have|get)|"
                r"(?:can|could) you give me|make) a list of "), "list "),
)


# The scene holds no box: a "box" is one of its blocks (closed, of one colour), except where
# something is said to be in it ("what is in the box"): a container the scene lacks, refused.
_BOXES = re.compile(r"\b((?:in|inside|into|within) (?:the |a |any |some |one of the )?"
                    r"(?:\w+ )?)?box(es)?\b")


def _box(m: re.Match) -> str:
    """A box said of a block as the block, one said as a container as it was."""
    return m[0] if m[1] else "blocks" if m[2] else "block"


@dataclass(frozen=True)
class Kind:
    """A parameter kind: `phrases[value]` are the ways to say `value`, canonical first."""

    name: str
    phrases: dict[str, tuple[str, ...]]
    label: str  # how the kind appears in a listed form, e.g. "<relation>"
    heard: dict[str, tuple[str, ...]] = field(default_factory=dict)  # parse-only phrases

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(self.phrases)

    def all_phrases(self) -> dict[str, tuple[str, ...]]:
        """Every phrase the parser hears per value: the said ones, then the heard-only ones."""
        return {v: self.phrases[v] + self.heard.get(v, ()) for v in self.phrases}

    def value_of(self, phrase: str) -> str:
        """The canonical value a phrase says (the phrase must be one of this kind's)."""
        for value, options in self.all_phrases().items():
            if phrase in options:
                return value
        raise KeyError(f"{phrase!r} is not a {self.name}")

    def regex(self) -> str:
        """Alternation of every phrase (heard-only ones included), longest first."""
        options = sorted({p for ps in self.all_phrases().values() for p in ps},
                         key=len, reverse=True)
        return "|".join(re.escape(p) for p in options)


def _object_names() -> dict[str, tuple[str, ...]]:
    names = {f"{c} {t}": (f"{c} {t}",) for t in ("block", "bowl") for c in ALL_COLORS}
    names["stand"] = ("stand",)
    return names


_RELATION_PHRASES = {
    "in": ("in", "inside"),
    "on": ("on", "on top of"),
    "above": ("above", "over"),
    "below": ("below", "under", "beneath", "underneath"),
    "left": ("left of", "to the left of", "on the left of"),
    "right": ("right of", "to the right of", "on the right of"),
    "front": ("in front of",),
    "behind": ("behind",),
}

# Heard, never said: other ways to put a relation, and the number a person did not agree.
_RELATION_HEARD = {
    "in": ("within", "into"),  # "into" / "onto": after a verb of putting ("been put into")
    "on": ("onto",),
    "behind": ("in back of", "at the back of"),
    "left": ("on the left side of", "to the left side of", "to the left hand side of"),
    "right": ("on the right side of", "to the right side of", "to the right hand side of"),
}
_SINGULAR = {**{t: (t,) for t in OBJECT_TYPES}, "object": ("object", "thing")}
_PLURAL = {**{t: (t + "s",) for t in OBJECT_TYPES}, "object": ("objects", "things")}
_PLACES = {**_object_names(), TABLE: (TABLE,)}
_GROUP_PHRASES = {
    "any bowl": ("a bowl", "bowls", "any bowl", "any bowls", "the bowls", "any of the bowls",
                 "one of the bowls", "some bowl", "some bowls", "a bowl of any color"),
    "any block": ("another block", "a block", "other blocks", "any block", "blocks",
                  "any other block", "other block", "another one", "the other blocks",
                  "one of the blocks", "one of the other blocks", "any of the other blocks",
                  "some other block", "some block", "a different block"),
}

KINDS: dict[str, Kind] = {
    "obj": Kind("obj", _object_names(), "<object>"),
    "place": Kind("place", _PLACES, "<object or table>"),
    "rel": Kind("rel", _RELATION_PHRASES, "<relation>", _RELATION_HEARD),
    "color": Kind("color", {c: (c,) for c in ALL_COLORS}, "<color>"),
    "type": Kind("type", _SINGULAR, "<block|bowl|stand|object>", _PLURAL),
    "types": Kind("types", _PLURAL, "<blocks|bowls|stands|objects>", _SINGULAR),
    # parse-only phrasings only: a place, or any bowl / any block ("in bowls", "on another block")
    "anyplace": Kind("anyplace", {**_PLACES, **_GROUP_PHRASES}, "<object, table, a bowl or "
                     "another block>"),
    # parse-only: what a counted object holds ("how many bowls have a block in them?")
    "content": Kind("content", {**_object_names(), **_GROUP_PHRASES}, "<object, a bowl or "
                    "another block>"),
}


def normalize(text: str) -> str:
    """Lower case, single spaces, no trailing '?', '.' or '!', synonyms of single words folded.
    What the tokenizer sees too: keep it as it is (its corpus must stay byte-identical)."""
    words = re.sub(r"[?.!\s]+$", "", text.strip().lower()).split()
    return " ".join(WORD_SYNONYMS.get(w, w) for w in words)


# a label before a colon that names nothing ("quick check: any purple blocks?", "question: how
# many ..."): dropped only when a question starts after it, so "in the blue bowl: what colour
# is the block?" keeps its place and "blocks: how many?" stays unreadable
_LABEL = re.compile(r"^\s*((?:[A-Za-z']+ ?){1,3}):\s*(?=(?:is|are|any|how|what|which|do|does|"
                    r"can|could|where|who|list|count|tell|name)\b)", re.IGNORECASE)
_NAMING = frozenset({*ALL_COLORS, "grey", "block", "blocks", "bowl", "bowls", "cube", "cubes",
                     "box", "boxes", "stand", "table", "object", "objects", "thing", "things"})


def _label_dropped(text: str) -> str:
    m = _LABEL.match(text)
    if m and not _NAMING & set(m[1].lower().split()):
        return text[m.end():]
    return text


def fold_question(text: str) -> str:
    """`normalize`, then the parser's own folds: curly quotes, commas, hyphens between words
    ("different-coloured"), contractions, synonyms ("cube", "item", "box"), politeness and embedded
    questions ("can you tell me if the X is in Y" -> "is the X in Y", "i'd like to know what
    colour the X is" -> "what color is the X"). Never changes a rendered question (they hold
    none of these words)."""
    text = _label_dropped(text.replace("\u2019", "'").replace("\u2018", "'"))
    text = re.sub(r"[,;:]", " ", text)
    # why: "same-colored" / "different-coloured" / "left-hand" are the spaced words the
    # phrasings hear; a rendered question holds no hyphen
    text = normalize(re.sub(r"(?<=[a-z])-(?=[a-z])", " ", text, flags=re.IGNORECASE))
    text = _BOXES.sub(_box, " ".join(PARSE_WORDS.get(w, w) for w in text.split()))
    framed = text
    for pattern, replacement in _FRAMES:
        text = pattern.sub(replacement, text)
    framed = text != framed
    for pattern, replacement in _IF:
        text = pattern.sub(replacement, text)
    if framed:
        for pattern, replacement in _EMBEDDED:
            text = pattern.sub(replacement, text)
    for pattern, replacement in _TIDY + _FORMS:
        text = pattern.sub(replacement, text)
    return normalize(text)


# -- the answer side -------------------------------------------------------------------------
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                 "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
                 "seventeen", "eighteen", "nineteen", "twenty")
_NUMBERS = {w: str(n) for n, w in enumerate(_NUMBER_WORDS)}
_NOTHING_WORDS = ("none", "nothing", "no object", "no objects", "no block", "no blocks",
                  "no bowl", "no bowls", "nothing at all", "there is nothing", "empty", "n/a")
ANSWER_WORDS = {
    **_NUMBERS, **dict.fromkeys(_NOTHING_WORDS, NOTHING),
    **dict.fromkeys(("yes", "yeah", "yep", "true", "correct"), "yes"),
    **dict.fromkeys(("no", "nope", "false", "incorrect"), "no"),
}
_NAME_WORDS = {"grey": "gray", "cube": "block", "cubes": "block", "blocks": "block",
               "bowls": "bowl"}
_COUNTED = re.compile(r"^(\d+|" + "|".join(_NUMBER_WORDS) + r")(?: \w+)? "
                      r"(?:objects?|things?|items?|blocks?|cubes?|bowls?|stands?)$")


def normalize_answer(text: object, answer_type: str | None = None) -> str:
    """One form for equivalent answers: lower case, no surrounding spaces or final '.', '!',
    numbers as digits ("two", "2 blocks" -> "2"), "none" / "no objects" -> "nothing" ("0" for
    a count), "Yes." / "yeah" -> "yes", "grey" -> "gray", "cube" -> "block", "the red block"
    -> "red block", and a list ("a, b and c", "c, b, a") as its items sorted and joined by
    ", " (how list_objects answers). Answers of `question_exec` are already in this form."""
    text = re.sub(r"[.!?\s]+$", "", str(text).strip().lower().replace("\u2019", "'"))
    items = [i for i in re.split(r"\s*(?:,|;|&|\band\b)\s*", text) if i.strip()]
    if len(items) > 1:
        return ", ".join(sorted({_answer_item(i) for i in items} - {NOTHING})) or NOTHING
    answer = _answer_item(text)
    if answer_type == "count" and answer in (NOTHING, "no"):
        return "0"
    return answer


def _answer_item(text: str) -> str:
    text = " ".join(text.split())
    if text in ANSWER_WORDS:
        return ANSWER_WORDS[text]
    counted = _COUNTED.match(text)
    if counted:
        return _NUMBERS.get(counted[1], counted[1])
    text = re.sub(r"^(?:the|a|an) ", "", text)
    text = " ".join(_NAME_WORDS.get(w, w) for w in text.split())
    return ANSWER_WORDS.get(text, text)


def same_answer(a: object, b: object, answer_type: str | None = None) -> bool:
    """Whether two answers say the same: equal after `normalize_answer`."""
    return normalize_answer(a, answer_type) == normalize_answer(b, answer_type)


def vocabulary_hint() -> str:
    """One paragraph naming the values each slot of a form may take (for error messages)."""
    relations = ", ".join(p[0] for p in _RELATION_PHRASES.values())
    return (f"<object> is '<color> block', '<color> bowl' or 'stand'; <color> is one of "
            f"{', '.join(ALL_COLORS)}; <relation> is one of {relations}. After 'is there', "
            f"'how many' and 'is the <object>', the <object or table> may also be 'a bowl' "
            f"(any bowl) or 'another block' (any block).")
