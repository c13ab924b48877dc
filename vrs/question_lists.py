"""Whether a question the grammar refused asks for the list of objects (`list_request`).

Why a module of its own: the question reader's module had grown past what it could hold
readably, and the list is asked in words of its own ("an inventory", "a rundown of every block,
bowl and stand", "what have we got here") that no frame of the other templates shares: it is
told from them by its words, before the nearest frame is looked up (`questions.read_question`).
"""

from __future__ import annotations

import re

from vrs.question_guards import guards
from vrs.question_reader import _TYPES, plain
from vrs.question_vocab import ALL_COLORS

_LIST_CUES = frozenset({"list", "inventory", "everything", "enumerate", "catalog", "catalogue",
                        "rundown", "overview"})
_LIST_PHRASES = re.compile(r"\b(?:what|which) (?:objects|things|stuff)\b"
                           # "what's all there", "what have we got here, all of it" (folded
                           # to "what is here all of it"), "what all is there", "what's all
                           # here" (a trailing "here" folded away)
                           r"|^what (?:all )?(?:is|are) (?:all|(?:all )?(?:here|there))"
                           r"(?: all of it| in all| altogether| all together)?$"
                           r"|\b(?:every|each) (?:object|thing)\b"
                           r"|\ball (?:the )?(?:objects|things)\b"
                           r"|^what (?:have|do) (?:we|you) (?:got|have|see)\b"
                           r"|^what can (?:you|i|we) see\b")
# kinds said as examples of everything: "all the blocks, bowls and anything else"
_ALL_KINDS = re.compile(r"\b(?:anything|everything|whatever|all) else\b|\bthe rest\b"
                        r"|\b(?:and so on|etc|and the like)$")
# every kind of the scene named, one after the other: "every block, bowl and stand" is all
_KIND_SAID = r"(?:(?:the|every|each|all|all the) )?(block|bowl|stand)s?"
_EVERY_KIND = re.compile(rf"\b{_KIND_SAID} (?:and )?{_KIND_SAID} (?:and )?{_KIND_SAID}\b")


def _all_kinds(text: str) -> bool:
    """Whether `text` names the objects as examples of all ("the blocks, bowls and anything
    else") or names every kind there is ("each block, bowl and stand")."""
    every = _EVERY_KIND.search(text)
    return bool(_ALL_KINDS.search(text) or (every and len(set(every.groups())) == 3))


def list_request(text: str) -> bool:
    """Whether a question the grammar refused asks for the list of objects: a word of listing
    ("list", "inventory", "everything") or "what/which objects", "every object", "what can you
    see" -- with no colour, no block / bowl / stand (unless said as examples of all, or all
    three named: "the blocks, bowls and anything else", "every block, bowl and stand"), no guard
    word, no count and no yes/no opening (those ask something else of the objects)."""
    words = plain(text).split()
    raw = " ".join(re.sub(r"[^a-z ]", " ", text.lower()).split())  # before the embedded-
    # question folds ("what can you see in front of the camera" folds to "what is in front ...")
    said = guards(words)
    if _all_kinds(" ".join(words)):  # "the blocks, bowls and anything else": all of them
        said -= {"else", "two kinds"}
    if not words or said or any(w in ALL_COLORS for w in words):
        return False
    if any(_TYPES.get(w) in ("block", "bowl", "stand") for w in words) and not _all_kinds(
            " ".join(words)):
        return False
    if {"how", "many", "count", "number"} & set(words):
        return False
    if words[0] in ("is", "are", "does", "do", "has", "have") and "list" not in words:
        return False
    return bool(_LIST_CUES & set(words)) or any(_LIST_PHRASES.search(t)
                                                 for t in (" ".join(words), raw))
