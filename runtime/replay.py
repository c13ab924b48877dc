"""`codeplan replay`: re-run a recorded episode's codeplans without simulator, reasoner or LLM.

Each recorded LLM reply (an `llm_exchange` event) is turned into a codeplan again by the
planner's own code (`extract_code`, `with_imports`), which must give the recorded codeplan:
so a change to the reply handling that would have changed a plan shows up with no model.
Each recorded codeplan then runs again in the sandbox; every primitive call it makes is answered
with the recorded result (or recorded error, or recorded stop). The first call that differs
from the recording — another function, other arguments, a call too many or too few — is a
divergence and ends the replay loudly. `--resimulate` instead runs the recorded codeplans in a
fresh simulator with the recorded settings and compares the outcome.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runtime.controller import ActionStuck, EpisodeStop, PlannerReport, RetryBudgetExceeded
from runtime.planners.base import Codeplan, PlannerError, PlanRequest
from runtime.run_config import RunConfig, RunResult
from runtime.sandbox import Sandbox
from runtime.trace import read_trace

_STOPS = {c.__name__: c for c in (PlannerReport, ActionStuck, RetryBudgetExceeded)}


class ReplayDivergence(BaseException):
    """The replayed codeplan did something the recording did not (ends the codeplan)."""


@dataclass
class ReplayReport:
    plans: int
    calls: int
    llm_replies: int = 0  # recorded LLM replies turned into their codeplans again

    def to_dict(self) -> dict[str, int]:
        return {"plans": self.plans, "calls": self.calls, "llm_replies": self.llm_replies}


def replay_trace(path: Path) -> ReplayReport:
    """Replay every LLM reply and codeplan of a trace; raises ReplayDivergence at the first
    difference."""
    _, events = read_trace(path)
    replies = replay_llm_replies(events)
    calls = 0
    for plan, recorded_calls, end in _segments(events):
        calls += _replay_plan(plan, recorded_calls, end)
    return ReplayReport(plans=sum(1 for e in events if e["type"] == "plan"), calls=calls,
                        llm_replies=replies)


def replay_llm_replies(events: list[dict]) -> int:
    """Re-derive each codeplan from the last LLM reply recorded before it; the number checked.
    Why: the reply handling is the planner code a real model's output goes through, and this
    checks it against real replies with no model at all."""
    from runtime.planners.openai_planner import extract_code, with_imports

    last: dict | None = None
    checked = 0
    for e in events:
        if e["type"] == "llm_exchange":
            last = e
        elif e["type"] == "plan" and last is not None and last.get("reply") is not None:
            code = extract_code(last["reply"])
            got = with_imports(code) if code is not None else None
            if got != e["source"]:
                raise ReplayDivergence(f"codeplan {e['attempt']}: the recorded LLM reply now "
                                       f"gives {got!r}, the recording has {e['source']!r}")
            checked, last = checked + 1, None
    return checked


def _segments(events: list[dict]) -> list[tuple[dict, list[dict], dict | None]]:
    """(plan event, its call events, its sandbox_end event) in order."""
    out: list[tuple[dict, list[dict], dict | None]] = []
    for e in events:
        if e["type"] == "plan":
            out.append((e, [], None))
        elif e["type"] == "call" and out:
            out[-1][1].append(e)
        elif e["type"] == "sandbox_end" and out:
            out[-1] = (out[-1][0], out[-1][1], e)
    return out


def _replay_plan(plan: dict, recorded: list[dict], end: dict | None) -> int:
    queue = deque(recorded)
    api = _replay_api(queue, plan["attempt"])
    stop_name = None
    with Sandbox(api) as sandbox:
        try:
            result = sandbox.run(plan["source"])
            kind, error = result.kind, result.error
        except EpisodeStop as stop:
            kind, error, stop_name = "stopped", None, type(stop).__name__
    where = f"codeplan {plan['attempt']}"
    if queue:
        raise ReplayDivergence(f"{where}: ended with {len(queue)} recorded call(s) not made, "
                               f"next: {_show(queue[0])}")
    if end is not None:
        expected = (end["kind"], end["error"], end.get("stop"))
        if (kind, error, stop_name) != expected:
            raise ReplayDivergence(f"{where}: ended as {(kind, error, stop_name)}, recorded "
                                   f"{expected}")
    return len(recorded)


def _replay_api(queue: deque, attempt: int) -> dict:
    import primitives

    names = {m: list(fns) for m, fns in primitives.sandbox_api().items()}
    return {m: {n: _answerer(m, n, queue, attempt) for n in fns} for m, fns in names.items()}


def _answerer(module: str, name: str, queue: deque, attempt: int):
    def call(*args: Any, **kwargs: Any) -> Any:
        made = {"module": module, "function": name, "args": list(args), "kwargs": kwargs}
        if not queue:
            raise ReplayDivergence(f"codeplan {attempt}: extra call {_show(made)}")
        rec = queue.popleft()
        made = json.loads(json.dumps(made, default=list))  # as the trace stored it (tuples->lists)
        if [rec[k] for k in made] != list(made.values()):
            raise ReplayDivergence(f"codeplan {attempt}: call {_show(made)} but the recording "
                                   f"has {_show(rec)}")
        if "stop" in rec:
            raise _STOPS.get(rec["stop"], EpisodeStop)(rec["feedback"])
        if "error" in rec:
            raise ValueError(rec["error"])
        return rec["result"]

    return call


def _show(call: dict) -> str:
    args = ", ".join(repr(a) for a in call["args"])
    return f"{call['function']}({args})"


class RecordedPlanner:
    """Returns a trace's codeplans in order (for --resimulate)."""

    name = "recorded"

    def __init__(self, sources: list[str]) -> None:
        self.sources = sources

    def plan(self, request: PlanRequest) -> Codeplan:
        if request.attempt >= len(self.sources):
            raise PlannerError(f"the recording has only {len(self.sources)} codeplan(s)")
        return Codeplan(self.sources[request.attempt], planner="recorded")


def resimulate(path: Path, runs_dir: Path) -> tuple[RunResult, dict]:
    """Run the recorded codeplans again in a fresh simulator; returns (new result, recorded
    episode_end) for the caller to compare."""
    from runtime.runner import run_episode

    header, events = read_trace(path)
    end = next((e for e in events if e["type"] == "episode_end"), None)
    if end is None:
        raise PlannerError("the recording has no episode_end (crashed run?); cannot compare")
    sources = [e["source"] for e in events if e["type"] == "plan"]
    config = RunConfig(instruction=header["instruction"], task=header["task"],
                       seed=header["seed"], mode=header["mode"], planner="recorded",
                       reasoner=header["reasoner"], actor=header["actor"],
                       situations=header["situations"], runs_dir=runs_dir,
                       max_plans=len(sources))
    return run_episode(config, planner=RecordedPlanner(sources)), end
