"""The offline planner: instruction -> goal -> Fast Downward -> codeplan, with no LLM.

It is the default planner so that every run, test and benchmark works without a network or
an API key, and it is the reference an LLM planner is compared with: same inputs (the
instruction, perceived objects and facts, feedback), same output (codeplan source).
"""

from __future__ import annotations

import time
from dataclasses import replace

from runtime.planners.base import Codeplan, PlannerError, PlanRequest
from runtime.planners.codegen import write_codeplan, write_reference_codeplan
from runtime.planners.goal import Goal
from runtime.planners.instruction_parser import parse_instruction
from runtime.planners.pddl import Solution, Step, solve
from runtime.planners.reasoning_readers import Memory
from runtime.planners.scene_state import SceneState, scene_state

DEFAULT_TIME_LIMIT_S = 20.0  # seconds for one Fast Downward run (typical: 0.2-0.5 s)


class OfflinePlanner:
    """Plans from the perceived scene each time: a recovery plan starts from the facts as they
    are now, so goals that already hold cost no action."""

    name = "offline"

    def __init__(self, time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> None:
        if time_limit_s <= 0:
            raise ValueError(f"time_limit_s must be positive, got {time_limit_s}")
        self.time_limit_s = float(time_limit_s)

    def plan(self, request: PlanRequest) -> Codeplan:
        """Write a codeplan for the request; PlannerError when the instruction cannot be read
        or no sequence of put actions reaches its goal."""
        started = time.perf_counter()
        state = scene_state(list(request.objects), list(request.facts))
        goal = parse_instruction(request.instruction, list(request.objects), memory_of(request,
                                                                                  state))
        if goal.family == "refer":
            source, n = self._refer(request, goal, state)
        else:
            solution = self._solve(goal, state)
            source = write_codeplan(request, goal, state, solution)
            n = len(solution.steps)
        return Codeplan(source, planner=self.name,
                        latency_s=round(time.perf_counter() - started, 4),
                        notes=f"fast-downward: {n} action{'s' * (n != 1)}")

    def _solve(self, goal: Goal, state: SceneState) -> Solution:
        """Fast Downward's plan; a goal with puts asked first (restore) plans those, then the
        rest from the state they leave."""
        if not goal.first:
            return solve(goal, state, self.time_limit_s)
        first = solve(Goal("put", goal.instruction, pairs=goal.first), state, self.time_limit_s)
        after = _after(state, first.steps)
        rest = solve(replace(goal, first=()), after, self.time_limit_s)
        return Solution(first.steps + rest.steps, first.solve_s + rest.solve_s)

    def _refer(self, request: PlanRequest, goal: Goal, state: SceneState) -> tuple[str, int]:
        """One plan per block the reference may turn out to be; the codeplan asks which."""
        candidates = [b for b in state.blocks if b != goal.reference.anchor]
        plans = {}
        for block in candidates:
            try:
                plans[block] = self._solve(Goal("put", goal.instruction,
                                                pairs=((block, goal.place),)), state)
            except PlannerError:
                continue  # that block cannot go there: the codeplan reports it if it is the one
        if not plans:
            raise PlannerError(f"no block can be put in the {goal.place} from the perceived "
                               "scene")
        source = write_reference_codeplan(request, goal, state, candidates, plans)
        return source, max(len(s.steps) for s in plans.values())


def memory_of(request: PlanRequest, state: SceneState) -> Memory:
    """The episode's memory as the readers take it: each block's place at the start (the
    first perception; the facts now when there was none), the puts made, the places now."""
    initial = scene_state(list(request.objects), list(request.initial_facts or request.facts))
    return Memory({b: initial.resting_on(b) for b in initial.blocks},
                  tuple(tuple(h) for h in request.history),
                  {b: state.resting_on(b) for b in state.blocks})


def _after(state: SceneState, steps: list[Step]) -> SceneState:
    """The belief after `steps` succeed (single places only: no pyramid rows here)."""
    support = dict(state.support)
    for step in steps:
        support[step.pick] = step.place
    return SceneState(list(state.objects), support, dict(state.pair_support),
                      list(state.left_of), list(state.ignored))
