"""Why an episode failed, read from its trace: VoLo-style failure categories.

Every action event in a trace carries the step it executed, what the gripper actually picked
(`result.picked`), the situations the simulator injected, and `holds`: whether the step's
relation held in ground truth right after it (recorded for diagnostics only); the
`episode_end` event carries the final ground-truth scene. An action is the *last word* on its
object when no later action picks the same object. From those, per episode:

- **wrong-object pick**: an action whose step did not hold, and the actor grasped an object
  other than the step's first object.
- **wrong-target place**: an action whose step did not hold although the right object was
  picked and nothing was injected: the actor put it in the wrong place.
- **injected failure**: an action whose step did not hold because the simulator perturbed it
  (drop, place-miss). Not a fault of the system; what validation is for.
- **missed failure**: a last-word action whose step does not hold in the final scene: the
  controller never noticed (or, in open-loop mode, could not) and never redid it. Either the
  action itself failed, or **it held and was undone later** (a knock, a tip, a later action:
  counted as "undone later" too) — the failures only the progress mode re-checks.
- **stuck**: no progress for `STUCK_STEPS` actions: the episode's last `STUCK_STEPS` or more
  actions all left their step false in ground truth, or it ended on the retry budget, or no
  codeplan finished the task. `no_progress_streak` is the longest such run of actions.
- **false done**: the codeplan reported done while the task was not complete (ground truth).

`failure_cause` gives one primary label per failed episode (None for a success), the first
that applies: stuck (the controller noticed and could not fix it); then the first missed
failure, by what left it wrong (the actor's own wrong-object pick or wrong-target place, an
injected "missed failure", or "missed failure (undone later)"); then false done (every step
the system took still holds: the plan itself fell short); planner error; episode budget;
reasoner failed (issue 20's stops); other.
"""

from __future__ import annotations

import json
from pathlib import Path

from ravens_env.scene_graph import Relation, Scene, SceneObject
from runtime.controller import MAX_TRIES_PER_CHECK

CAUSES = ("wrong-object pick", "wrong-target place", "missed failure",
          "missed failure (undone later)", "stuck", "false done", "planner error",
          "episode budget", "reasoner failed", "other")
STUCK_STEPS = 1 + MAX_TRIES_PER_CHECK  # as many actions as the controller spends on one step
UNDONE = "missed failure (undone later)"


def read_trace(run_dir: str | Path) -> list[dict]:
    """The events of `run_dir`/trace.jsonl (the header line included)."""
    with open(Path(run_dir) / "trace.jsonl") as f:
        return [json.loads(line) for line in f if line.strip()]


def _parse(instruction: str) -> tuple[str, str] | None:
    from ravens_env.agents.oracle import parse_step

    try:
        return parse_step(instruction)
    except ValueError:
        return None


def classify_action(event: dict) -> str | None:
    """'wrong-object pick' | 'wrong-target place' | 'injected failure' | None (it held, or
    the trace lacks ground truth) for one action event."""
    if event.get("holds", True):
        return None
    result = event.get("result") or {}
    step = _parse(event["instruction"])
    picked, wanted = result.get("picked"), step[0] if step else None
    if picked and wanted and picked != wanted:
        return "wrong-object pick"
    if result.get("situations"):
        return "injected failure"
    return "wrong-target place"


def _progressed(event: dict) -> bool:
    """Did this action make its step hold? An actor error did not; no ground truth: assume so."""
    return bool(event.get("holds", "error" not in event))


def final_scene(events: list[dict]) -> Scene | None:
    """The ground-truth `Scene` at the episode's end (from `episode_end`), or None."""
    end = next((e for e in reversed(events) if e.get("type") == "episode_end"), None)
    if not end or not end.get("final_scene"):
        return None
    raw = end["final_scene"]
    objects = [SceneObject(o["name"], o["type"], o.get("color", ""), tuple(o["position"]))
               for o in raw["objects"]]
    return Scene(objects, [Relation(*r) for r in raw.get("relations", [])])


def _holds_at_end(event: dict, scene: Scene | None) -> bool:
    """The step of `event` in the final scene; without one, right after the action."""
    if scene is None:
        return _progressed(event)
    from ravens_env.agents.oracle import step_holds

    try:
        return step_holds(scene, event["instruction"])
    except ValueError:
        return True


def missed_actions(actions: list[dict], scene: Scene | None) -> list[dict]:
    """Last-word actions whose step does not hold at the end, in execution order."""
    picks = [(_parse(a["instruction"]) or (a["instruction"],))[0] for a in actions]
    return [a for i, a in enumerate(actions)
            if picks[i] not in picks[i + 1:] and not _holds_at_end(a, scene)]


def _streaks(actions: list[dict]) -> tuple[int, int]:
    """(longest, trailing) run of consecutive actions that made no progress."""
    longest = run = 0
    for a in actions:
        run = 0 if _progressed(a) else run + 1
        longest = max(longest, run)
    return longest, run


def _missed_kind(action: dict) -> str:
    if _progressed(action):
        return UNDONE
    kind = classify_action(action)
    return kind if kind in ("wrong-object pick", "wrong-target place") else "missed failure"


def diagnose(events: list[dict], success: bool, believed_done: bool,
             failure_reason: str | None) -> dict:
    """Counts per category, the flags, and the primary `failure_cause` of one episode."""
    actions = [e for e in events if e.get("type") == "action" and "instruction" in e]
    kinds = [classify_action(e) for e in actions]
    missed = missed_actions(actions, final_scene(events))
    longest, trailing = _streaks(actions)
    reason = failure_reason or ""
    stuck = (trailing >= STUCK_STEPS or reason.startswith("retry budget")
             or reason.startswith("no codeplan finished"))
    out = {**{k: kinds.count(k) for k in ("wrong-object pick", "wrong-target place",
                                           "injected failure")},
           "missed failure": len(missed),
           "undone later": sum(_missed_kind(a) == UNDONE for a in missed),
           "no_progress_streak": longest, "stuck": stuck,
           "false done": believed_done and not success, "failure_cause": None}
    if not success:
        out["failure_cause"] = _primary(missed, stuck, believed_done, reason)
    return out


def _primary(missed: list[dict], stuck: bool, believed_done: bool, reason: str) -> str:
    if stuck:
        return "stuck"
    if missed:
        return _missed_kind(missed[0])
    if believed_done:
        return "false done"
    for cause in ("planner error", "episode budget", "reasoner failed"):
        if reason.startswith(cause):
            return cause
    return "other"


def diagnose_run(run_dir: str | Path, success: bool, believed_done: bool,
                 failure_reason: str | None) -> dict:
    """`diagnose` on a run directory's trace."""
    return diagnose(read_trace(run_dir), success, believed_done, failure_reason)
