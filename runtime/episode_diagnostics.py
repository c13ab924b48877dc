"""Why an episode failed, read from its trace: VoLo-style failure categories.

Every action event in a trace carries the step it executed, what the gripper actually picked
(`result.picked`), the situations the simulator injected, and `holds`: whether the step's
relation held in ground truth right after it (recorded for diagnostics only). From those:

- **wrong-object pick**: the actor grasped an object other than the step's first object.
- **wrong-target place**: the right object was picked, nothing was injected, and the relation
  still did not hold: the actor put it in the wrong place.
- **injected failure**: the simulator perturbed the action (drop, place-miss, knock, tip) and
  the relation did not hold. Not a fault of the system; what validation is for.
- **missed failure**: an action left its relation false and the same step was never executed
  again: the controller did not notice (or, in open-loop mode, could not).
- **stuck**: the episode ended on the retry budget, or no codeplan finished.
- **false done**: the codeplan reported done while the task was not complete.

`failure_cause` gives one primary label per failed episode (None for a success): the fault
that left the scene wrong — first a missed failure's own cause (a wrong pick or place if the
actor erred, else "missed failure"), then stuck, false done, planner error, other.
"""

from __future__ import annotations

import json
from pathlib import Path

CAUSES = ("wrong-object pick", "wrong-target place", "missed failure", "stuck", "false done",
          "planner error", "other")


def read_trace(run_dir: str | Path) -> list[dict]:
    """The events of `run_dir`/trace.jsonl (the header line included)."""
    with open(Path(run_dir) / "trace.jsonl") as f:
        return [json.loads(line) for line in f if line.strip()]


def _pick_name(instruction: str) -> str | None:
    from ravens_env.agents.oracle import parse_step

    try:
        return parse_step(instruction)[0]
    except ValueError:
        return None


def classify_action(event: dict) -> str | None:
    """'wrong-object pick' | 'wrong-target place' | 'injected failure' | None (it held, or
    the trace lacks ground truth) for one action event."""
    if event.get("holds", True):
        return None
    result = event.get("result") or {}
    picked, wanted = result.get("picked"), _pick_name(event["instruction"])
    if picked and wanted and picked != wanted:
        return "wrong-object pick"
    if result.get("situations"):
        return "injected failure"
    return "wrong-target place"


def diagnose(events: list[dict], success: bool, believed_done: bool,
             failure_reason: str | None) -> dict:
    """Counts per category and the primary `failure_cause` of one episode."""
    actions = [e for e in events if e.get("type") == "action" and "instruction" in e]
    kinds = [classify_action(e) for e in actions]
    missed = [a for i, a in enumerate(actions) if kinds[i] is not None
              and all(b["instruction"] != a["instruction"] for b in actions[i + 1:])]
    counts = {k: kinds.count(k) for k in ("wrong-object pick", "wrong-target place",
                                          "injected failure")}
    reason = failure_reason or ""
    stuck = reason.startswith("retry budget") or reason.startswith("no codeplan finished")
    out = {**counts, "missed failure": len(missed), "stuck": stuck,
           "false done": believed_done and not success, "failure_cause": None}
    if not success:
        out["failure_cause"] = _primary(missed, stuck, believed_done, reason)
    return out


def _primary(missed: list[dict], stuck: bool, believed_done: bool, reason: str) -> str:
    if missed:
        kind = classify_action(missed[-1])
        return kind if kind in ("wrong-object pick", "wrong-target place") else "missed failure"
    if stuck:
        return "stuck"
    if believed_done:
        return "false done"
    if reason.startswith("planner error"):
        return "planner error"
    return "other"


def diagnose_run(run_dir: str | Path, success: bool, believed_done: bool,
                 failure_reason: str | None) -> dict:
    """`diagnose` on a run directory's trace."""
    return diagnose(read_trace(run_dir), success, believed_done, failure_reason)
