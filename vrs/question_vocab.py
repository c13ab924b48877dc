"""The words of the question language: colors, object names, relations, types, and synonyms.

Each parameter *kind* maps canonical values (what programs hold: "left", "red block") to the
phrases that may say them ("to the left of", "left of"); the first phrase is canonical. The
parser accepts every phrase, the renderer picks among them, so both read from one table.

Names follow the simulator's scene ("<color> block", "<color> bowl", "stand", "table") and
relation ids follow `ravens_env.scene_graph` (which, like this module, does not import
PyBullet, so a VQA service using the language stays light).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Kind:
    """A parameter kind: `phrases[value]` are the ways to say `value`, canonical first."""

    name: str
    phrases: dict[str, tuple[str, ...]]
    label: str  # how the kind appears in a listed form, e.g. "<relation>"

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(self.phrases)

    def value_of(self, phrase: str) -> str:
        """The canonical value a phrase says (the phrase must be one of this kind's)."""
        for value, options in self.phrases.items():
            if phrase in options:
                return value
        raise KeyError(f"{phrase!r} is not a {self.name}")

    def regex(self) -> str:
        """Alternation of every phrase, longest first."""
        options = sorted({p for ps in self.phrases.values() for p in ps}, key=len, reverse=True)
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

KINDS: dict[str, Kind] = {
    "obj": Kind("obj", _object_names(), "<object>"),
    "place": Kind("place", {**_object_names(), TABLE: (TABLE,)}, "<object or table>"),
    "rel": Kind("rel", _RELATION_PHRASES, "<relation>"),
    "color": Kind("color", {c: (c,) for c in ALL_COLORS}, "<color>"),
    "type": Kind("type", {**{t: (t,) for t in OBJECT_TYPES}, "object": ("object", "thing")},
                 "<block|bowl|stand|object>"),
    "types": Kind("types", {**{t: (t + "s",) for t in OBJECT_TYPES},
                            "object": ("objects", "things")}, "<blocks|bowls|stands|objects>"),
}


def normalize(text: str) -> str:
    """Lower case, single spaces, no trailing '?', '.' or '!', synonyms of single words folded."""
    words = re.sub(r"[?.!\s]+$", "", text.strip().lower()).split()
    return " ".join(WORD_SYNONYMS.get(w, w) for w in words)


def vocabulary_hint() -> str:
    """One paragraph naming the values each slot of a form may take (for error messages)."""
    relations = ", ".join(p[0] for p in _RELATION_PHRASES.values())
    return (f"<object> is '<color> block', '<color> bowl' or 'stand'; <color> is one of "
            f"{', '.join(ALL_COLORS)}; <relation> is one of {relations}.")
