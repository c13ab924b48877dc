"""Slips of the keyboard the question reader corrects (`question_reader.respell`).

Why a module of its own: the reader's module had grown past what it could hold readably, and
the slips are a family of their own: which word an unknown word is a slip of, by its place in
the question (`slip_in_place`) or by two letters swapped (`swap_slip`). The reader's difflib
test for longer slips stays there (it needs the reader's vocabulary).
"""

from __future__ import annotations

from collections.abc import Collection

from vrs.question_vocab import ALL_COLORS, PARSE_WORDS

# Real English words a keystroke or two from a word of the language: never slips ("is there a
# ball" is no "all", "a clock" no "block", "sand" no "stand", "a crown" no "brown"). Found by
# probing the reader (round 10): each was read as the word it is near, and lent a program.
REAL_WORDS = frozenset({"ball", "balls", "clock", "clocks", "lock", "locks", "flock", "sand",
                        "crown", "crowns", "bright", "light", "night", "might", "sight", "tight",
                        "fight", "black", "slack", "howl", "blocky", "stank",
                        "sock", "socks", "rock", "rocks", "brand", "grand", "wall", "walls",
                        "tall", "small", "call", "hall", "mall", "fall", "bell", "bells"})
# the guards a slip is read as ("nit", "noy", "nto": not; "witout", "excpet"): a slip of a word
# no program carries must still be refused, not dropped
_GUARD_TARGETS = frozenset({"not", "nor", "without", "except", "besides", "never", "none",
                            "nothing", "exactly", "only", "excluding", "between"})


def guard_slip(word: str) -> str | None:
    """The guard word `word` is one keystroke from, if any (the first in order): a slip of a
    guard is a guard, so the question is refused rather than read without it."""
    return next((g for g in sorted(_GUARD_TARGETS) if one_keystroke(word, g)), None)

# What a place in the question calls for: before a kind a colour or an article ("the blu
# block", "teh bowl"), before a colour an article, first a question word ("wat"; "wats" is
# "whats": what is), after "how" "many". Not before "anything" / "something": they take no
# article, so "is ther anything" is no slip of "the" (the rewrites hear "there").
_ARTICLES = ("the", "any", "every", "each", "all")
_KIND_NEXT = frozenset({"block", "blocks", "bowl", "bowls", "stand", "stands", "object",
                        "objects", "thing", "things", "one", "ones", "table", "colored"})
_OPENERS = {"what": "what", "whats": "what is", "which": "which", "how": "how", "is": "is",
            "are": "are", "does": "does", "do": "do", "list": "list", "count": "count"}


def slip_in_place(words: list[str], n: int) -> str | None:
    """What words[n] (unknown, 3+ letters) is a slip of, when it is one keystroke (a letter
    left out, added or changed, two swapped) from exactly one word its place calls for. Why by
    place: short slips ("blu", "wat") are one keystroke from many real words too ("bed" from
    red, "pin" from pink); where the question must say a colour or a question word, a word
    that is none is a slip of the one it nearly is."""
    after = words[n + 1] if n + 1 < len(words) else ""
    wanted: dict[str, str] = {}
    if after in _KIND_NEXT:
        wanted.update((c, c) for c in (*ALL_COLORS, *_ARTICLES))
        wanted["grey"] = "gray"  # "gery blocks": a slip of the other spelling
    elif after in ALL_COLORS:
        wanted.update((a, a) for a in _ARTICLES)
    if n == 0:
        wanted.update(_OPENERS)
    if n > 0 and words[n - 1] == "how":
        wanted.update(many="many", much="much")
    near = {said for word, said in wanted.items() if one_keystroke(words[n], word)}
    return near.pop() if len(near) == 1 else None


def one_keystroke(a: str, b: str) -> bool:
    """Whether `a` is `b` with one letter left out, added or changed, or two neighbours
    swapped ("blu" / "blue", "teh" / "the", "whta" / "what")."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or swapped(a, b)
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def swapped(a: str, b: str) -> bool:
    """Whether `a` is `b` with two neighbouring letters swapped ("bolw" / "bowl")."""
    if len(a) != len(b):
        return False
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    return (len(diff) == 2 and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])


def swap_slip(word: str, known: Collection[str], keys: Collection[str]) -> str | None:
    """The key word `word` is with two neighbouring letters swapped ("bolw", "bwol": bowl;
    "lfet": left), when no other known word is one keystroke from it. Why: difflib's ratio,
    the reader's test for longer slips, scores a swap in a word of four letters 0.75, under its
    cutoff, though a swap keeps every letter; why a swap and not a changed letter: a changed
    letter of a short word is often another real word ("pint", "howl"), a swap seldom."""
    near = [k for k in known if one_keystroke(word, k)]
    if len(near) == 1 and near[0] in keys and swapped(word, near[0]):
        return near[0]
    return None


# The parse side's long synonyms of the scene's objects ("container", "platform"): the fold
# (`question_vocab.PARSE_WORDS`) turns them into the language's words before the reader's
# vocabulary is built, so a slip of one ("contaner", "platfrom") is near no known word.
_LONG_SYNONYMS = {w: f for w, f in PARSE_WORDS.items()
                  if len(w) >= 7 and w.isalpha() and f.isalpha()}


def synonym_slip(word: str) -> str | None:
    """The fold of the long synonym `word` is one keystroke from ("contaner", "contianer":
    container, a bowl; "platfrom": platform, the stand), when it is exactly one. Why only
    synonyms of 7+ letters: one keystroke from a shorter one is often a real word ("tubes" /
    "cubes", "tricks" / "bricks") that must stay unknown, and so refused."""
    if len(word) < 6 or word in _LONG_SYNONYMS:
        return _LONG_SYNONYMS.get(word)
    near = {fold for w, fold in _LONG_SYNONYMS.items() if one_keystroke(word, w)}
    return near.pop() if len(near) == 1 else None
