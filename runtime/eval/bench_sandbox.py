"""`codeplan bench sandbox`: what running a codeplan in the sandbox costs.

Three figures, each a median over `runs` runs against the logging stub primitives (no
simulator): a trivial codeplan (the fixed cost of a run in the persistent worker), a typical
codeplan (compile + 5 proxied calls), and the cost of one proxied call (a loop of `calls`
calls minus the same loop without them, divided by `calls`).
"""

from __future__ import annotations

import time

from common.stats import summarize_times
from runtime.sandbox import Limits, Sandbox
from runtime.sandbox.stubs import StubPrimitives

TYPICAL = """from control_actions import put_first_on_second
from plan_actions import get_object_names, tell_planner
from reasoning_actions import is_true
for name in get_object_names()[:2]:
    put_first_on_second(name, 'blue bowl')
if is_true('is the red block in the blue bowl?'):
    tell_planner('done')
"""
LOOP = "from reasoning_actions import is_true\nfor i in range({n}):\n    {body}\n"


def bench_sandbox(runs: int = 200, calls: int = 2000) -> dict:
    """Time the three cases: run times in milliseconds, the proxied call in microseconds."""
    if runs < 1 or calls < 1:
        raise ValueError("runs and calls must be at least 1")
    stubs = StubPrimitives(lambda text: None)
    with Sandbox(stubs.api(), Limits(max_calls=calls + 10, max_steps=10 * calls + 100)) as box:
        box.run("pass")  # the first run pays for nothing special, but warms caches
        trivial = _times(box, "pass", runs)
        typical = _times(box, TYPICAL, runs)
        with_calls = _times(box, LOOP.format(n=calls, body="is_true('x')"), 5)
        without = _times(box, LOOP.format(n=calls, body="pass"), 5)
    per_call_us = (with_calls["median"] - without["median"]) / calls * 1e3
    return {"trivial_run_ms": _ms(trivial), "typical_run_ms": _ms(typical),
            "per_call_us": round(per_call_us, 1), "runs": runs, "calls": calls}


def _times(box: Sandbox, source: str, runs: int) -> dict:
    """Summary of `runs` wall times in milliseconds (summarize_times keeps 4 decimals)."""
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        result = box.run(source)
        out.append((time.perf_counter() - t0) * 1e3)
        if not result.ok:
            raise RuntimeError(f"benchmark codeplan failed: {result.error}")
    return summarize_times(out)


def _ms(summary: dict) -> dict:
    return {k: summary[k] for k in ("median", "median_ci95", "p90", "n")}
