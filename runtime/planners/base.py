"""The planner seam: a request in, a codeplan (Python source + metadata) out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

# A step planner's feedback for a step that ran without a stop (the runner writes it, the step
# planners read it: `runtime.planners.steps.observation`).
STEP_RAN = "the step ran"


class PlannerError(RuntimeError):
    """The planner could not produce a codeplan; the message says why, for a person.

    `exchanges` are the LLM calls made on the way (see `Codeplan.exchanges`): a failed call
    still cost tokens and seconds, and its raw reply is what a person needs to see.
    """

    def __init__(self, message: str, exchanges: list[dict] | None = None) -> None:
        super().__init__(message)
        self.exchanges: list[dict] = list(exchanges or [])


@dataclass
class PlanRequest:
    """Everything a planner may use. `facts` are (subject, relation, object) triples the
    runtime *perceived* through the reasoner (e.g. ("red block", "in", "blue bowl")), never
    simulator ground truth. `feedback` explains why earlier codeplans did not finish."""

    instruction: str
    objects: list[str]
    facts: list[tuple[str, str, str]] = field(default_factory=list)
    feedback: list[str] = field(default_factory=list)
    previous: list[str] = field(default_factory=list)  # sources of earlier codeplans
    attempt: int = 0  # 0 for the first plan, then 1, 2, ... for recovery plans
    # Memory of the episode: the facts perceived before any action (what "back where they
    # were", "swap" and "reverse" refer to), and the put actions executed so far, in order,
    # as (pick, place) — whether or not they held.
    initial_facts: list[tuple[str, str, str]] = field(default_factory=list)
    history: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Codeplan:
    """A codeplan and how it was made (tokens and latency are 0 for non-LLM planners)."""

    source: str
    planner: str
    model: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    reply: str | None = None  # the raw LLM reply the source was extracted from
    notes: str = ""
    # Every LLM call behind this codeplan: messages, parameters, model, tokens, latency, raw
    # reply (or error). The runner writes each into the trace as an `llm_exchange` event.
    exchanges: list[dict] = field(default_factory=list)
    # What a search planner wants in the trace beside the code (MCTS: its tree), JSON-able.
    details: dict = field(default_factory=dict)


class Planner(Protocol):
    name: str

    def plan(self, request: PlanRequest) -> Codeplan:
        """Write a codeplan for the request; raise PlannerError when it cannot."""
        ...
