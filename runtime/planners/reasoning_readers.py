"""Readers for the reasoning suite's instructions: references, counting, negation, memory,
common sense and world knowledge, each a small grammar that reads its form or declines.

Why small grammars with their own word lists, not keywords: the offline planner must never
misread. A reader is tried only when its trigger words are there, and it is used only when
every word of the instruction is one it (or the shared vocabulary) can account for
(`instruction_parser` checks that); any other word makes the planner refuse, naming it. So
"every block except the red one" can never be read as "the red block", and "put the blocks in
bowls if you feel like it" is refused instead of obeyed without its condition.

World knowledge is stated here once, with its sources of doubt: flags (only flags whose every
colour exists in the simulator), the rainbow order (red, orange, yellow, green, blue, purple),
warm (red, orange, yellow) and cool (blue, green, purple, cyan) colours, and the painter's
primaries (red, yellow, blue). Borderline colours (pink, brown, white, gray for warm/cool;
green for primary, which RGB calls primary) make the reader refuse rather than guess.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

from ravens_env.colors import ALL_COLORS, COOL, PRIMARY, RAINBOW, WARM
from ravens_env.colors import FLAGS as _FLAGS
from runtime.planners.base import PlannerError
from runtime.planners.goal import Goal, Reference
from runtime.planners.scene_state import TABLE, color_of, kind_of

FLAGS = {country.lower(): (adjective.lower(), colors)
         for country, (adjective, colors) in _FLAGS.items()}
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "1": 1, "2": 2, "3": 3,
           "4": 4, "5": 5, "single": 1}
ORDINALS = {"leftmost": "leftmost", "rightmost": "rightmost",
            "second from the left": "second from the left",
            "second from the right": "second from the right",
            "second from left": "second from the left",
            "second from right": "second from the right",
            "second block from the left": "second from the left",
            "second block from the right": "second from the right"}
RELATIONS = ("left of", "right of", "in front of", "behind")
COLOR_WORD = "<color>"  # in a vocabulary: bare colour words are accounted for

_BOWLS_DEST = {"in", "into", "inside", "a", "bowl", "bowls", "the", "to", "each", "one"}
_SUBSET_WORDS = {"every", "all", "each", "block", "blocks", "with", "whose", "that", "are",
                 "is", "of", "in", "into", "the", "bowl", "bowls", "a", "go", "goes", "only",
                 "should", "end", "up", "leave", "others", "other", "out", "rest", "stay",
                 "stays", "where", "it", "they", "ones", "one", "and", "color", "colors",
                 "colored", "have", "has", "on", "those", "its", "their"}


@dataclass(frozen=True)
class Memory:
    """What the planner remembers of the episode: each block's place before any action
    (perceived then; 'table' when no fact), and the puts executed so far."""

    initial: dict[str, str]
    history: tuple[tuple[str, str], ...] = ()
    now: dict[str, str] | None = None  # each block's place as perceived now


@dataclass(frozen=True)
class Context:
    instruction: str
    text: str  # normalized
    mentions: list[str]  # object names mentioned, in order
    objects: list[str]
    memory: Memory | None

    @property
    def blocks(self) -> list[str]:
        return [o for o in self.objects if kind_of(o) == "block"]

    @property
    def bowls(self) -> list[str]:
        return [o for o in self.objects if kind_of(o) == "bowl"]

    def refuse(self, why: str) -> PlannerError:
        return PlannerError(f"{self.instruction!r}: {why}; objects in the scene: "
                            f"{', '.join(self.objects) or 'none'}")


@dataclass(frozen=True)
class Reader:
    """One instruction form: `trigger` says whether to try it, `vocab` the words it accounts
    for (besides the shared ones), `read` the Goal (None: not this form after all)."""

    name: str
    trigger: Callable[[str], bool]
    vocab: frozenset[str]
    read: Callable[[Context], Goal | None]


def _words(*groups: str | set[str]) -> frozenset[str]:
    out: set[str] = set()
    for g in groups:
        out |= set(g.split()) if isinstance(g, str) else g
    return frozenset(out)


def _has(pattern: str) -> Callable[[str], bool]:
    regex = re.compile(pattern)
    return lambda text: regex.search(text) is not None


def _colors_in(text: str) -> list[str]:
    return re.findall(r"\b(" + "|".join(ALL_COLORS) + r")\b", text)


def _subset_goal(ctx: Context, chosen: list[str], note: str) -> Goal:
    """Blocks `chosen` into bowls (one each); every other block out of bowls (on a block that
    is not chosen, the only place out of a bowl a put can reach)."""
    if ctx.mentions and any(kind_of(m) == "bowl" for m in ctx.mentions) and len(chosen) > 1:
        raise ctx.refuse(f"names one bowl for {len(chosen)} blocks, but a bowl holds one block")
    if len(chosen) > len(ctx.bowls):
        raise ctx.refuse(f"needs {len(chosen)} bowls, one per block; there are "
                         f"{len(ctx.bowls)}")
    others = [b for b in ctx.blocks if b not in chosen]
    accept = [(b, tuple(ctx.bowls)) for b in chosen]
    accept += [(b, (TABLE, *(o for o in others if o != b))) for b in others]
    return Goal("subset", ctx.instruction, blocks=tuple(chosen), bowls=tuple(ctx.bowls),
                accept=tuple(accept), note=note, unmatched=tuple(others))


# -- negation: every block except ... -------------------------------------------------------
_EXCEPT = (r"\b(except|but|other than|apart from|excluding|non|not|leave|stays?|without)\b")


def _read_except(ctx: Context) -> Goal | None:
    text = ctx.text
    m = (re.search(r"\b(?:except|but|other than|apart from|excluding|non|not|without)"
                   r"(?: for)?(?: the)? (" + "|".join(ALL_COLORS) + r")\b", text)
         or re.search(r"\bleave(?: the)? (" + "|".join(ALL_COLORS) + r") (?:block|one) out\b",
                      text)
         or re.search(r"\bnot put(?: the)? (" + "|".join(ALL_COLORS) + r") (?:block|one)\b", text)
         or re.search(r"\b(" + "|".join(ALL_COLORS) + r") (?:block|one) stays?\b", text))
    if m is None:
        return None
    color = m.group(1)
    if len(set(_colors_in(re.sub(r"\b\w+ bowls?\b", "", text)))) != 1:
        raise ctx.refuse("names more than one colour; I read 'every block except one colour'")
    excluded = f"{color} block"
    if excluded not in ctx.blocks:
        raise ctx.refuse(f"excludes the {excluded}, which is not in the scene")
    if not re.search(r"\b(every|all|each|everything|blocks|other)\b", text):
        raise ctx.refuse("says which block to leave out but not what to do with the others")
    chosen = [b for b in ctx.blocks if b != excluded]
    return _subset_goal(ctx, chosen, f"every block but the {excluded} in a bowl, one per "
                                     f"bowl; the {excluded} in none")


EXCEPT = Reader("except", _has(_EXCEPT + r".*\b(" + "|".join(ALL_COLORS) + r")\b|\b("
                + "|".join(ALL_COLORS) + r") (block|one) stays?\b"),
                _words(_SUBSET_WORDS, "except but for other than apart from excluding non not "
                       "without leave stays stay table do everything else", {COLOR_WORD}),
                _read_except)


# -- counting: exactly n blocks in bowls, one block per bowl -----------------------------------
_COUNT = r"\b(one|two|three|four|five|[1-5]|single)\b"


def _read_count(ctx: Context) -> Goal | None:
    text = ctx.text
    counts = [NUMBERS[w] for w in re.findall(_COUNT, text)]
    if re.search(r"\b(each|every|per)(?: of the)? bowls?\b", text):
        if any(n != 1 for n in counts):
            raise ctx.refuse(f"asks for {max(counts)} blocks in each bowl, but a bowl holds "
                             "one block")
        return _one_per_bowl(ctx)
    m = re.search(_COUNT + r"(?: of the)? blocks?\b", text)
    if m is None or ctx.mentions or len(set(counts)) != 1:
        return None
    n = NUMBERS[m.group(1)]
    if n > len(ctx.blocks):
        raise ctx.refuse(f"asks for {n} blocks in bowls; there are {len(ctx.blocks)} blocks")
    in_bowls = _in_bowls_first(ctx)
    return _subset_goal(ctx, in_bowls[:n], f"exactly {n} block{'s' * (n != 1)} in bowls "
                                           f"({', '.join(in_bowls[:n])}), the others in none")


def _in_bowls_first(ctx: Context) -> list[str]:
    """The blocks, those already in a bowl (as perceived now) first: the fewest moves."""
    now = (ctx.memory.now or {}) if ctx.memory else {}
    return sorted(ctx.blocks, key=lambda b: kind_of(now.get(b, TABLE)) != "bowl")


def _one_per_bowl(ctx: Context) -> Goal:
    if len(ctx.blocks) < len(ctx.bowls):
        raise ctx.refuse(f"needs a block for each of {len(ctx.bowls)} bowls; there are "
                         f"{len(ctx.blocks)} blocks")
    ranked = _in_bowls_first(ctx)
    goal = _subset_goal(ctx, ranked[:len(ctx.bowls)], "one block in each bowl")
    return goal


COUNT = Reader("count", _has(_COUNT + r"(?: of the)? blocks?\b|\b(each|every|per)(?: of the)? "
                         r"bowls?\b"),
               _words(_SUBSET_WORDS, "exactly any of no more fewer less than which doesnot "
                      "does not matter choose per single just fill give make sure has have "
                      "with one two three four five 1 2 3 4 5 it"),
               _read_count)


# -- common sense: tidy up, empty a bowl -----------------------------------------------------
def _read_tidy(ctx: Context) -> Goal | None:
    if any(kind_of(m) == "bowl" for m in ctx.mentions) or any(
            kind_of(m) == "block" for m in ctx.mentions):
        return None
    return _subset_goal(ctx, ctx.blocks, "every block in a bowl (tidied away)")


TIDY = Reader("tidy", _has(r"\b(tidy|clean up|away|clear the blocks|any bowl)\b"),
              _words(_SUBSET_WORDS, "tidy clean up away clear off table by putting any will "
                     "do"),
              _read_tidy)


def _read_empty(ctx: Context) -> Goal | None:
    bowls = [m for m in ctx.mentions if kind_of(m) == "bowl"]
    if len(set(bowls)) != 1:
        return None
    bowl = bowls[0]
    inside = [b for b, p in (ctx.memory.initial.items() if ctx.memory else ()) if p == bowl]
    named = [m for m in ctx.mentions if kind_of(m) == "block"]
    if named and set(named) - set(inside):
        raise ctx.refuse(f"names the {named[0]} as in the {bowl}, but it was not seen there")
    others = [p for p in ctx.bowls + ctx.blocks if p != bowl]
    accept = [(b, (TABLE, *(p for p in others if p != b))) for b in inside]
    return Goal("empty", ctx.instruction, bowls=(bowl,), accept=tuple(accept),
                note=f"nothing in the {bowl}" + (f" ({', '.join(inside)} out of it)"
                                                  if inside else " (it looked empty)"))


EMPTY = Reader("empty", _has(r"\bempty\b|\bout of the \w+ bowl\b|\bremove\b.*\bfrom the \w+ "
                             r"bowl\b|\bnothing is left in\b|\bno block in it\b"),
               _words("empty take out of remove from nothing is left no block in it at the "
                      "end should have get put anywhere else make sure i want"),
               _read_empty)


# -- world knowledge: flags, colour temperature, primaries, rainbow ---------------------------
def _knowledge_subset(ctx: Context, colors: tuple[str, ...], what: str) -> Goal:
    stray = set(_colors_in(ctx.text)) - set(colors)
    if stray:
        raise ctx.refuse(f"names {', '.join(sorted(stray))}, which is not among {what} "
                         f"({', '.join(colors)})")
    chosen = [b for b in ctx.blocks if color_of(b) in colors]
    if not chosen:
        raise ctx.refuse(f"no block has one of {what} ({', '.join(colors)})")
    return _subset_goal(ctx, chosen, f"the blocks of {what} ({', '.join(colors)}) in bowls, "
                                     "the others in none")


def _read_flag(ctx: Context) -> Goal | None:
    for country, (adjective, colors) in FLAGS.items():
        if re.search(rf"\b({country}|{adjective})\b", ctx.text):
            return _knowledge_subset(ctx, colors, f"the flag of {country.title()}")
    raise ctx.refuse("names a flag I do not know; I know the flags of "
                     + ", ".join(c.title() for c in FLAGS))


FLAG = Reader("flag", _has(r"\bflags?\b"),
              _words(_SUBSET_WORDS, "flag flags make up those the matching", {COLOR_WORD},
                     set(FLAGS), {a for a, _ in FLAGS.values()}),
              _read_flag)


def _read_temperature(ctx: Context) -> Goal | None:
    warm, cool = "warm" in ctx.text.split(), "cool" in ctx.text.split()
    if warm == cool:
        return None
    colors = WARM if warm else COOL
    borderline = [b for b in ctx.blocks if color_of(b) not in WARM + COOL]
    if borderline:
        raise ctx.refuse(f"the {', '.join(borderline)} is neither clearly warm nor cool")
    return _knowledge_subset(ctx, colors, f"the {'warm' if warm else 'cool'} colours")


TEMPERATURE = Reader("temperature", _has(r"\b(warm|cool)\b"),
                     _words(_SUBSET_WORDS, "warm cool"), _read_temperature)


def _read_primary(ctx: Context) -> Goal | None:
    if any(color_of(b) == "green" for b in ctx.blocks):
        raise ctx.refuse("the green block is primary to some (RGB) and not to others (RYB)")
    return _knowledge_subset(ctx, PRIMARY, "the primary colours")


PRIMARY_READER = Reader("primary", _has(r"\bprimary\b"),
                        _words(_SUBSET_WORDS, "primary i e", {COLOR_WORD}), _read_primary)


def _read_rainbow(ctx: Context) -> Goal | None:
    stray = [b for b in ctx.blocks if color_of(b) not in RAINBOW]
    if stray:
        raise ctx.refuse(f"the {', '.join(stray)} has no place in the rainbow")
    order = sorted(ctx.blocks, key=lambda b: RAINBOW.index(color_of(b)))
    named, expected = _colors_in(ctx.text), [color_of(b) for b in order]
    if named and named != expected and named != ["red"]:
        raise ctx.refuse(f"names the colours {', '.join(named)}, which is not the rainbow "
                         f"order of the blocks ({', '.join(order)})")
    accept = [(upper, (lower,)) for lower, upper in itertools.pairwise(order)]
    return Goal("tower", ctx.instruction, blocks=tuple(order), accept=tuple(accept),
                note=f"one tower in rainbow order, bottom to top: {', '.join(order)}")


RAINBOW_READER = Reader("rainbow", _has(r"\brainbow\b"),
                        _words("rainbow order stack tower like a the color colors ordered as "
                               "in following of starting with at base bottom up from to top on "
                               "each other blocks block build make put their follow follows "
                               "so", {COLOR_WORD}),
                        _read_rainbow)


# -- memory: swap, put back, reverse -----------------------------------------------------------
def _initial(ctx: Context) -> dict[str, str]:
    if ctx.memory is None or not ctx.memory.initial:
        raise ctx.refuse("refers to where blocks were, and nothing was perceived before "
                         "the first action")
    return ctx.memory.initial


def _read_swap(ctx: Context) -> Goal | None:
    initial = _initial(ctx)
    blocks = list(dict.fromkeys(m for m in ctx.mentions if kind_of(m) == "block"))
    bowls = list(dict.fromkeys(m for m in ctx.mentions if kind_of(m) == "bowl"))
    if len(blocks) != 2 and len(bowls) == 2:
        blocks = [next((b for b, p in initial.items() if p == w), "") for w in bowls]
        if "" in blocks:
            raise ctx.refuse("names a bowl that held no block at the start")
    if len(blocks) != 2:
        return None
    a, b = blocks
    pa, pb = initial.get(a, TABLE), initial.get(b, TABLE)
    if TABLE in (pa, pb):
        raise ctx.refuse("asks to swap a block that stood on the table, and a block cannot be "
                         "put back on the table")
    return Goal("swap", ctx.instruction, accept=((a, (pb,)), (b, (pa,))), check_end=True,
                note=f"swap: the {a} from the {pa} into the {pb}, the {b} into the {pa}")


SWAP = Reader("swap", _has(r"\b(swap|switch|exchange|trade)\b"),
              _words("swap switch exchange trade places place around with and between their "
                     "bowls blocks in the should of"),
              _read_swap)


def _read_restore(ctx: Context) -> Goal | None:
    initial = _initial(ctx)
    head = re.split(r"\b(then|afterwards|after that|and when|when)\b", ctx.text)[0]
    pairs = _first_puts(ctx, head)
    accept = []
    for block in ctx.blocks:
        start = initial.get(block, TABLE)
        if start == TABLE:
            continue  # nothing can put it back on the table; it is checked, not planned
        accept.append((block, (start,)))
    done = set(ctx.memory.history) if ctx.memory else set()
    first = tuple(p for p in pairs if p not in done)
    return Goal("restore", ctx.instruction, first=first, accept=tuple(accept), check_end=True,
                note="every block back where it started: " + ", ".join(
                    f"{b} in {p[0]}" for b, p in accept))


def _first_puts(ctx: Context, head: str) -> tuple[tuple[str, str], ...]:
    names = [n for n in ctx.mentions if n in head]
    if len(names) != 2 or kind_of(names[0]) != "block":
        raise ctx.refuse("I read 'put the <block> in the <place>, then put every block back "
                         "where it started'")
    return ((names[0], names[1]),)


RESTORE = Reader("restore", _has(r"\b(back|restore|return|original|initial|started|undo)\b"),
                 _words("then afterwards after that first back where it they started start restore "
                        "return undo "
                        "began begin restore return original initial starting positions "
                        "places spots spot place to their its every all each block blocks way "
                        "arrangement layout state positions position scene as "
                        "were was is at the undo everything so when done in into put move "
                        "goes go and"),
                 _read_restore)


def _read_reverse(ctx: Context) -> Goal | None:
    initial = _initial(ctx)
    bottoms = [b for b in ctx.blocks if initial.get(b, TABLE) == TABLE]
    towers = [_tower_up(initial, b) for b in bottoms]
    towers = [t for t in towers if len(t) >= 2]
    if len(towers) != 1:
        raise ctx.refuse(f"asks to reverse the tower; {len(towers)} towers were seen at the "
                         "start")
    tower = towers[0]
    named = list(dict.fromkeys(m for m in ctx.mentions if kind_of(m) == "block"))
    if set(named) - set(tower):
        raise ctx.refuse(f"names the {', '.join(set(named) - set(tower))}, not in the tower "
                         f"({', '.join(tower)})")
    new = tower[::-1]
    said = re.search(r"\b((?:" + "|".join(ALL_COLORS) + r") block) (?:ends up |goes |is )?"
                     r"(?:at the bottom|at the base)\b", ctx.text)
    if said and said.group(1) != new[0]:
        raise ctx.refuse(f"wants the {said.group(1)} at the bottom, but reversing the tower "
                         f"({', '.join(tower)}, bottom to top) puts the {new[0]} there")
    accept = [(upper, (lower,)) for lower, upper in itertools.pairwise(new)]
    return Goal("tower", ctx.instruction, blocks=tuple(new), accept=tuple(accept),
                check_end=True, note="the tower reversed, bottom to top: " + ", ".join(new))


def _tower_up(initial: dict[str, str], base: str) -> list[str]:
    tower = [base]
    while (above := [b for b, p in initial.items() if p == tower[-1]]) and above[0] not in tower:
        tower.append(above[0])
    return tower


REVERSE = Reader("reverse", _has(r"\b(reverse|reversed|upside down|flip|flipped|opposite|"
                                 r"other way round)\b"),
                 _words("reverse reversed upside down flip flipped opposite order other way "
                        "round around turn rebuild restack tower stack of blocks the three so "
                        "ends end up at bottom top on from to then one block a time it in "
                        "is"),
                 _read_reverse)


# -- references: the block left of X, the leftmost block ---------------------------------------
def _read_refer(ctx: Context) -> Goal | None:
    text = ctx.text
    bowls = [m for m in ctx.mentions if kind_of(m) == "bowl"]
    ordinal = next((v for k, v in ORDINALS.items() if re.search(rf"\b{k}\b", text)), "")
    relation = next((r for r in RELATIONS if re.search(rf"\b(block|one|is|that) {r} the\b",
                                                       text)), "")
    if bool(ordinal) == bool(relation):
        return None
    if ordinal:
        if len(ctx.mentions) != 1 or kind_of(ctx.mentions[0]) != "bowl":
            raise ctx.refuse("I read 'put the <ordinal> block in the <bowl>'")
        return Goal("refer", ctx.instruction, reference=Reference(ordinal=ordinal),
                    place=ctx.mentions[0])
    m = re.search(rf"\b{relation} the (\w+ (?:block|bowl))\b", text)
    anchor = m.group(1) if m else ""
    places = [n for n in ctx.mentions if n != anchor]
    if anchor not in ctx.mentions or len(places) != 1 or kind_of(places[0]) != "bowl":
        raise ctx.refuse("I read 'put the block <relation> the <object> in the <bowl>'")
    del bowls
    return Goal("refer", ctx.instruction, reference=Reference(relation=relation, anchor=anchor),
                place=places[0])


REFER = Reader("refer", _has(r"\b(leftmost|rightmost|second (block )?from (the )?(left|right))\b|"
                             r"\b(block|one|is|that) (left of|right of|in front of|behind) the"),
               _words("leftmost rightmost second from the left right of in front behind block find "
                      "one that is which whichever find take pick grab drop goes go it and "
                      "in into to inside of blocks place"),
               _read_refer)

READERS = (REVERSE, RAINBOW_READER, RESTORE, SWAP, FLAG, PRIMARY_READER, TEMPERATURE, EMPTY,
           COUNT, EXCEPT, REFER, TIDY)
