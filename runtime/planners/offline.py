"""The offline planner: instruction -> goal -> Fast Downward -> codeplan, with no LLM.

It is the default planner so that every run, test and benchmark works without a network or
an API key, and it is the reference an LLM planner is compared with: same inputs (the
instruction, perceived objects and facts, feedback), same output (codeplan source).
"""

from __future__ import annotations

import time

from runtime.planners.base import Codeplan, PlanRequest
from runtime.planners.codegen import write_codeplan
from runtime.planners.instruction_parser import parse_instruction
from runtime.planners.pddl import solve
from runtime.planners.scene_state import scene_state

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
        goal = parse_instruction(request.instruction, list(request.objects))
        state = scene_state(list(request.objects), list(request.facts))
        solution = solve(goal, state, self.time_limit_s)
        source = write_codeplan(request, goal, state, solution)
        n = len(solution.steps)
        return Codeplan(source, planner=self.name,
                        latency_s=round(time.perf_counter() - started, 4),
                        notes=f"fast-downward: {n} action{'s' * (n != 1)}")
