"""The failure and monitor audit (VoLo's): world failures and what became of them, monitor
errors, halt latency and wasted motion, scored from ground truth in the traces.

Ground truth reaches a trace only as labels the controller never reads (`holds` on actions,
`truth` on checks, `picked` / `situations` / `lost_s` in action results). Per episode:

World failures — each action whose step did not hold right after it, by kind:
  dropped            the block fell off the cup (drop in transport, pick_drop, place_drop)
  failed grasp       the cup did not seal or did not let go (pick_stay, place_held), or
                     came down on bare table
  wrong-object pick  the actor lifted another block than the step's
  wrong-target place the right block, put down somewhere else
and its **recovery**, the first thing that followed: a halt and its recovery (`halt:grasp`,
`halt:place`, `halt:replan`), a redo with a grounded tool (`tool:grasp`, `tool:place`,
`tool:grasp+place`), a plain `redo`, a `replan`, or `none`; **recovered** when a later action
of the same step held or the step holds in the final scene. **stuck**: the diagnostics' flag.
**displaced by an action**: an action that moved another object more than 1 cm (`displaced`
in its result, ground truth) with no injected knock, tip or edge — the arm or the carried
block struck it (natural failures), or the place shoved it (a block set down on or against
others); counted per action, with the episodes that had one and how many of those still
succeeded.

Monitor errors, against ground truth:
  false completion   a check believed a step held that did not
  missed completion  a check believed a step failed that held
  missed failure     monitor mode: a block lost in transport or a wrong block lifted, and no
                     halt followed
  false alarm        a halt whose reason ground truth denies (the right block was lifted; no
                     block was lost); halts that redirect a place are counted, not scored
An action that finishes a halt (`after_halt`: the held block put back, or carried on to the
perceived target) is part of the halted failure, not a failure of its own; its motion counts.
Halt latency: simulated seconds from losing a block in transport to the halt. Wasted motion:
simulated seconds of arm motion in actions whose step did not hold.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from statistics import median

from runtime.eval.diagnostics import _parse, diagnose, final_scene, read_trace

KINDS = ("dropped", "failed grasp", "wrong-object pick", "wrong-target place")
MONITOR_ERRORS = ("false completion", "missed completion", "missed failure", "false alarm")
DROPS = {"drop", "pick_drop", "place_drop"}
GRASP_FAILS = {"pick_stay", "place_held"}
INJECTED_DISPLACEMENTS = {"knock", "tip", "edge"}  # injected outcomes that move other objects


def failure_kind(action: dict) -> str | None:
    """One of KINDS for an action whose step did not hold (None: it held, or no truth)."""
    if action.get("holds", True):
        return None
    result = action.get("result") or {}
    fired = set(result.get("situations") or [])
    step = _parse(action["instruction"])
    picked = result.get("picked")
    if fired & DROPS:
        return "dropped"
    if fired & GRASP_FAILS or (picked is None and not result.get("ok", True)):
        return "failed grasp"
    if picked and step and picked != step[0]:
        return "wrong-object pick"
    return "wrong-target place"


def audit_episode(events: list[dict]) -> dict:
    """The audit of one episode's trace events (see the module docstring)."""
    mode = events[0].get("mode") if events else None
    end = next((e for e in reversed(events) if e.get("type") == "episode_end"), {})
    scene = final_scene(events)
    failures, halts, latencies = [], [], []
    errors = Counter({k: 0 for k in MONITOR_ERRORS})
    wasted = motion = 0.0
    displaced = 0
    for i, e in enumerate(events):
        if e.get("type") == "check":
            for believed, truth in zip(e["believed"], e["truth"], strict=True):
                errors["false completion"] += bool(believed and truth is False)
                errors["missed completion"] += bool(not believed and truth)
        if e.get("type") != "action" or "result" not in e:
            continue
        result = e["result"]
        displaced += bool(result.get("displaced")) and not set(result.get("situations") or []) & \
            INJECTED_DISPLACEMENTS
        halt = _halt_after(events, i)
        motion += result.get("motion_s", 0.0)
        if e.get("holds") is False:
            wasted += result.get("motion_s", 0.0)
        if e.get("after_halt"):  # finishing a halt (a block put back): part of that failure
            continue
        if halt is not None:
            halts.append(_score_halt(e, halt))
            if result.get("lost_s") is not None and "lost the block" in halt["reason"]:
                latencies.append(round(halt["sim_s"] - result["lost_s"], 4))
        elif mode == "monitor" and _motion_failure(e):
            errors["missed failure"] += 1
        kind = failure_kind(e)
        if kind is not None:
            failures.append({"kind": kind, "recovery": _recovery(events, i, halt),
                             "recovered": _recovered(events, i, scene)})
    errors["false alarm"] = sum(h["scored"] == "false alarm" for h in halts)
    diag = diagnose(events, bool(end.get("success")), bool(end.get("believed_done")),
                    end.get("failure_reason"))
    return {"failures": failures, "stuck": diag["stuck"], "monitor_errors": dict(errors),
            "halts": halts, "halt_latency_s": latencies, "motion_s": round(motion, 3),
            "wasted_motion_s": round(wasted, 3), "displaced": displaced,
            "success": bool(end.get("success"))}


def _halt_after(events: list[dict], i: int) -> dict | None:
    """The halt event that belongs to the action at `i` (it follows before the next action)."""
    for e in events[i + 1:]:
        if e.get("type") == "action":
            return None
        if e.get("type") == "halt":
            return e
    return None


def _motion_failure(action: dict) -> bool:
    """A failure a watcher could have seen in motion: a block lost in transport, or a wrong
    block lifted."""
    result = action.get("result") or {}
    step = _parse(action["instruction"])
    wrong = bool(result.get("picked") and step and result["picked"] != step[0])
    return result.get("lost_s") is not None or wrong


def _score_halt(action: dict, halt: dict) -> dict:
    result = action.get("result") or {}
    step = _parse(action["instruction"])
    reason = halt["reason"]
    if "another block was lifted" in reason:
        ok = bool(result.get("picked") and step and result["picked"] != step[0])
    elif "lost the block" in reason:
        ok = result.get("lost_s") is not None
    elif "nothing was lifted" in reason:
        ok = True  # robot state: the cup held nothing
    else:
        ok = None  # a redirected place: no counterfactual to score it against
    scored = "unscored" if ok is None else "true alarm" if ok else "false alarm"
    return {"segment": halt["segment"], "recovery": halt["recovery"], "reason": reason,
            "scored": scored}


def _recovery(events: list[dict], i: int, halt: dict | None) -> str:
    if halt is not None:
        return f"halt:{halt['recovery']}"
    step = events[i]["instruction"]
    tools: list[str] = []
    for e in events[i + 1:]:
        if e.get("type") == "replan":
            return "replan"
        if e.get("type") == "tool_switch":
            tools = e.get("tools") or []
        if e.get("type") == "action":
            if e.get("instruction") != step:
                tools = []
                continue
            return f"tool:{'+'.join(tools)}" if tools else "redo"
    return "none"


def _recovered(events: list[dict], i: int, scene) -> bool:
    step = events[i]["instruction"]
    later = any(e.get("type") == "action" and e.get("instruction") == step and e.get("holds")
                for e in events[i + 1:])
    if later or scene is None:
        return later
    from ravens_env.agents.oracle import step_holds

    try:
        return step_holds(scene, step)
    except ValueError:
        return False


def audit_runs(run_dirs: list[str | Path]) -> dict:
    """The suite-level audit of several episodes (one column of a table)."""
    episodes = [audit_episode(read_trace(d)) for d in run_dirs if Path(d, "trace.jsonl").exists()]
    failures = [f for ep in episodes for f in ep["failures"]]
    by_kind = {}
    for kind in KINDS:
        mine = [f for f in failures if f["kind"] == kind]
        by_kind[kind] = {"count": len(mine), "recovered": sum(f["recovered"] for f in mine),
                         "recoveries": dict(Counter(f["recovery"] for f in mine))}
    latencies = [x for ep in episodes for x in ep["halt_latency_s"]]
    n = max(len(episodes), 1)
    flow = Counter((f["kind"], f["recovery"], "recovered" if f["recovered"] else "not")
                   for f in failures)
    return {
        "episodes": len(episodes), "failures": by_kind,
        "recovery_rate": (sum(f["recovered"] for f in failures) / len(failures)
                          if failures else None),
        "stuck_episodes": sum(ep["stuck"] for ep in episodes),
        "displaced": {"actions": sum(ep["displaced"] for ep in episodes),
                      "episodes": sum(ep["displaced"] > 0 for ep in episodes),
                      "succeeded": sum(ep["displaced"] > 0 and ep["success"] for ep in episodes)},
        "monitor_errors": {k: sum(ep["monitor_errors"][k] for ep in episodes)
                           for k in MONITOR_ERRORS},
        "halts": sum(len(ep["halts"]) for ep in episodes),
        "halts_scored": dict(Counter(h["scored"] for ep in episodes for h in ep["halts"])),
        "halt_latency_s": {"median": median(latencies) if latencies else None,
                           "max": max(latencies) if latencies else None, "n": len(latencies)},
        "motion_s_per_episode": round(sum(ep["motion_s"] for ep in episodes) / n, 3),
        "wasted_motion_s_per_episode": round(sum(ep["wasted_motion_s"] for ep in episodes) / n,
                                             3),
        "flow": [[k, r, o, c] for (k, r, o), c in sorted(flow.items())],
    }


def audit_results(out_dir: Path, episodes: list[dict]) -> dict:
    """{column: audit} for the episode records of a closed-loop eval (their `run_dir`s),
    columns in first-seen order."""
    columns: dict[str, list[str]] = {}
    for ep in episodes:
        if ep.get("run_dir"):
            columns.setdefault(ep["mode"], []).append(ep["run_dir"])
    return {column: audit_runs(dirs) for column, dirs in columns.items()}


def markdown(audits: dict) -> str:
    """audit.md: the world failures with their recovery rates, the monitor errors, halts and
    motion, one column per mode / method."""
    cols = list(audits)
    head = ["| | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    rows = []
    for kind in KINDS:
        cells = []
        for c in cols:
            f = audits[c]["failures"][kind]
            cells.append(f"{f['recovered']}/{f['count']} recovered" if f["count"] else "0")
        rows.append(f"| {kind} | " + " | ".join(cells) + " |")
    rows.append("| stuck episodes | " + " | ".join(
        str(audits[c]["stuck_episodes"]) for c in cols) + " |")
    rows.append("| displaced by an action, not injected: actions (episodes, succeeded) | "
                + " | ".join("{actions} ({episodes}, {succeeded})".format(
                    **audits[c]["displaced"]) for c in cols) + " |")
    for err in MONITOR_ERRORS:
        rows.append(f"| monitor: {err} | " + " | ".join(
            str(audits[c]["monitor_errors"][err]) for c in cols) + " |")
    rows.append("| halts (true / false / unscored) | " + " | ".join(
        "{}/{}/{}".format(*(audits[c]["halts_scored"].get(k, 0)
                            for k in ("true alarm", "false alarm", "unscored")))
        for c in cols) + " |")
    rows.append("| drop → halt, simulated s (median, max) | " + " | ".join(
        _latency(audits[c]["halt_latency_s"]) for c in cols) + " |")
    rows.append("| arm motion / wasted, simulated s per episode | " + " | ".join(
        f"{audits[c]['motion_s_per_episode']:.1f} / {audits[c]['wasted_motion_s_per_episode']:.1f}"
        for c in cols) + " |")
    flow = ["", "Flow (failure → recovery → outcome: count):", ""]
    for c in cols:
        flow.append(f"- {c}: " + ("; ".join(f"{k} → {r} → {o}: {n}"
                                            for k, r, o, n in audits[c]["flow"]) or "none"))
    return "\n".join(["Failure and monitor audit (ground truth; `runtime/eval/audit.py`)", "",
                      *head, *rows, *flow]) + "\n"


def _latency(lat: dict) -> str:
    return "–" if lat["median"] is None else f"{lat['median']:.2f}, {lat['max']:.2f} ({lat['n']})"


def plot_flow(audits: dict, path: Path) -> None:
    """audit.png: per column, failures by kind → recovery → outcome, as stacked bars (one bar
    per stage, segments labelled by count)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = list(audits)
    fig, axes = plt.subplots(1, len(cols), figsize=(4.5 * len(cols), 4.2), squeeze=False)
    for ax, col in zip(axes[0], cols, strict=True):
        flow = audits[col]["flow"]
        stages = [Counter(), Counter(), Counter()]
        for kind, recovery, outcome, n in flow:
            for stage, key in zip(stages, (kind, recovery, outcome), strict=True):
                stage[key] += n
        for x, stage in enumerate(stages):
            bottom = 0
            for key, n in sorted(stage.items()):
                ax.bar(x, n, bottom=bottom, width=0.6, edgecolor="white")
                ax.text(x, bottom + n / 2, f"{key} ({n})", ha="center", va="center",
                        fontsize=7)
                bottom += n
        ax.set_xticks(range(3), ["failure", "recovery", "outcome"])
        ax.set_title(f"{col}: {audits[col]['episodes']} episodes", fontsize=9)
        ax.set_ylabel("failed actions")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
