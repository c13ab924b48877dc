"""`codeplan replay`: re-run a recorded episode's codeplans without simulator, reasoner or LLM.

Each recorded LLM reply (an `llm_exchange` event) is turned into a codeplan again by the
planner's own code (`extract_code`, `with_imports`), which must give the recorded codeplan:
so a change to the reply handling that would have changed a plan shows up with no model.
Each recorded codeplan then runs again in the sandbox; every primitive call it makes is answered
with the recorded result (or recorded error, or recorded stop). The first call that differs
from the recording — another function, other arguments, a call too many or too few — is a
divergence and ends the replay loudly. `--resimulate` instead runs the recorded codeplans in a
fresh simulator with the recorded settings and compares the outcome.

A trace without `episode_end` is of a run that stopped early (killed, crashed): the replay
says so and after which event, and replays what was recorded; the codeplan that was running
then is followed up to its last recorded call.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runtime import controller
from runtime.controller import EpisodeStop
from runtime.planners.base import Codeplan, PlannerError, PlanRequest
from runtime.run_config import RunConfig, RunResult
from runtime.sandbox import Sandbox
from runtime.trace import read_trace

# Every stop the controller can raise, by the name the trace records.
_STOPS = {c.__name__: c for c in vars(controller).values()
          if isinstance(c, type) and issubclass(c, EpisodeStop)}


class ReplayDivergence(BaseException):
    """The replayed codeplan did something the recording did not (ends the codeplan)."""


class _RecordingEnds(BaseException):
    """The codeplan asked for a call past the end of a stopped-early recording."""


class StoppedEarly(ValueError):
    """The trace has no `episode_end`, so there is no outcome to compare with."""


@dataclass
class ReplayReport:
    plans: int
    calls: int
    llm_replies: int = 0  # recorded LLM replies turned into their codeplans again
    stopped_early: str | None = None  # where the run stopped, when it has no episode_end

    def to_dict(self) -> dict[str, int | str | None]:
        return {"plans": self.plans, "calls": self.calls, "llm_replies": self.llm_replies,
                "stopped_early": self.stopped_early}


def replay_trace(path: Path) -> ReplayReport:
    """Replay every LLM reply and codeplan of a trace; raises ReplayDivergence at the first
    difference. A run that stopped early is replayed up to its last recorded event."""
    _, events = read_trace(path)
    early = stopped_early(events)
    replies = replay_llm_replies(events)
    calls = 0
    segments = _segments(events)
    for i, (plan, recorded_calls, end) in enumerate(segments):
        # Ended by the clock (the episode budget), a codeplan's end depends on time, not on
        # its calls: it is replayed up to its last recorded call, like a killed run's.
        timed = end is not None and end.get("stop") == "EpisodeBudgetExceeded"
        open_end = timed or (early is not None and end is None and i == len(segments) - 1)
        calls += _replay_plan(plan, recorded_calls, None if timed else end, open_end)
    return ReplayReport(plans=len(segments), calls=calls, llm_replies=replies,
                        stopped_early=early)


def stopped_early(events: list[dict]) -> str | None:
    """None for a run that ended; else where it stopped ("after event 57 (call ...)").
    Why say it: a killed run's trace otherwise replays as "identical" (or as a divergence
    past its end), which reads as a finished run."""
    if any(e.get("type") == "episode_end" for e in events):
        return None
    crash = next((e for e in events if e.get("type") == "crash"), None)
    last = next((e for e in reversed(events) if e.get("type") != "crash"), None)
    where = (f"after event {last.get('seq')} ({_describe(last)})" if last else
             "after the header, before any event")
    why = f"; it crashed: {crash.get('error')}" if crash else " (killed?)"
    return f"the trace ends {where} with no episode_end{why}"


def _describe(event: dict) -> str:
    kind = str(event.get("type"))
    if kind == "call":
        return f"call {event.get('function')}"
    if kind in ("plan", "plan_request", "sandbox_end", "replan"):
        return f"{kind} of codeplan {event.get('attempt', '?')}" if "attempt" in event else kind
    if kind == "action":
        return f"action '{event.get('instruction')}'"
    return kind


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


def _replay_plan(plan: dict, recorded: list[dict], end: dict | None, open_end: bool) -> int:
    """Replay one codeplan against its recorded calls; `open_end`: the run stopped during it,
    so a call past the recording ends it quietly instead of diverging."""
    queue = deque(recorded)
    api = _replay_api(queue, plan["attempt"], open_end)
    stop_name = None
    with Sandbox(api) as sandbox:
        try:
            result = sandbox.run(plan["source"])
            kind, error = result.kind, result.error
        except EpisodeStop as stop:
            kind, error, stop_name = "stopped", None, type(stop).__name__
        except _RecordingEnds:
            return len(recorded)
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


def _replay_api(queue: deque, attempt: int, open_end: bool = False) -> dict:
    import primitives

    names = {m: list(fns) for m, fns in primitives.sandbox_api().items()}
    return {m: {n: _answerer(m, n, queue, attempt, open_end) for n in fns}
            for m, fns in names.items()}


def _answerer(module: str, name: str, queue: deque, attempt: int, open_end: bool):
    def call(*args: Any, **kwargs: Any) -> Any:
        made = {"module": module, "function": name, "args": list(args), "kwargs": kwargs}
        if not queue and open_end:
            raise _RecordingEnds
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
        raise StoppedEarly(f"the run stopped early: {stopped_early(events)}; there is no "
                           f"outcome to compare with (plain `codeplan replay` replays it)")
    sources = [e["source"] for e in events if e["type"] == "plan"]
    config = RunConfig(instruction=header["instruction"], task=header["task"],
                       seed=header["seed"], mode=header["mode"], planner="recorded",
                       reasoner=header["reasoner"], actor=header["actor"],
                       situations=header["situations"], runs_dir=runs_dir,
                       max_plans=len(sources), tool_switch=header.get("tool_switch", False))
    return run_episode(config, planner=RecordedPlanner(sources)), end
