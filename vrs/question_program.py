"""The question program: a template id plus named string parameters, and the errors around it.

Why a program and not the question text: the controller, the oracle, the data generator and the
learned VQA model must agree on what a question *means*. A CLEVR-style program (template +
params) is the shared meaning; text is only one rendering of it (see `question_grammar`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass


class UnsupportedQuestion(ValueError):
    """The text is not a question of the language; the message names what was not understood
    and lists the supported forms."""


class UnknownObject(ValueError):
    """A question names an object that is not in the scene; the message lists the scene's
    objects, so a planner can correct its name."""


@dataclass(frozen=True)
class Question:
    """A question as a program: `template` id and `params` as sorted (name, value) pairs.

    Pairs, not a dict, so that a Question is hashable and equal programs compare equal however
    the params were given: `Question("exists", {"type": "block", "color": "red"})` works and is
    stored sorted.
    """

    template: str
    params: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        items = self.params.items() if isinstance(self.params, Mapping) else self.params
        object.__setattr__(self, "params", _sorted_pairs(items))

    @property
    def args(self) -> dict[str, str]:
        """The params as a dict (a fresh copy)."""
        return dict(self.params)

    def get(self, name: str, default: str | None = None) -> str | None:
        """One param's value, or `default` when the program has no such param."""
        return self.args.get(name, default)


def _sorted_pairs(items: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    pairs = [(str(k), str(v)) for k, v in items]
    if len({k for k, _ in pairs}) != len(pairs):
        raise ValueError(f"duplicate parameter names in {pairs}")
    return tuple(sorted(pairs))
