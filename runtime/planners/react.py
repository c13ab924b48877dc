"""`--planner react`: the LLM chooses one primitive call at a time (ConceptAgent's baseline,
issue 24), after ReAct (Yao et al., 2023): a thought, then an action, from the observation.

Each call shows the instruction, the perceived scene at the start and now, the puts done so
far and the last failure (`steps.observation`); the reply is "Thought: ... / Action: ..."
(a grammar keeps the local model to that form and to the scene's object names); the action
becomes a one-call codeplan. A reply without a valid action is asked for once more
(sampled), then is a PlannerError.
"""

from __future__ import annotations

from pathlib import Path

from runtime.planners.base import Codeplan, PlannerError, PlanRequest
from runtime.planners.openai_planner import DEFAULT_TIMEOUT_S
from runtime.planners.prompts import PROMPTS_DIR, load_prompt
from runtime.planners.steps import (
    Step,
    UsesLLM,
    action_grammar,
    make_llm,
    observation,
    parse_step,
    uses_grammar,
)

MAX_STEP_TOKENS = 90  # a thought of one sentence and one action


class ReActPlanner(UsesLLM):
    """One step per call; `complete` and `model` are the LLM's (for `--preconditions llm`)."""

    name = "react"
    stepwise = True

    def __init__(self, model_path: str | Path | None = None,
                 timeout_s: float = DEFAULT_TIMEOUT_S, server_url: str | None = None,
                 fetch: bool = True, base_url: str | None = None,
                 model: str | None = None) -> None:
        self.llm = make_llm(model_path, timeout_s, server_url, fetch, base_url, model)

    def plan(self, request: PlanRequest) -> Codeplan:
        messages = step_messages(request)
        grammar = ('root ::= "Thought: " [^\\n]+ "\\nAction: " action\n'
                   + action_grammar(request.objects)) if uses_grammar(self.llm) else None
        exchanges: list[dict] = []
        for ask in range(2):
            try:
                text, exchange = self.llm.complete(
                    messages, MAX_STEP_TOKENS, grammar, temperature=0.0 if ask == 0 else 0.7,
                    seed=None if ask == 0 else request.attempt + 1)
            except PlannerError as e:
                raise PlannerError(str(e), exchanges + e.exchanges) from None
            exchanges.append({**exchange, "attempt": request.attempt})
            try:
                step = parse_step(text, request.objects)
            except PlannerError as e:
                exchanges[-1]["error"] = str(e)
                continue
            exchanges[-1]["source"] = step.source()
            return _codeplan(step, text, exchanges, self.name, self.model)
        raise PlannerError(f"no valid step: {exchanges[-1]['error']}", exchanges)


def step_messages(request: PlanRequest, directory: Path = PROMPTS_DIR) -> list[dict]:
    """The system prompt (actions, one example) and the observation, asking for the step."""
    return [{"role": "system", "content": load_prompt("react_system.txt", directory).strip()},
            {"role": "user", "content": observation(request)}]


def _codeplan(step: Step, text: str, exchanges: list[dict], planner: str,
              model: str) -> Codeplan:
    return Codeplan(step.source(), planner=planner, model=model,
                    prompt_tokens=sum(int(x.get("prompt_tokens") or 0) for x in exchanges),
                    completion_tokens=sum(int(x.get("completion_tokens") or 0)
                                          for x in exchanges),
                    latency_s=round(sum(float(x.get("latency_s") or 0) for x in exchanges), 4),
                    reply=text, notes=f"step: {step}", exchanges=exchanges)
