"""The symbolic belief state DKPROMPT keeps between questions: what each block rests on.

Why a belief and not a fresh look before every plan: DKPROMPT's point is that a planner can
replan from what the questions already told it; re-perceiving every block before each new
plan costs a question per block. The belief starts from the perceived facts, follows each
action's expected effects, and is corrected by every answer that contradicts it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runtime.monitors.predicates import HELD


@dataclass
class Belief:
    """`support[b]` is what block b rests in/on ("table", a bowl, a block, "stand", or HELD);
    `changes` records every change with its cause, for the trace."""

    support: dict[str, str] = field(default_factory=dict)
    changes: list[dict] = field(default_factory=list)

    @classmethod
    def from_facts(cls, blocks: list[str], facts: list[tuple[str, str, str]]) -> Belief:
        support = dict.fromkeys(blocks, "table")
        for block, _relation, place in facts:
            if block in support:
                support[block] = place
        return cls(support)

    def where(self, block: str) -> str | None:
        return self.support.get(block)

    def on_top_of(self, place: str) -> list[str]:
        return [b for b, s in self.support.items() if s == place]

    def set(self, block: str, place: str, cause: str) -> None:
        """Believe `block` rests on `place` from now on (recorded when it changes)."""
        old = self.support.get(block)
        if old != place:
            self.support[block] = place
            self.changes.append({"block": block, "from": old, "to": place, "cause": cause})

    def facts(self) -> list[tuple[str, str, str]]:
        """(block, 'in' | 'on', place) for the planner, as perceived facts are given; a
        held block and a block on the table state nothing (the planner's default: on the
        table, so that it plans a put for it, which places a held block)."""
        return [(b, "in" if s.endswith("bowl") else "on", s) for b, s in self.support.items()
                if s not in ("table", HELD)]
