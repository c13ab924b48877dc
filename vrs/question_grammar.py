"""Phrasings: one pattern string gives both the parser's regex and the renderer's choices.

Why one source for both directions: a question rendered for training data must parse back to
the same program, and a synonym the parser accepts should also appear in generated data. Writing
each phrasing once makes the round trip hold by construction (the tests check it anyway).

Pattern syntax, tokens separated by spaces:
  word          a literal word
  (a b|c|~d)    alternatives; the renderer picks one (canonical: the first), the parser accepts
                all; a '~' marks one the parser accepts but the renderer never says ('~' alone:
                the words may be left out)
  [the]         shorthand for (the|~): optional when parsing, always said when rendering
  {name:kind}   a parameter slot: any phrase of `kind` (question_vocab.KINDS); the program holds
                the canonical value. `{name}` means kind = name.
  {name?:kind}  an optional slot: in the text exactly when the program has the param
A slot hears its kind's heard-only phrases too (`Kind.heard`: "cubes" for "blocks"); the
renderer says only `Kind.phrases`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from vrs.question_vocab import KINDS, Kind

_TOKEN = re.compile(r"\{[^}]*\}|\[[^\]]*\]|\([^)]*\)|\S+")


@dataclass(frozen=True)
class _Alt:
    said: tuple[str, ...]  # what the renderer may say, canonical first
    heard: tuple[str, ...]  # what the parser accepts (a superset)


@dataclass(frozen=True)
class _Slot:
    name: str
    kind: Kind
    optional: bool


def _token(text: str) -> _Alt | _Slot:
    if text.startswith("{"):
        name, _, kind = text[1:-1].partition(":")
        optional = name.endswith("?")
        name = name.rstrip("?")
        return _Slot(name, KINDS[kind or name], optional)
    if text.startswith("["):
        text = f"({text[1:-1]}|~)"
    if text.startswith("("):
        options = text[1:-1].split("|")
        said = tuple(o for o in options if not o.startswith("~"))
        return _Alt(said, tuple(o.lstrip("~") for o in options))
    return _Alt((text,), (text,))


def _regex(token: _Alt | _Slot) -> str:
    """Each token's regex consumes its trailing space; the text is matched with one appended."""
    if isinstance(token, _Slot):
        group = f"(?P<{token.name}>{token.kind.regex()}) "
        return f"(?:{group})?" if token.optional else group
    options = sorted(token.heard, key=len, reverse=True)
    return "(?:" + "|".join(re.escape(o) + " " if o else "" for o in options) + ")"


def _choose(options: tuple[str, ...], rng: np.random.Generator | None) -> str:
    return options[0] if rng is None else options[int(rng.integers(len(options)))]


class Phrasing:
    """One way to say a template's questions; `fixed` params are implied by the words (e.g.
    "what is the X on" fixes rel=below). `parse_only` phrasings are understood, never said."""

    def __init__(self, pattern: str, parse_only: bool = False, **fixed: str) -> None:
        self.pattern, self.parse_only, self.fixed = pattern, parse_only, fixed
        self.tokens = [_token(t) for t in _TOKEN.findall(pattern)]
        self.slots = [t for t in self.tokens if isinstance(t, _Slot)]
        self._re = re.compile("".join(_regex(t) for t in self.tokens))

    def match(self, text: str) -> dict[str, str] | None:
        """The params said by normalized `text`, or None when this phrasing does not fit."""
        m = self._re.fullmatch(text + " ")
        if m is None:
            return None
        said = {s.name: s.kind.value_of(m[s.name]) for s in self.slots if m[s.name] is not None}
        return {**self.fixed, **said}

    def fits(self, params: Mapping[str, str]) -> bool:
        """Whether this phrasing can say exactly `params` (names, fixed values, slot values)."""
        if any(params.get(k) != v for k, v in self.fixed.items()):
            return False
        free = set(params) - set(self.fixed)
        required = {s.name for s in self.slots if not s.optional}
        if not required <= free <= {s.name for s in self.slots}:
            return False
        return all(params[s.name] in s.kind.values for s in self.slots if s.name in free)

    def render(self, params: Mapping[str, str], rng: np.random.Generator | None = None) -> str:
        """Text for `params` (which must fit); `rng` picks synonyms, None gives the canonical."""
        words = []
        for token in self.tokens:
            if isinstance(token, _Slot):
                if token.name in params:
                    words.append(_choose(token.kind.phrases[params[token.name]], rng))
            else:
                words.append(_choose(token.said, rng))
        text = " ".join(w for w in words if w)
        return re.sub(r"\ba (?=[aeiou])", "an ", text) + "?"

    def form(self) -> str:
        """The pattern for people: 'is the <object> <relation> the <object or table>?'."""
        words = []
        for token in self.tokens:
            if isinstance(token, _Slot):
                words.append(f"[{token.kind.label}]" if token.optional else token.kind.label)
            elif token.said[0]:
                words.append(token.said[0])
        return " ".join(words) + "?"

    def words(self) -> set[str]:
        """Every word this phrasing can hear (for naming the words a failed parse did not know)."""
        out: set[str] = set()
        for token in self.tokens:
            phrases = ([p for ps in token.kind.all_phrases().values() for p in ps]
                       if isinstance(token, _Slot) else token.heard)
            out.update(w for p in phrases for w in p.split())
        return out
