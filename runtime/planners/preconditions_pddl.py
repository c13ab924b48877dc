"""The PDDL form of precondition generation (`--form pddl`): the LLM completes an action
schema, `(:action NAME :parameters (...) :precondition (...) :effect (...))`, and only the
precondition is kept.

Why a second form: with the line form ("one precondition per line") the packaged 1.5B model
wrote the state *after* the action (`holding(pick)` for a put). A code model has read many
PDDL domains, and a schema has a slot for the effect, so the state after the action has
somewhere to go. The form was chosen on dev actions that are not this project's primitives
(`runtime.eval.precondition_dev`), not on the primitive that is scored (docs/RESULTS.md,
issue 24).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from runtime.planners.precondition_terms import (
    ARITY,
    MAX_LINES,
    WORLD,
    Condition,
    described,
    predicate_table,
)
from runtime.planners.precondition_terms import parse_reply as parse_lines
from runtime.planners.prompts import PROMPTS_DIR, render

_TOKEN = re.compile(r"\(|\)|[^\s()]+")


def messages(primitive: str, fn: Callable, directory: Path = PROMPTS_DIR,
             example: bool = False, effect_first: bool = False) -> list[dict]:
    """The chat messages that ask for `primitive`'s schema: the predicates as PDDL atoms, the
    world, then the primitive's signature and docstring and the schema's opening. With
    `example` (the `pddl-example` form) the system prompt also shows two schemas from another
    world (`prompts/preconditions_pddl_example.txt`): the model's commonest error in every
    form was the state *after* the action as its precondition, and a worked pair shows the
    precondition as the state the effect then changes. With `effect_first` the worked pair
    shows each :effect before its :precondition, the order that form's grammar asks for."""
    params, signature, doc = described(primitive, fn)
    shown = render("preconditions_pddl_example.txt", directory) if example else ""
    if effect_first:
        shown = effect_before_precondition(shown)
    system = render("preconditions_pddl_system.txt", directory, world=WORLD,
                    predicates=predicate_table(_atom, 14), example=shown)
    user = render("preconditions_pddl_task.txt", directory, signature=signature, doc=doc,
                  action=primitive, params=" ".join(f"?{p}" for p in params))
    return [{"role": "system", "content": system.strip()},
            {"role": "user", "content": user.strip()}]


def effect_before_precondition(text: str) -> str:
    """`text` with every schema's `:precondition` line and the `:effect` line after it
    swapped, the closing parenthesis of the action moved to the new last line."""
    lines = text.split("\n")
    for i in range(len(lines) - 1):
        pre, eff = lines[i], lines[i + 1]
        if pre.lstrip().startswith(":precondition") and eff.lstrip().startswith(":effect"):
            lines[i], lines[i + 1] = eff[:-1], pre + ")"
    return "\n".join(lines)


def _atom(name: str, arity: int) -> str:
    return f"({name}{''.join(' ?' + v for v in 'xy'[:arity])})"


def grammar(params: tuple[str, ...], effect_first: bool = False) -> str:
    """GBNF for the rest of the schema: a precondition and an effect (or, `effect_first`, an
    effect and a precondition), each a conjunction of 1..MAX_LINES literals over the
    predicates and `params` (llama.cpp)."""
    arg = " | ".join(f'"?{p}"' for p in params) or '"?x"'
    atoms = []
    for name, n in ARITY.items():
        if n <= len(params):
            atoms.append(f'"({name}"' + ' " " arg' * n + ' ")"')
    lits = " ".join(["lit"] + ["lit?"] * (MAX_LINES - 1))
    first, second = (":effect", ":precondition") if effect_first else (":precondition",
                                                                        ":effect")
    return (f'root ::= "  {first} (and" lits ")\\n  {second} (and" lits "))"\n'
            f"lits ::= {lits}\n"
            f'lit ::= " " (atom | "(not " atom ")")\n'
            f"atom ::= {' | '.join(atoms)}\n"
            f"arg ::= {arg}\n")


def parse_reply(reply: str, params: tuple[str, ...]) -> tuple[list[Condition], list[str]]:
    """The conditions of the schema's :precondition (the effect is ignored), checked as the
    line form's are (unknown predicates, wrong arity, non-parameters and contradictions are
    dropped with the reason)."""
    tokens = _TOKEN.findall(reply)
    if ":precondition" not in tokens:
        return [], [f"{reply.strip()[:80]!r}: no :precondition"]
    expr, _ = _read(tokens, tokens.index(":precondition") + 1)
    lines, dropped = [], []
    for lit in _conjuncts(expr):
        line = _line(lit)
        (lines if line else dropped).append(line or f"{_show(lit)!r}: not a literal")
    conditions, more = parse_lines("\n".join(lines), params)
    return conditions, dropped + more


def _read(tokens: list[str], i: int) -> tuple[object, int]:
    """One s-expression from tokens[i]: a list or an atom, and the index after it (an
    unclosed list ends at the end of the reply: a reply cut by the token cap)."""
    if i >= len(tokens):
        return [], i
    if tokens[i] != "(":
        return tokens[i], i + 1
    out, i = [], i + 1
    while i < len(tokens) and tokens[i] != ")":
        item, i = _read(tokens, i)
        out.append(item)
    return out, i + 1


def _conjuncts(expr: object) -> list[object]:
    if isinstance(expr, list) and expr and expr[0] == "and":
        return expr[1:]
    return [expr] if expr else []


def _line(lit: object) -> str | None:
    """`(not (clear ?x))` -> "not clear(x)"; None for what is not an atom or its negation."""
    neg = isinstance(lit, list) and len(lit) == 2 and lit[0] == "not"
    atom = lit[1] if neg else lit
    if not (isinstance(atom, list) and atom and all(isinstance(a, str) for a in atom)):
        return None
    name, args = atom[0], [a.lstrip("?") for a in atom[1:]]
    text = f"{name}({', '.join(args)})" if args else name
    return f"not {text}" if neg else text


def _show(expr: object) -> str:
    return expr if isinstance(expr, str) else f"({' '.join(_show(x) for x in expr)})"
