"""ConceptAgent's precondition grounding (issue 24): the LLM writes each primitive's
preconditions once, as predicates over its parameters; they are checked before every call.

ConceptAgent (seed 004) gives the LLM a tool's name, description and the attributes the agent
can perceive, and has it write the tool's preconditions; before each call they are checked
against the perceived state and the unmet ones go back to the planner. Here:

- the predicates are the ones the reasoner (or the robot's own state) can answer
  (`runtime.monitors.predicates`: in, on, clear, holding, handempty), shown to the LLM with
  the world's attributes (one suction gripper; a bowl holds one block, ...);
- a primitive is shown as its signature and docstring (`primitives`), the same text the
  planner prompt shows; the reply is parsed into `Condition`s over the parameter names (a line
  that names an unknown predicate, a wrong number of arguments or an argument that is not a
  parameter is dropped, and the drop is kept with its reason);
- the set is cached per model and prompt text (`<cache>/preconditions/`), so an evaluation
  asks once; the report shows it;
- `reference_set()` is the hand-written set, derived from the PDDL model's preconditions
  (`predicates.preconditions`), and `match()` scores a generated set against it (precision /
  recall, as ConceptAgent reports).

The check itself is `runtime.monitors.gate`.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Protocol

from runtime.monitors.predicates import Predicate
from runtime.monitors.predicates import preconditions as pddl_preconditions
from runtime.planners import preconditions_pddl as pddl_form
from runtime.planners.base import PlannerError
from runtime.planners.precondition_terms import (  # noqa: F401 (re-exported: the seam's names)
    ARITY,
    MAX_LINES,
    MEANING,
    SURFACES,
    WORLD,
    Condition,
    described,
    parse_line,
    parse_reply,
    predicate_table,
)
from runtime.planners.prompts import PROMPTS_DIR, render


class LLM(Protocol):
    """What precondition generation needs of a planner: one chat completion (an LLM planner
    has it: `OpenAIPlanner.complete`)."""

    model: str

    def complete(self, messages: list[dict[str, str]], max_tokens: int,
                 grammar: str | None = None, temperature: float = 0.0,
                 seed: int | None = None) -> tuple[str, dict]: ...


@dataclass
class PreconditionSet:
    """Preconditions per primitive, where they came from, and what was dropped in parsing."""

    conditions: dict[str, list[Condition]]
    source: str  # "reference", or "llm:<model>"
    dropped: dict[str, list[str]] = field(default_factory=dict)
    replies: dict[str, str] = field(default_factory=dict)

    def ground(self, primitive: str, values: dict[str, str]) -> list[Predicate]:
        """Every predicate one call of `primitive` with argument `values` must satisfy."""
        seen: dict[Predicate, None] = {}
        for c in self.conditions.get(primitive, []):
            seen.update(dict.fromkeys(c.ground(values)))
        return list(seen)

    def to_dict(self) -> dict:
        return {"source": self.source, "replies": self.replies, "dropped": self.dropped,
                "conditions": {k: [str(c) for c in v] for k, v in self.conditions.items()}}

    @classmethod
    def from_dict(cls, d: dict) -> PreconditionSet:
        conditions = {k: [parse_line(line, _params(k))[0] for line in v]
                      for k, v in d["conditions"].items()}
        return cls(conditions, d["source"], d.get("dropped", {}), d.get("replies", {}))


def control_primitives() -> dict[str, Callable]:
    """The primitives that act (the ones with preconditions to check): control_actions."""
    import primitives

    return primitives.sandbox_api()["control_actions"]


def _params(primitive: str) -> tuple[str, ...]:
    import primitives

    for fns in primitives.sandbox_api().values():
        if primitive in fns:
            return tuple(inspect.signature(fns[primitive]).parameters)
    raise ValueError(f"no primitive {primitive!r}")


def grammar(params: tuple[str, ...]) -> str:
    """A GBNF grammar for a reply of 1..MAX_LINES predicate lines over `params` (llama.cpp):
    the local model writes the form, not the choice."""
    arg = " | ".join(f'"{p}"' for p in params) or '"x"'
    preds = []
    for name, n in ARITY.items():
        if n == 0:
            preds.append(f'"{name}"')
        elif n <= len(params):
            preds.append(f'"{name}(" arg' + ' ", " arg' * (n - 1) + ' ")"')
    lines = " ".join(["line"] + ["line?"] * (MAX_LINES - 1))
    return (f"root ::= {lines}\n"
            f'line ::= ("not ")? pred "  # " [^\\n]+ "\\n"\n'
            f"pred ::= {' | '.join(preds)}\n"
            f"arg ::= {arg}\n")


def messages(primitive: str, fn: Callable, directory: Path = PROMPTS_DIR) -> list[dict]:
    """The chat messages that ask for `primitive`'s preconditions."""
    params, signature, doc = described(primitive, fn)
    system = render("preconditions_system.txt", directory, world=WORLD,
                    predicates=predicate_table(_pattern, 12))
    user = render("preconditions_task.txt", directory, signature=signature, doc=doc,
                  call=f"{primitive}({', '.join(params)})")
    return [{"role": "system", "content": system.strip()},
            {"role": "user", "content": user.strip()}]


def _pattern(name: str, arity: int) -> str:
    return name if arity == 0 else f"{name}({', '.join('xy'[:arity])})"


# How the LLM is asked: one per line, a PDDL action schema, one after two worked schemas of
# another world, or that with the effect written before the precondition.
FORMS = ("lines", "pddl", "pddl-example", "pddl-effect-first")
DEFAULT_FORM = "pddl-example"  # chosen on the dev actions (docs/RESULTS.md, issue 24)


def _form(form: str):
    """(messages, grammar, parse_reply) of a form."""
    if form == "lines":
        return messages, grammar, parse_reply
    if form == "pddl":
        return pddl_form.messages, pddl_form.grammar, pddl_form.parse_reply
    if form == "pddl-example":
        return partial(pddl_form.messages, example=True), pddl_form.grammar, \
            pddl_form.parse_reply
    if form == "pddl-effect-first":
        return (partial(pddl_form.messages, example=True, effect_first=True),
                partial(pddl_form.grammar, effect_first=True), pddl_form.parse_reply)
    raise ValueError(f"no precondition form {form!r} (forms: {', '.join(FORMS)})")


def generate(llm: LLM, use_grammar: bool = True, temperature: float = 0.0,
             seed: int | None = None, cache: Path | None = None, form: str = DEFAULT_FORM,
             actions: dict[str, Callable] | None = None
             ) -> tuple[PreconditionSet, list[dict]]:
    """The LLM's preconditions for every control primitive (or for `actions`: the dev
    actions a form is chosen on), asked in `form`, and the LLM calls it made (none when the
    set came from `cache`, a directory: one file per model and prompt text)."""
    ask, form_grammar, parse = _form(form)
    prims = actions if actions is not None else control_primitives()
    asks = {name: ask(name, fn) for name, fn in prims.items()}
    path = _cache_file(cache, llm.model, asks) if cache and seed is None else None
    cached = _read_cache(path) if path is not None else None
    if cached is not None:
        return cached, []
    conditions, dropped, replies, exchanges = {}, {}, {}, []
    for name, msgs in asks.items():
        params = tuple(inspect.signature(prims[name]).parameters)
        try:
            text, exchange = llm.complete(msgs, max_tokens=40 * MAX_LINES,
                                          grammar=form_grammar(params) if use_grammar else None,
                                          temperature=temperature, seed=seed)
        except PlannerError as e:
            raise PlannerError(f"precondition generation for {name}: {e}", e.exchanges) from None
        exchanges.append({**exchange, "purpose": f"preconditions of {name}"})
        replies[name] = text
        conditions[name], dropped[name] = parse(text, params)
    result = PreconditionSet(conditions, f"llm:{llm.model}", dropped, replies)
    if path is not None:  # atomically: two evaluation workers may write it at once
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(result.to_dict(), indent=1), encoding="utf-8")
        os.replace(tmp, path)
    return result, exchanges


def _read_cache(path: Path) -> PreconditionSet | None:
    """The cached set, or None when there is none or it cannot be read (then it is written
    again: a cache is never a reason for a run to fail)."""
    try:
        return PreconditionSet.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _cache_file(cache: Path, model: str, asks: dict) -> Path:
    digest = hashlib.sha256(json.dumps(asks, sort_keys=True).encode()).hexdigest()[:12]
    safe = re.sub(r"[^\w.-]+", "_", model)
    return Path(cache) / f"{safe}-{digest}.json"


def reference_set() -> PreconditionSet:
    """The hand-written preconditions: the PDDL model's (`predicates.preconditions`), written
    over the parameter names. put(b, dst) needs handempty, clear(b) and clear(dst)."""
    conditions = {}
    for name, fn in control_primitives().items():
        params = tuple(inspect.signature(fn).parameters)
        if params != ("pick", "place"):
            raise ValueError(f"no reference preconditions for {name}{params}")
        back = {"PICK": "pick", "PLACE": "place"}
        conditions[name] = [Condition(p.name, tuple(back[a] for a in p.args), p.want)
                            for p in pddl_preconditions("PICK", ["PLACE"])]
    return PreconditionSet(conditions, "reference")


@dataclass(frozen=True)
class Match:
    """A generated set against the reference: true positives, and every count behind them."""

    generated: int
    reference: int
    correct: int

    @property
    def precision(self) -> float:
        return self.correct / self.generated if self.generated else 1.0

    @property
    def recall(self) -> float:
        return self.correct / self.reference if self.reference else 1.0


def match(generated: PreconditionSet, reference: PreconditionSet | None = None) -> Match:
    """Precision / recall of `generated` against the reference set, over all primitives
    (conditions compared exactly: name, parameters and polarity)."""
    reference = reference or reference_set()
    g = sum(len(v) for v in generated.conditions.values())
    r = sum(len(v) for v in reference.conditions.values())
    c = sum(len(set(generated.conditions.get(k, [])) & set(v))
            for k, v in reference.conditions.items())
    return Match(g, r, c)


def cache_dir() -> Path:
    """`<cache>/preconditions`, beside the packaged model's cache."""
    from runtime.llm.model_store import cache_root

    return cache_root() / "preconditions"
