"""The planner's belief about the scene, read from perceived facts.

The offline planner never sees ground truth: it gets object names and (subject, relation,
object) triples that the runtime perceived through the reasoner. This module turns them into
"what rests on/in what", the initial state the symbolic planner starts from. Objects without a
fact are assumed to stand on the table with nothing on them, so an empty fact list means a
fresh scene.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ravens_env.colors import ALL_COLORS

TABLE = "table"
STAND = "stand"
_PAIR = re.compile(r"^(?:the\s+)?(.+?)\s+and\s+(?:the\s+)?(.+)$")


def kind_of(name: str) -> str:
    """'block' | 'bowl' | 'stand' | 'table' | '' for an object name."""
    if name in (STAND, TABLE):
        return name
    parts = name.split()
    if len(parts) == 2 and parts[0] in ALL_COLORS and parts[1] in ("block", "bowl"):
        return parts[1]
    return ""


def color_of(name: str) -> str:
    """'red block' -> 'red' ('' for the stand and the table)."""
    return name.split()[0] if kind_of(name) in ("block", "bowl") else ""


@dataclass
class SceneState:
    """What rests on or in what, as far as the perceived facts tell.

    `support` maps a block to the one thing it rests on or in (a bowl, a block, the stand or
    the table); `pair_support` holds blocks that straddle two blocks (a pyramid's upper rows).
    `left_of` keeps (a, b) hints from 'left of'/'right of' facts, the only way to know which
    bottom-row block of a pyramid is in the middle. `ignored` lists facts about unknown objects.
    """

    objects: list[str]
    support: dict[str, str] = field(default_factory=dict)
    pair_support: dict[str, tuple[str, str]] = field(default_factory=dict)
    left_of: list[tuple[str, str]] = field(default_factory=list)
    ignored: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def blocks(self) -> list[str]:
        return [o for o in self.objects if kind_of(o) == "block"]

    @property
    def bowls(self) -> list[str]:
        return [o for o in self.objects if kind_of(o) == "bowl"]

    def resting_on(self, block: str) -> str:
        """What `block` rests on or in; pyramid straddlers give 'a block and b block'."""
        if block in self.pair_support:
            return " and ".join(self.pair_support[block])
        return self.support.get(block, TABLE)

    def describe(self, block: str) -> str:
        """'red block in blue bowl' / 'red block on green block' for comments and prompts."""
        under = self.resting_on(block)
        return f"{block} {'in' if kind_of(under) == 'bowl' else 'on'} {under}"


def scene_state(objects: list[str], facts: list[tuple[str, str, str]]) -> SceneState:
    """Build the belief from perceived facts; later facts about a block override earlier ones,
    except that two 'on <block>' facts mean the block straddles both (pyramid)."""
    state = SceneState(list(dict.fromkeys(objects)))
    known = set(state.objects) | {TABLE}
    for fact in facts:
        subject, relation, obj = (str(x).strip().lower() for x in fact)
        if not _apply(state, known, subject, relation, obj):
            state.ignored.append((subject, relation, obj))
    return state


def _apply(state: SceneState, known: set[str], subject: str, relation: str, obj: str) -> bool:
    if relation in ("left of", "right of"):
        if subject not in known or obj not in known:
            return False
        state.left_of.append((subject, obj) if relation == "left of" else (obj, subject))
        return True
    if relation not in ("in", "on") or kind_of(subject) != "block" or subject not in known:
        return False
    pair = _PAIR.match(obj)
    if pair and all(p in known and kind_of(p) == "block" for p in pair.groups()):
        state.pair_support[subject] = (pair.group(1), pair.group(2))
        state.support.pop(subject, None)
        return True
    if obj not in known or obj == subject:
        return False
    previous = state.support.get(subject)
    if kind_of(obj) == "block" and previous not in (None, obj) and kind_of(previous) == "block":
        state.pair_support[subject] = (previous, obj)
        del state.support[subject]
        return True
    state.pair_support.pop(subject, None)
    state.support[subject] = obj
    return True
