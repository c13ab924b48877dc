"""What the step planners (ReAct, MCTS; issue 24) share: one action as a value, its parsing
and grammar, the codeplan that runs it, the observation they are shown, and their LLM.

A step planner writes one primitive call per codeplan (`Planner.stepwise`): the runner runs
it, looks again and asks for the next (`runtime.runner.MAX_STEPS`). Its actions are
put_first_on_second(pick, place) over the perceived objects, and done() when it believes
the instruction fulfilled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from runtime.planners.base import STEP_RAN, PlannerError, PlanRequest
from runtime.planners.openai_planner import DEFAULT_TIMEOUT_S, OpenAIPlanner
from runtime.planners.prompts import format_history, format_now, format_scene

if TYPE_CHECKING:
    from runtime.planners.local_llm import LocalLLMPlanner

_PUT = re.compile(r"put_first_on_second\(\s*['\"]([^'\"]+)['\"]\s*,\s*['\"]([^'\"]+)['\"]\s*\)")
_DONE = re.compile(r"\bdone\(\s*\)")


@dataclass(frozen=True)
class Step:
    """put(pick, place), or done (pick and place None)."""

    pick: str | None = None
    place: str | None = None

    @property
    def done(self) -> bool:
        return self.pick is None

    def __str__(self) -> str:
        return "done()" if self.done else f"put_first_on_second({self.pick!r}, {self.place!r})"

    def source(self) -> str:
        """The codeplan that runs this step."""
        if self.done:
            return "from plan_actions import tell_planner\n\ntell_planner('done')\n"
        return (f"from control_actions import put_first_on_second\n\n"
                f"put_first_on_second({self.pick!r}, {self.place!r})\n")


def places(objects: list[str]) -> list[str]:
    """Where a block may be put: every perceived object but the table."""
    return [o for o in objects if o != "table"]


def parse_step(text: str, objects: list[str]) -> Step:
    """The first action in a reply ("Action: put_first_on_second('red block', 'blue bowl')" or
    "done()"); PlannerError naming what is wrong (no action, a name not in the scene)."""
    put, done = _PUT.search(text), _DONE.search(text)
    if put and (not done or put.start() < done.start()):
        pick, place = put.group(1), put.group(2)
        blocks = [o for o in objects if o.endswith("block")]
        if pick not in blocks:
            raise PlannerError(f"the step picks {pick!r}, which is not a block in the scene "
                               f"({', '.join(blocks) or 'none'})")
        if place not in places(objects) and not all(p in places(objects)
                                                    for p in place.split(" and ")):
            raise PlannerError(f"the step puts the block on {place!r}, which is not in the "
                               f"scene ({', '.join(places(objects))})")
        if pick == place:
            raise PlannerError(f"the step puts the {pick} on itself")
        return Step(pick, place)
    if done:
        return Step()
    raise PlannerError(f"the reply has no action: {' '.join(text.split())[:160]!r}")


def _alternatives(names: list[str]) -> str:
    return " | ".join(f'"{n}"' for n in names) or '"none"'


def action_grammar(objects: list[str]) -> str:
    """GBNF rules `action`, `pick`, `place` for one action over the scene's objects."""
    blocks = [o for o in objects if o.endswith("block")]
    return (f"""action ::= "done()" | "put_first_on_second('" pick "', '" place "')"\n"""
            f"pick ::= {_alternatives(blocks)}\n"
            f"place ::= {_alternatives(places(objects))}\n")


def observation(request: PlanRequest) -> str:
    """The scene and the episode so far, as a step planner sees it (perceived, never ground
    truth): objects, the start, now, the steps done, and what went wrong last."""
    lines = [f"Instruction: {request.instruction}",
             f"Objects: {format_scene(request.objects)}",
             f"At the start: {format_now(request.initial_facts or request.facts)}",
             f"Now: {format_now(request.facts)}",
             f"Done so far: {format_history(request.history)}"]
    last = request.feedback[-1] if request.feedback else None
    if last and last != STEP_RAN:
        lines.append(f"Last step failed: {last}")
    return "\n".join(lines)


def make_llm(model_path: str | Path | None = None, timeout_s: float = DEFAULT_TIMEOUT_S,
             server_url: str | None = None, fetch: bool = True, base_url: str | None = None,
             model: str | None = None) -> OpenAIPlanner | LocalLLMPlanner:
    """The LLM a step planner talks to: an OpenAI-compatible server (`base_url`, `model`), or
    the packaged local model (shared server; `server_url` of one already running)."""
    if model and not base_url:
        raise PlannerError(f"--model {model} is for an OpenAI-compatible server: give "
                           "--base-url too (without both, the packaged model is used)")
    if base_url:
        return OpenAIPlanner(model or "local", base_url=base_url, timeout_s=timeout_s,
                             max_retries=1)
    from runtime.planners.local_llm import LocalLLMPlanner

    return LocalLLMPlanner(model_path=model_path, timeout_s=timeout_s, server_url=server_url,
                           fetch=fetch)


class UsesLLM:
    """What a step planner shares with the LLM it talks to (`self.llm`): the model's name and
    a plain completion, so that `--preconditions llm` can write its preconditions with it."""

    llm: OpenAIPlanner

    @property
    def model(self) -> str:
        return self.llm.model

    def complete(self, *args, **kwargs) -> tuple[str, dict]:
        return self.llm.complete(*args, **kwargs)


def uses_grammar(llm) -> bool:
    """Grammars are llama.cpp's: sent only to the packaged local model's server."""
    return getattr(llm, "name", "") == "llm"
