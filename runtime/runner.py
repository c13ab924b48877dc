"""One closed-loop episode: perceive, plan, run the codeplan sandboxed, re-plan, score.

    objects, facts <- reasoner            (what the planner may know)
    codeplan <- planner(instruction, objects, facts, feedback)
    sandbox.run(codeplan) -> primitives -> controller -> actor/env, reasoner
    done? score from ground truth : feedback -> next codeplan (at most max_plans)
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import threading
import time
import traceback
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import primitives
from primitives import episode
from ravens_env.env import TabletopEnv
from ravens_env.situations import parse_situations
from ravens_env.tasks import make_task
from runtime.components import make_actor, make_reasoner
from runtime.controller import (
    MAX_RETRIES,
    MODES,
    WATCH_MODE,
    ActionStuck,
    Controller,
    EpisodeBudget,
    EpisodeOver,
    EpisodeStop,
    PlannerReport,
    Replan,
)
from runtime.monitors import MONITOR_MODES
from runtime.planners.base import STEP_RAN, Codeplan, Planner, PlannerError, PlanRequest
from runtime.run_config import RunConfig, RunError, RunResult
from runtime.sandbox import Sandbox, SandboxResult
from runtime.trace import TraceWriter

_DONE = re.compile(r"^\s*(task\s+(is\s+)?)?(done|finished|complete|completed)\b", re.IGNORECASE)
_NOT_AGAIN = ("budget", "killed")  # sandbox outcomes not worth re-running unchanged
DEFAULT_MAX_PLANS = 5  # the first codeplan and 4 recovery codeplans (seed paper's modes)
# A step planner (ReAct, MCTS: `Planner.stepwise`) writes one action per codeplan: its budget
# is in steps. The reasoning suite's longest task is 6 puts; 3x that leaves room for redos.
MAX_STEPS = 18


@dataclass
class _Outcome:
    believed_done: bool = False
    failure_reason: str | None = None
    feedback: list[str] = field(default_factory=list)
    plans: list[Codeplan] = field(default_factory=list)
    last_kind: str | None = None  # how the last codeplan's sandbox run ended
    exchanges: list[dict] = field(default_factory=list)  # every LLM call, failed ones too


def run_episode(config: RunConfig, planner: Planner | None = None) -> RunResult:
    """Run one episode end to end; raises RunError only when it cannot start."""
    _validate(config)
    planner = planner or _planner(config)
    run_dir = _new_run_dir(config)
    started = time.perf_counter()
    with Sandbox(_recorded_api(lambda: trace)) as sandbox, \
            TabletopEnv(situations=config.situations) as env:
        obs = env.reset(config.task, config.seed)
        instruction = config.instruction or env.task.instruction
        trace = TraceWriter(run_dir, {**config.to_dict(), "instruction": instruction,
                                      "canonical_instruction": env.task.instruction})
        try:
            trace.frame(obs.front_rgb, "reset")
            reasoner = make_reasoner(config.reasoner, env)
            gate, exchanges = _gate(config, planner, reasoner, trace)
            controller = Controller(env, make_actor(config.actor, env), reasoner, config.mode,
                                    obs, trace,
                                    EpisodeBudget(config.max_episode_s, config.max_episode_calls),
                                    toolbox=_toolbox(config), tool_switch=config.tool_switch,
                                    gate=gate)
            outcome = _plan_and_run(config, instruction, planner, sandbox, controller, trace,
                                    exchanges)
            result = _score(config, env, controller, outcome, instruction, run_dir, started)
            trace.event("episode_end", **result.to_dict())
        except BaseException as e:
            trace.event("crash", error=f"{type(e).__name__}: {e}",
                        traceback=traceback.format_exc())
            raise
        finally:
            trace.close()
    if config.report:
        result.report_error = _write_report(run_dir)
    return result


PRECONDITION_SOURCES = ("none", "llm", "reference")


def _gate(config: RunConfig, planner: Planner, reasoner, trace: TraceWriter):
    """ConceptAgent's precondition gate (None for "none") and the LLM calls that wrote its
    preconditions (none when they came from the cache). Why here: the set is the planner's
    LLM's, written once per model (cached); the report shows it from the trace."""
    if config.preconditions == "none":
        return None, []
    from runtime.monitors import unsure_below
    from runtime.monitors.gate import PreconditionGate
    from runtime.planners import preconditions as pc

    exchanges: list[dict] = []
    if config.preconditions == "reference":
        conditions = pc.reference_set()
    elif not hasattr(planner, "complete"):
        raise RunError(f"--preconditions llm: the {planner.name} planner has no LLM to write "
                       f"them (use --planner llm, openai, react or mcts)")
    else:
        try:
            conditions, exchanges = pc.generate(planner, cache=pc.cache_dir())
        except PlannerError as e:
            for exchange in e.exchanges:
                trace.event("llm_exchange", **exchange)
            raise RunError(f"--preconditions llm: {e}") from None
    for exchange in exchanges:
        trace.event("llm_exchange", **exchange)
    trace.event("preconditions", **conditions.to_dict())
    return PreconditionGate(conditions, lambda: unsure_below(reasoner.name)), exchanges


def _toolbox(config: RunConfig):
    """The grounded tools (the shipped detector) where the mode or --tool-switch uses them."""
    if config.mode != WATCH_MODE and not config.tool_switch:
        return None
    from runtime.tools import make_toolbox

    return make_toolbox(make_reasoner("detector", None))


def _write_report(run_dir: Path) -> str | None:
    """Write the HTML report; the reason it failed, or None. Why not raise: the episode is
    over and scored, and a report that cannot be written must not lose its result."""
    from runtime.report import write_report

    try:
        write_report(run_dir)
    except Exception as e:
        return f"report.html not written: {type(e).__name__}: {e}"
    return None


def _validate(config: RunConfig) -> None:
    if config.mode not in MODES:
        raise RunError(f"unknown mode {config.mode!r}; modes: {', '.join(MODES)}")
    try:
        make_task(config.task)
        parse_situations(config.situations)
    except (KeyError, ValueError) as e:
        raise RunError(str(e)) from None
    if config.preconditions not in PRECONDITION_SOURCES:
        raise RunError(f"unknown preconditions {config.preconditions!r}; choose "
                       f"{', '.join(PRECONDITION_SOURCES)}")
    if config.max_plans is not None and config.max_plans < 1:
        raise RunError("max_plans must be at least 1")
    if not config.max_episode_s > 0 or config.max_episode_calls < 1:
        raise RunError(f"the episode budget must be positive: max_episode_s "
                       f"{config.max_episode_s}, max_episode_calls {config.max_episode_calls}")


def _planner(config: RunConfig) -> Planner:
    from runtime.planners.registry import make_planner  # the openai client is a heavy import

    try:
        return make_planner(config.planner, **config.planner_options)
    except (PlannerError, ValueError, TypeError) as e:
        raise RunError(f"planner {config.planner!r}: {e}") from None


def _new_run_dir(config: RunConfig) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    name = f"{stamp}-{config.task}-s{config.seed}-{config.mode}-{uuid.uuid4().hex[:6]}"
    return Path(config.runs_dir) / name


def _recorded_api(get_trace) -> dict:
    """The primitives, each wrapped to record its call, result or error in the trace (what
    `codeplan replay` answers from). `get_trace` is late-bound: the sandbox worker is forked
    before the trace exists, and only the host side ever calls these wrappers."""
    api = primitives.sandbox_api()
    return {module: {name: _recorder(module, name, fn, get_trace) for name, fn in fns.items()}
            for module, fns in api.items()}


def _recorder(module: str, name: str, fn, get_trace):
    def call(*args: Any, **kwargs: Any) -> Any:
        record = {"module": module, "function": name, "args": list(args), "kwargs": kwargs}
        try:
            result = fn(*args, **kwargs)
        except EpisodeStop as stop:
            get_trace().event("call", **record, stop=type(stop).__name__, feedback=stop.feedback)
            raise
        except Exception as e:
            get_trace().event("call", **record, error=str(e))
            raise
        get_trace().event("call", **record, result=result)
        return result

    call.__name__ = name
    return call


def _plan_and_run(config: RunConfig, instruction: str, planner: Planner, sandbox: Sandbox,
                  controller: Controller, trace: TraceWriter,
                  exchanges: list[dict] | None = None) -> _Outcome:
    outcome = _Outcome(exchanges=list(exchanges or []))
    try:
        _plan_loop(config, instruction, planner, sandbox, controller, trace, outcome)
    except EpisodeOver as stop:  # outside a codeplan: perception, the claims check
        outcome.failure_reason = stop.reason
    return outcome


def _plan_loop(config: RunConfig, instruction: str, planner: Planner, sandbox: Sandbox,
               controller: Controller, trace: TraceWriter, outcome: _Outcome) -> None:
    initial: list[tuple[str, str, str]] = []
    for attempt in range(plan_budget(config, planner)):
        controller.budget.check()
        with episode.active(controller):
            objects, facts = controller.planning_facts(first=attempt == 0)
        initial = initial if attempt else list(facts)  # before any action: the memory
        request = PlanRequest(instruction, objects, facts, list(outcome.feedback),
                              [p.source for p in outcome.plans], attempt,
                              initial_facts=initial, history=list(controller.history))
        with controller.budget.planner_time():
            plan = _request_plan(planner, request, trace, outcome,
                                 fatal=attempt == 0 and config.first_plan_error_is_fatal)
        if plan is None or _same_plan_again(plan, outcome):
            return
        feedback = _run_codeplan(plan, sandbox, controller, trace, outcome,
                                 stepwise=getattr(planner, "stepwise", False))
        if feedback is None:
            return
        outcome.feedback.append(feedback)
        trace.event("step" if feedback == STEP_RAN else "replan", attempt=attempt + 1,
                    feedback=feedback)
    outcome.failure_reason = (f"no codeplan finished the task in {plan_budget(config, planner)} "
                              f"codeplans; last feedback: {outcome.feedback[-1]}")


def plan_budget(config: RunConfig, planner: Planner | None = None) -> int:
    """How many codeplans an episode may use: `max_plans`, or by default 5 (the first and 4
    recovery codeplans) — and in a monitor mode 1 + MAX_RETRIES, since there a replan
    stands where progress mode redoes an action, and it gets the same budget; a step
    planner's codeplans are single steps: MAX_STEPS."""
    if config.max_plans is not None:
        return config.max_plans
    if getattr(planner, "stepwise", False):
        return MAX_STEPS
    return 1 + MAX_RETRIES if config.mode in MONITOR_MODES else DEFAULT_MAX_PLANS


def _same_plan_again(plan: Codeplan, outcome: _Outcome) -> bool:
    """True (and the failure recorded) when a codeplan the sandbox stopped for its budget or
    killed comes back unchanged: it would only spend the same time again (a file planner
    returns its file on every attempt)."""
    if outcome.last_kind not in _NOT_AGAIN or len(outcome.plans) < 2:
        return False
    if plan.source != outcome.plans[-2].source:
        return False
    outcome.failure_reason = (f"the planner returned the same codeplan after the sandbox "
                              f"stopped it ({outcome.last_kind}): {outcome.feedback[-1]}; "
                              f"not run again")
    return True


def _request_plan(planner: Planner, request: PlanRequest, trace: TraceWriter,
                  outcome: _Outcome, fatal: bool) -> Codeplan | None:
    trace.event("plan_request", attempt=request.attempt, objects=request.objects,
                facts=request.facts, feedback=request.feedback, history=request.history)
    try:
        plan = planner.plan(request)
    except PlannerError as e:
        _record_exchanges(e.exchanges, trace, outcome)
        if fatal:
            raise RunError(f"{planner.name} planner: {e}") from None
        trace.event("plan_error", attempt=request.attempt, error=str(e))
        outcome.failure_reason = f"planner error: {e}"
        return None
    _record_exchanges(plan.exchanges, trace, outcome)
    outcome.plans.append(plan)
    trace.event("plan", attempt=request.attempt, source=plan.source, planner=plan.planner,
                model=plan.model, prompt_tokens=plan.prompt_tokens,
                completion_tokens=plan.completion_tokens, latency_s=plan.latency_s,
                reply=plan.reply, notes=plan.notes,
                **({"details": plan.details} if plan.details else {}))
    return plan


def _record_exchanges(exchanges: list[dict], trace: TraceWriter, outcome: _Outcome) -> None:
    """Each LLM call into the trace as an `llm_exchange` event (messages, parameters, model,
    tokens, latency, raw reply or error) and into the episode's accounting. Why failed calls
    too: they cost tokens and seconds, and their raw replies are what a person debugs."""
    for exchange in exchanges:
        trace.event("llm_exchange", **exchange)
        outcome.exchanges.append(exchange)


def llm_counts(exchanges: list[dict]) -> dict[str, float]:
    """Calls, prompt and completion tokens and LLM seconds of an episode's exchanges."""
    return {"llm_calls": len(exchanges),
            "prompt_tokens": sum(int(x.get("prompt_tokens") or 0) for x in exchanges),
            "completion_tokens": sum(int(x.get("completion_tokens") or 0) for x in exchanges),
            "llm_s": round(sum(float(x.get("latency_s") or 0.0) for x in exchanges), 3)}


def _run_codeplan(plan: Codeplan, sandbox: Sandbox, controller: Controller,
                  trace: TraceWriter, outcome: _Outcome, stepwise: bool = False) -> str | None:
    """Run one codeplan; None when the episode is over, else feedback for the next plan."""
    stop: EpisodeStop | None = None
    result: SandboxResult | None = None
    with episode.active(controller), _deadline(sandbox, controller.budget):
        try:
            controller.begin_codeplan()
            result = sandbox.run(plan.source)
        except EpisodeStop as e:
            stop = e
    if stop is None:
        stop = controller.budget.exceeded()  # e.g. killed at the deadline: the real reason
    outcome.last_kind = result.kind if result else "stopped"
    trace.event("sandbox_end", kind=outcome.last_kind,
                error=result.error if result else None,
                stop=type(stop).__name__ if stop else None,
                feedback=stop.feedback if stop else None,
                prints=result.prints if result else [], steps=result.steps if result else 0)
    return _judge(result, stop, outcome, stepwise)


@contextlib.contextmanager
def _deadline(sandbox: Sandbox, budget: EpisodeBudget):
    """Kill the sandbox worker when the episode's time runs out mid-codeplan. Why: the
    sandbox's own clock allows each codeplan 10 s of computing, and a codeplan started
    with 1 s of budget left would otherwise end 9 s late."""
    def kill() -> None:
        pid = sandbox.worker_pid
        if pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)

    timer = threading.Timer(max(budget.remaining_s(), 0.0) + 0.5, kill)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _judge(result: SandboxResult | None, stop: EpisodeStop | None,
           outcome: _Outcome, stepwise: bool = False) -> str | None:
    if isinstance(stop, EpisodeOver):
        outcome.failure_reason = stop.reason
        return None
    if isinstance(stop, PlannerReport):
        if _DONE.match(stop.feedback):
            outcome.believed_done = True
            return None
        return f"the codeplan reported: {stop.feedback}"
    if isinstance(stop, ActionStuck):
        return f"an action kept failing: {stop.feedback}"
    if isinstance(stop, Replan):
        return f"a check of the action model failed: {stop.feedback}"
    if result is not None and result.ok and stepwise:
        return STEP_RAN  # a step planner's step: the next one is asked for
    if result is not None and result.ok:
        return ("the codeplan ended without calling tell_planner('done'); call it when the "
                "task is complete, or tell_planner('<problem>') when it cannot be")
    error = result.error if result else "stopped"
    return f"the codeplan stopped ({result.kind if result else 'stop'}): {error}"


def _score(config: RunConfig, env: TabletopEnv, controller: Controller, outcome: _Outcome,
           instruction: str, run_dir: Path, started: float) -> RunResult:
    success = env.success()
    reason = outcome.failure_reason
    if not success and reason is None:
        reason = ("false done: the codeplan reported done but the task is not complete"
                  if outcome.believed_done else "stopped before the task was complete")
    steps = outcome.feedback.count(STEP_RAN)  # a step planner's steps are not replans
    counts = {**controller.counters.to_dict(),
              "replans": max(0, len(outcome.plans) - 1 - steps),
              "planner_calls": len(outcome.plans), **llm_counts(outcome.exchanges)}
    return RunResult(
        success=success, run_dir=str(run_dir), task=config.task, seed=config.seed,
        instruction=instruction, mode=config.mode, planner=config.planner,
        reasoner=config.reasoner, actor=config.actor, situations=config.situations,
        believed_done=outcome.believed_done, failure_reason=None if success else reason,
        counts=counts, wall_s=round(time.perf_counter() - started, 3),
        final_scene=env.scene().to_json(), plans=[p.source for p in outcome.plans],
    )
