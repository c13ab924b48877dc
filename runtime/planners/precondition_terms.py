"""The terms of LLM-written preconditions (issue 24): the predicates an LLM may use, a
condition over an action's parameters, and reading conditions written one per line.

Why a module of its own: both forms of asking (`preconditions`, one per line, and
`preconditions_pddl`, a PDDL schema) read replies into these conditions, and the generation in
`preconditions` picks between the forms; with the terms here neither form imports the other's
module back.
"""

from __future__ import annotations

import inspect
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

from runtime.monitors.predicates import IMPERCEPTIBLE, PREDICATE_CLASSES, Predicate

# The predicates an LLM may use: every one the reasoner or the robot's state can answer.
ARITY = {"in": 2, "on": 2, "clear": 1, "holding": 1, "handempty": 0}
assert set(ARITY) == {n for n, k in PREDICATE_CLASSES.items() if k != IMPERCEPTIBLE}
MEANING = {"in": "block x rests in bowl y", "on": "block x rests on y (a block or the stand)",
           "clear": "nothing rests in or on x", "holding": "the gripper holds x",
           "handempty": "the gripper holds nothing"}
WORLD = ("a table with blocks, bowls and a stand. The robot has one suction gripper that lifts "
         "one block at a time from above. A bowl holds at most one block; a block carries at "
         "most one block on top; the table and the stand hold any number.")
SURFACES = ("table", "stand")  # hold any number of blocks: "clear" does not apply to them
MAX_LINES = 6  # a precondition list longer than this is a reply running on
_LINE = re.compile(r"^\s*[-*\d.)\s]*(not\s+)?([a-z_]+)\s*(?:\(([^)]*)\))?\s*[.;,]?\s*$",
                   re.IGNORECASE)


@dataclass(frozen=True)
class Condition:
    """A precondition over a primitive's parameters: `clear(pick)`, `not in(pick, place)`."""

    name: str
    params: tuple[str, ...] = ()
    want: bool = True

    def __str__(self) -> str:
        text = f"{self.name}({', '.join(self.params)})" if self.params else self.name
        return text if self.want else f"not {text}"

    def ground(self, values: dict[str, str]) -> list[Predicate]:
        """The predicate(s) for one call, a parameter given a pair of blocks ("a and b") being
        one predicate per block; none where it does not apply (`clear` of the table or the
        stand, which hold any number; an `in` whose place is not a bowl)."""
        options = [[v.strip() for v in values[p].split(" and ")] for p in self.params]
        out = []
        for args in itertools.product(*options):
            if self.name == "clear" and args[0] in SURFACES:
                continue
            if self.name == "in" and not args[1].endswith("bowl"):
                continue
            out.append(Predicate(self.name, tuple(args), self.want))
        return out


def parse_line(line: str, params: tuple[str, ...]) -> tuple[Condition | None, str | None]:
    """(the condition on a line, None) or (None, why it is dropped). A trailing "# why" and
    list markers are ignored; an argument may be quoted."""
    text = line.split("#", 1)[0].strip()
    m = _LINE.match(text)
    if not text or not m:
        return None, f"{line.strip()!r}: not a predicate"
    name = m.group(2).lower()
    args = tuple(a.strip().strip("'\"`") for a in (m.group(3) or "").split(",") if a.strip())
    if name not in ARITY:
        return None, f"{text!r}: unknown predicate {name!r}"
    if len(args) != ARITY[name]:
        return None, f"{text!r}: {name} takes {ARITY[name]} argument(s)"
    bad = [a for a in args if a not in params]
    if bad:
        return None, f"{text!r}: {', '.join(bad)} is not a parameter ({', '.join(params)})"
    return Condition(name, args, m.group(1) is None), None


def parse_reply(reply: str, params: tuple[str, ...]) -> tuple[list[Condition], list[str]]:
    """The distinct conditions of a reply, in order, and the lines dropped (with why). A
    condition and its negation both written is a contradiction: both are dropped."""
    kept: dict[Condition, None] = {}
    dropped: list[str] = []
    for line in reply.splitlines()[: MAX_LINES * 3]:
        if not line.strip():
            continue
        c, why = parse_line(line, params)
        if c is None:
            dropped.append(why or line)
        else:
            kept.setdefault(c)
    out = list(kept)
    for c in list(out):
        twin = Condition(c.name, c.params, not c.want)
        if twin in kept and c in out:
            out = [x for x in out if x not in (c, twin)]
            dropped.append(f"{c} and {twin}: contradict each other")
    return out[:MAX_LINES], dropped


def predicate_table(pattern: Callable[[str, int], str], width: int) -> str:
    """The predicates, one per line, each written by `pattern(name, arity)` (the line form's
    `clear(x)`, the PDDL form's `(clear ?x)`) beside its meaning: what every prompt shows."""
    return "\n".join(f"  {pattern(n, k):{width}} {MEANING[n]}" for n, k in ARITY.items())


def described(primitive: str, fn: Callable) -> tuple[tuple[str, ...], str, str]:
    """(parameter names, `name(signature)`, the docstring indented under it): the text of a
    primitive that both forms' prompts show, as the planner prompt shows it."""
    doc = "\n".join("    " + ln for ln in (inspect.getdoc(fn) or "").splitlines())
    return tuple(inspect.signature(fn).parameters), f"{primitive}{inspect.signature(fn)}", doc
