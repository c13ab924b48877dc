"""Instruction -> goal for the offline planner: a small, explicit grammar of the task families.

The offline planner stands in for an LLM, so it must read the instructions a person would
type for the benchmark's task families, including paraphrases, and refuse clearly (naming
what it did understand) instead of guessing. Families:

    matching     put the (darker) blocks in the bowls with matching colors
    mismatched   put the blocks in bowls of a different color
    put          put the red block in the blue bowl / stack the red block on the green block
    stack-all    stack all the blocks [on the red block]
    pyramid      stack all the blocks in a 3-2-1 pyramid on the stand
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ravens_env.colors import ALL_COLORS
from runtime.planners.base import PlannerError
from runtime.planners.goal import Goal, Reference  # noqa: F401  (re-exported)
from runtime.planners.intent import color_polarity
from runtime.planners.reasoning_readers import COLOR_WORD, READERS, Context, Memory, Reader, _words
from runtime.planners.scene_state import STAND, kind_of

FAMILIES = ("matching", "mismatched", "put", "stack-all", "pyramid")
# Verbs that say only "move it there": any reader may meet them. A verb with a meaning of its
# own (swap, reverse, empty, tidy, restore, match, give, ...) must be accounted for by the
# reader of that form: shared, "trade them" once passed as the colour reading of "wrong bowls"
# (held-out line ho-swp-001, docs/RESULTS.md).
NEUTRAL_VERBS = ("put", "place", "move", "set", "drop", "get", "take", "grab", "pick", "bring",
                 "transfer", "carry", "lift", "shift", "relocate", "position", "deposit", "lay",
                 "load", "insert", "stow", "store", "slide", "drag", "toss", "pop", "stick",
                 "plop", "tuck", "arrange", "want", "need", "goes", "go", "should")
VERBS = (*NEUTRAL_VERBS, "stack", "sort", "pile", "fill", "organize", "group", "swap", "switch",
         "exchange", "trade", "reverse", "flip", "rebuild", "restack", "turn", "empty", "remove",
         "tidy", "clean", "clear", "give", "restore", "return", "undo", "match", "choose", "find",
         "leave", "mismatch")
BUILD_VERBS = ("build", "make", "create", "form", "assemble")  # only with a structure:
STRUCTURES = ("tower", "pyramid", "stack", "pile")  # "make a tower", not "make me a coffee"
MISMATCH = ("different", "mismatch", "do not match", "does not match", "dont match",
            "doesnt match", "not matching", "non matching", "other color", "another color",
            "wrong", "unmatched", "not the same color", "not their color", "not its color")
MATCH = ("match", "same color", "corresponding", "their color", "its color", "own color",
         "their own", "its own", "correct bowl", "right bowl")
PREPOSITIONS = ("in", "into", "inside", "on", "onto", "to", "atop", "on top of", "over",
                "inside of")
SOURCES = ("from", "out of", "off", "off of")  # "from the blue bowl": not a place
SPATIAL = ("next to", "left of", "right of", "in front of", "behind", "near", "beside",
           "close to", "away from", "under", "below", "above", "around", "between")
UNDERSTOOD = ("put the <block> in|on the <bowl|block>; put the blocks in the bowls with "
              "matching colors (or different colors); stack all the blocks [on the <block>]; "
              "stack the blocks in a pyramid on the stand; every block except the <color> one "
              "in a bowl; exactly <n> blocks in bowls; one block per bowl; the <ordinal> block "
              "/ the block <relation> the <object> in the <bowl>; swap the <block> and the "
              "<block>; put ..., then put every block back where it started; reverse the "
              "tower; tidy up; empty the <bowl>; the <country> flag's / warm / cool / primary "
              "colored blocks in bowls; stack the blocks in rainbow order")
SUGGEST = "the LLM planner (--planner llm) reads free wording"
# A '?' after these is a question; after "could you ..." it is a polite request.
QUESTION_WORDS = {"is", "are", "what", "which", "where", "how", "does", "do", "who", "why",
                  "when", "did", "was", "were", "has", "have"}
# Words every reader may meet: politeness, pronouns, generic verbs, articles, object nouns.
SHARED = _words("please the a an can could would will you i we me us my want need like to "
                "kindly now just and robot hey ok okay it them they is are be should so that "
                "this these those ca wo do does let also sure make end up block blocks bowl "
                "bowls stand", set(NEUTRAL_VERBS), set(BUILD_VERBS))
_REWRITES = (
    (r"colou?rs?", "color"), (r"\bgrey\b", "gray"), (r"\bcubes\b", "blocks"),
    (r"\bcube\b", "block"), (r"n['’]t\b", " not"), (r"['’]s\b", ""),
    (r"\b(dish|basin|container|vessel|receptacle)(e?s)\b", "bowls"),
    (r"\b(dish|basin|container|vessel|receptacle)\b", "bowl"), (r"\bbricks\b", "blocks"),
    (r"\bbrick\b", "block"),
    (r"[^a-z0-9\s]", " "), (r"\s+", " "),
)
# Colors no object has: "the black block" is then a missing object, not an unread phrase.
OTHER_COLORS = ("black", "violet", "magenta", "beige", "silver", "gold", "golden", "navy",
                "teal", "lime", "maroon", "olive", "tan", "indigo", "turquoise", "crimson")
_MENTION = re.compile(r"\b(?:(" + "|".join(ALL_COLORS + OTHER_COLORS)
                      + r") (block|bowl)s?|(stand))\b")


@dataclass(frozen=True)
class _Mention:
    name: str
    start: int
    end: int


def parse_instruction(instruction: str, objects: list[str], memory: Memory | None = None
                      ) -> Goal:
    """Read `instruction` against the scene's `objects` (and what the episode remembers);
    PlannerError when it cannot.

    A reader is used only when every word is one it can account for (`_unread`): a word no
    reader of the triggered forms knows makes the planner refuse and name it, so nothing in the
    instruction is silently dropped."""
    text = normalize(instruction)
    mentions = [_Mention(_name(m), m.start(), m.end()) for m in _MENTION.finditer(text)]
    if _is_question(instruction, text):
        raise PlannerError(f"could not read {instruction!r}: it is a question, not an "
                           f"instruction; {_scene(objects)}")
    verb = _verb(text)
    if verb is None:
        raise PlannerError(f"could not read {instruction!r}: no task verb "
                           f"(put/place/move/stack/build/swap/...) found; {SUGGEST}; "
                           f"{_scene(objects)}")
    _check_known(instruction, mentions, objects)
    ctx = Context(instruction, text, [m.name for m in mentions], objects, memory)
    unread: tuple[str, list[str]] | None = None
    for reader in READERS + _CLASSIC:
        if not reader.trigger(text):
            continue
        words = _unread(text, mentions, reader.vocab)
        if words:
            if unread is None or len(words) < len(unread[1]):
                unread = (reader.name, words)  # the closest form names the fewest words
            continue
        goal = reader.read(ctx)
        if goal is not None:
            return goal
    if unread:
        listed = ", ".join(repr(w) for w in dict.fromkeys(unread[1]))
        raise PlannerError(f"could not read {instruction!r}: the words {listed} are not in my "
                           f"grammar for a {unread[0]} instruction; {SUGGEST}; "
                           f"{_scene(objects)}")
    named = ", ".join(f"the {n}" for n in dict.fromkeys(m.name for m in mentions))
    understood = f"the verb {verb!r}" + (f" and {named}" if named else ", no object names")
    raise PlannerError(f"could not read {instruction!r}: understood {understood}, but no goal "
                       f"I know; I understand: {UNDERSTOOD}; {SUGGEST}; {_scene(objects)}")


def _unread(text: str, mentions: list[_Mention], vocab: frozenset[str]) -> list[str]:
    """Words of `text` that neither the mentions, the shared words nor `vocab` account for."""
    spans = [(m.start, m.end) for m in mentions]
    out = []
    for w in re.finditer(r"\S+", text):
        word = w.group()
        if any(a <= w.start() < b for a, b in spans) or word in SHARED or word in vocab:
            continue
        if word in ALL_COLORS and COLOR_WORD in vocab:
            continue
        out.append(word)
    return out


def _is_question(instruction: str, text: str) -> bool:
    first = text.split()[0] if text.split() else ""
    return instruction.strip().endswith("?") and first in QUESTION_WORDS


def normalize(instruction: str) -> str:
    """Lower case, British spellings and contractions folded, punctuation dropped."""
    text = instruction.lower()
    for pattern, repl in _REWRITES:
        text = re.sub(pattern, repl, text)
    return text.strip()


def _verb(text: str) -> str | None:
    words = text.split()
    found = [w for w in words if w in VERBS] or (["make sure"] if "make sure" in text else [])
    if not found and any(s in words or s + "s" in words for s in STRUCTURES):
        found = [w for w in words if w in BUILD_VERBS or w in STRUCTURES]
    return found[0] if found else None


def _name(m: re.Match) -> str:
    return STAND if m.group(3) else f"{m.group(1)} {m.group(2)}"


def _scene(objects: list[str]) -> str:
    return f"objects in the scene: {', '.join(objects) or 'none'}"


def _check_known(instruction: str, mentions: list[_Mention], objects: list[str]) -> None:
    missing = [m.name for m in mentions if m.name not in objects]
    if missing:
        names = " and the ".join(dict.fromkeys(missing))
        verb = "is" if len(set(missing)) == 1 else "are"
        raise PlannerError(f"{instruction!r} names the {names}, which {verb} not in the scene; "
                           f"{_scene(objects)}")


def _blocks(objects: list[str]) -> tuple[str, ...]:
    return tuple(o for o in objects if kind_of(o) == "block")


def _prep(place: str) -> str:
    return "in" if kind_of(place) == "bowl" else "on"


def _pyramid(instruction: str, text: str, mentions: list[_Mention], objects: list[str]
             ) -> Goal | None:
    if "pyramid" not in text:
        return None
    blocks = _blocks(objects)
    if STAND not in objects:
        raise PlannerError(f"{instruction!r} asks for a pyramid on the stand, but there is no "
                           f"stand; {_scene(objects)}")
    if len(blocks) < 6:
        raise PlannerError(f"{instruction!r} asks for a 3-2-1 pyramid, which needs 6 blocks; "
                           f"there are {len(blocks)}; {_scene(objects)}")
    return Goal("pyramid", instruction, blocks=blocks)


def _color_bowls(instruction: str, text: str, mentions: list[_Mention], objects: list[str]
                 ) -> Goal | None:
    """Every block into a bowl of its own colour or of another. The polarity is read per
    clause, a negation turning a clause's same-colour words into different-colour ones
    (`intent.color_polarity`): "bowls that don't share their colour" is mismatched, and "so
    that no block sits in a bowl of a different colour" is matching."""
    if "bowl" not in text or "block" not in text:
        return None
    polarity = color_polarity(instruction)
    if polarity is None:
        return None
    mismatched = polarity == "different"
    if any(kind_of(m.name) == "bowl" for m in mentions):
        return None  # a named bowl is not "the bowls by colour"
    named = tuple(m.name for m in mentions if kind_of(m.name) == "block")
    blocks = tuple(dict.fromkeys(named)) or _blocks(objects)
    bowls = tuple(o for o in objects if kind_of(o) == "bowl")
    darker = bool(re.search(r"\bdark", text))
    if not blocks:
        raise PlannerError(f"{instruction!r}: there are no blocks to put in bowls; "
                           f"{_scene(objects)}")
    if mismatched:
        if len(blocks) > len(bowls):
            raise PlannerError(f"{instruction!r} needs one bowl per block: {len(blocks)} "
                               f"blocks, {len(bowls)} bowls; {_scene(objects)}")
        return Goal("mismatched", instruction, blocks=blocks, bowls=bowls, darker=darker)
    pairs = tuple((b, b.replace(" block", " bowl")) for b in blocks
                  if b.replace(" block", " bowl") in bowls)
    if not pairs:
        raise PlannerError(f"{instruction!r}: no block has a bowl of its color; "
                           f"{_scene(objects)}")
    unmatched = tuple(b for b in blocks if b not in dict(pairs))
    return Goal("matching", instruction, pairs=pairs, blocks=blocks, bowls=bowls,
                darker=darker, unmatched=unmatched)


def _put(instruction: str, text: str, mentions: list[_Mention], objects: list[str]
         ) -> Goal | None:
    """'put the X block in/on the Y' pairs, read left to right (several are allowed): a block
    named outside a prepositional phrase is picked, the next object after in/on/to is its
    place ("from the Y" is where it comes from, and "next to the Y" is refused)."""
    pairs: list[tuple[str, str]] = []
    pending: str | None = None
    previous_end = 0
    for m in mentions:
        lead = _lead(text[previous_end:m.start])
        previous_end = m.end
        if any(lead.endswith(p) for p in SPATIAL):
            raise PlannerError(f"{instruction!r}: I can put a block in or on an object, not "
                               f"{lead.split()[-2:][0]} {lead.split()[-1]} it; {_scene(objects)}")
        if any(lead.endswith(p) for p in SOURCES):
            continue
        if any(lead == p or lead.endswith(" " + p) for p in PREPOSITIONS):
            if pending and kind_of(m.name) in ("bowl", "block"):
                if pending == m.name:
                    raise PlannerError(f"{instruction!r} asks to put the {m.name} on itself")
                pairs.append((pending, m.name))
            pending = None
        elif kind_of(m.name) == "block":
            pending = m.name
    if not pairs:
        return None
    picks = [b for b, _ in pairs]
    if len(set(picks)) < len(picks):
        raise PlannerError(f"{instruction!r} asks to put one block in two places: "
                           + ", ".join(f"{b} {_prep(p)} {p}" for b, p in pairs))
    return Goal("put", instruction, pairs=tuple(pairs))


def _lead(segment: str) -> str:
    """The last words before a mention, articles dropped: '... put it in the' -> '... in'."""
    words = segment.split()
    while words and words[-1] in ("the", "a", "an"):
        words.pop()
    return " ".join(words[-4:])


def _stack_all(instruction: str, text: str, mentions: list[_Mention], objects: list[str]
               ) -> Goal | None:
    words = set(text.split())
    tower = bool(words & {"tower", "pile"})
    stacking = tower or bool(words & {"stack", "stacked"})
    generic = tower or bool(words & {"all", "every", "each", "blocks"})
    named = list(dict.fromkeys(m.name for m in mentions if kind_of(m.name) == "block"))
    if not generic or not (stacking or (named and " on " in f" {text} ")):
        return None
    if len(named) > 1:
        raise PlannerError(f"{instruction!r}: a tower of all the blocks can start on one block, "
                           f"but it names {' and '.join(named)}; {_scene(objects)}")
    blocks = _blocks(objects)
    if len(blocks) < 2:
        raise PlannerError(f"{instruction!r}: a tower needs two blocks; {_scene(objects)}")
    return Goal("stack-all", instruction, blocks=blocks, base=named[0] if named else None)


def _classic(name: str, trigger: str, vocab: str, reader) -> Reader:
    def read(ctx: Context) -> Goal | None:
        mentions = [_Mention(_name(m), m.start(), m.end()) for m in _MENTION.finditer(ctx.text)]
        return reader(ctx.instruction, ctx.text, mentions, ctx.objects)

    return Reader(name, lambda text: re.search(trigger, text) is not None, _words(vocab), read)


_COLOR_WORDS = ("sort organize group mismatch same match matching matches matched own "
                "corresponding identical correct right different differently differing differ "
                "differs mismatch mismatched mismatching mismatches unmatched nonmatching non "
                "wrong another other than contrasting unlike not no never none nothing neither "
                "nor without color colors colored its their each every all in into inside of by "
                "with that which whose share shares sharing sort sits sit sitting up from one "
                "per both has have but darker dark lighter light shaded shade version even "
                "though mix them to bowls blocks where isn are is the a s")
_CLASSIC = (
    _classic("pyramid", r"\bpyramid\b", "stack pile pyramid 3 2 1 three two one six 6 level "
             "levels row bottom middle top above them on stand with from all of out in at a "
             "as into blocks block the", _pyramid),
    _classic("colour-bowls", r"\bbowls?\b", _COLOR_WORDS, _color_bowls),
    _classic("put", r"\b(block|bowl)\b", "stack pile in into inside on onto to atop top of "
             "over from out off then and it goes", _put),
    _classic("stack", r"\b(stack|stacked|tower|pile|piled|top)\b|\bblocks on\b", "stack "
             "stacked tower pile piled all every each on top of one another other into in a "
             "single with at bottom as base starting from use until they form out build",
             _stack_all),
)
