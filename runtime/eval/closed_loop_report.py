"""The files a closed-loop benchmark leaves in its results directory.

    summary.json  the `--json` object, plus command, commit, machine and date
    table.md      success per task × mode with 95% Wilson intervals, the reference (paper)
                  numbers beside ours, failure causes per mode, reasoner calls and wall time
    table.csv     the same success table, one row per task × mode, with failure causes
    success.png   grouped bars with interval whiskers, the paper's rates as hollow markers
    command.txt   the exact command line
(`episodes.jsonl` and `runs/` are written while the episodes run.)
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from common.provenance import provenance
from runtime.eval.diagnostics import CAUSES

_LLM = ("llm_calls", "prompt_tokens", "completion_tokens", "llm_s")


def write_report(result: dict, out: Path, command: str) -> dict:
    """Write every file above into `out`; returns the summary (with provenance) written."""
    out.mkdir(parents=True, exist_ok=True)
    summary = {**result, "command": command, **provenance()}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    (out / "command.txt").write_text(command + "\n")
    (out / "table.md").write_text(markdown(summary))
    write_csv(summary, out / "table.csv")
    plot_success(summary, out / "success.png")
    write_audit(out, read_episodes(out))
    return summary


def read_episodes(out: Path) -> list[dict]:
    path = out / "episodes.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def write_audit(out: Path, episodes: list[dict]) -> dict:
    """audit.json, audit.md and audit.png (`runtime.eval.audit`) from the episodes' traces;
    nothing when no trace is left (a results dir copied without its runs/)."""
    from runtime.eval import audit

    audits = audit.audit_results(out, episodes)
    if not any(a["episodes"] for a in audits.values()):
        return {}
    (out / "audit.json").write_text(json.dumps(audits, indent=2) + "\n")
    (out / "audit.md").write_text(audit.markdown(audits))
    audit.plot_flow(audits, out / "audit.png")
    return audits


def _pct(rate: float, ci: list[float]) -> str:
    return f"{100 * rate:.1f}% [{100 * ci[0]:.1f}–{100 * ci[1]:.1f}]"


def markdown(s: dict) -> str:
    """table.md: what a reader of docs/RESULTS.md sees."""
    modes = list(next(iter(s["success_rate"].values())))
    ref = s["reference"]["success_rate"]
    lines = [f"`{s['command']}`", "",
             f"{s['episodes']} episodes per cell on seeds {s['seeds'][0]}–{s['seeds'][1]}; "
             f"situations `{s['situations']}`; actor `{s['actor']}`, reasoner "
             f"`{s['reasoner']}`, planner `{s['planner']}`. Machine: {s['machine']}; commit "
             f"{s['commit']}; {s['date']}.", "",
             "| task | " + " | ".join(modes) + (" | " + s["reference"]["label"] + " "
                                               f"({s['reference']['episodes']} ep.)"
                                               if ref else "") + " |",
             "|---|" + "---|" * (len(modes) + bool(ref))]
    for task, rates in s["success_rate"].items():
        cells = [_pct(rates[m], s["ci95"][task][m]) for m in modes]
        if ref:
            cells.append(" / ".join(f"{100 * ref[task][m]:.1f}%" if m in ref.get(task, {})
                                    else "–" for m in modes))
        lines.append(f"| {task} | " + " | ".join(cells) + " |")
    lines += ["", "Success % [95% Wilson interval]" + ("; reference column in the order "
                                                       f"{' / '.join(modes)}." if ref else "."),
              *_category_table(s, modes),
              "", *_cost_table(s, modes), "", *_cause_table(s, modes), "",
              f"Re-run one episode: `{_rerun(s)}`; replay it from its trace "
              f"(no simulator, reasoner or LLM): `codeplan replay {s['out_dir']}/runs/<run>` "
              f"(`--resimulate` runs its codeplans in a fresh simulator); each episode's "
              f"`run_dir` is in `episodes.jsonl`."]
    return "\n".join(lines) + "\n"


def _category_table(s: dict, modes: list[str]) -> list[str]:
    """Per-category rates (the reasoning suite), with another benchmark's per-category figures
    beside them when the suite has some; nothing for suites without categories."""
    cats = s.get("by_category") or {}
    if not cats:
        return []
    from runtime.eval.closed_loop_suites import SUITES

    suite = SUITES.get(s.get("suite") or "")
    ref = suite.category_reference if suite else {}
    systems = list(dict.fromkeys(k for by in ref.values() for k in by))
    lines = ["", "| category (tasks) | " + " | ".join(modes) + "".join(
        f" | {name}" for name in systems) + " |",
        "|---|" + "---|" * (len(modes) + len(systems))]
    for cat, by_mode in cats.items():
        first = by_mode[modes[0]]
        cells = [_pct(by_mode[m]["rate"], by_mode[m]["ci95"]) + f" ({by_mode[m]['wins']}/"
                 f"{by_mode[m]['n']})" for m in modes]
        cells += [f"{100 * ref[cat][k]:.1f}%" if k in ref.get(cat, {}) else "–"
                  for k in systems]
        lines.append(f"| {cat} ({len(first['tasks'])}) | " + " | ".join(cells) + " |")
    note = (f"Columns after ours: {suite.category_reference_label}, published figures from "
            "another benchmark (another simulator, objects and tasks), for scale only."
            if systems else "")
    return [*lines, "", note] if note else lines


def _rerun(s: dict) -> str:
    """The summary's `codeplan run` template (older summaries lack it: rebuild it)."""
    return s.get("rerun") or (f"codeplan run --task TASK --seed SEED --mode MODE --actor "
                              f"{s['actor']} --reasoner {s['reasoner']} --situations "
                              f"{s['situations']}")


def _cost_table(s: dict, modes: list[str]) -> list[str]:
    lines = ["| task | " + " | ".join(f"{m}: reasoner calls / wall s" for m in modes) + " |",
             "|---|" + "---|" * len(modes)]
    for task in s["success_rate"]:
        lines.append(f"| {task} | " + " | ".join(
            f"{s['reasoner_calls_per_episode'][task][m]:.1f} / "
            f"{s['wall_s_per_episode'][task][m]:.2f}" for m in modes) + " |")
    return ["Per episode (means):", "", *lines, *_llm_table(s, modes)]


def _llm_table(s: dict, modes: list[str]) -> list[str]:
    """LLM calls (mean and median), tokens and seconds per episode; nothing for a planner
    with no LLM (older summaries have no such keys)."""
    calls = s.get("llm_calls_per_episode") or {}
    if not any(v for by in calls.values() for v in by.values()):
        return []
    lines = ["", "| task | " + " | ".join(
        f"{m}: LLM calls (median) / prompt + completion tokens / LLM s" for m in modes) + " |",
        "|---|" + "---|" * len(modes)]
    for task in s["success_rate"]:
        lines.append(f"| {task} | " + " | ".join(
            f"{calls[task][m]:.2f} ({s['llm_calls_median'][task][m]:g}) / "
            f"{s['prompt_tokens_per_episode'][task][m]:.0f} + "
            f"{s['completion_tokens_per_episode'][task][m]:.0f} / "
            f"{s['llm_s_per_episode'][task][m]:.1f}" for m in modes) + " |")
    return lines


def _cause_table(s: dict, modes: list[str]) -> list[str]:
    by_mode = s["failure_causes_by_mode"]
    lines = ["| failure cause | " + " | ".join(modes) + " |", "|---|" + "---|" * len(modes)]
    for cause in CAUSES:
        if any(by_mode[m].get(cause, 0) for m in modes):
            lines.append(f"| {cause} | " + " | ".join(str(by_mode[m].get(cause, 0))
                                                      for m in modes) + " |")
    if len(lines) == 2:
        lines.append("| (no failures) | " + " | ".join("0" for _ in modes) + " |")
    return ["Failed episodes by primary cause (all tasks; `runtime/eval/diagnostics.py`):",
            "", *lines]


def write_csv(s: dict, path: Path) -> None:
    """One row per task × mode: rate, interval, counts, means, the reference rate, then the
    failed episodes by primary cause (one column per cause; summed by mode in table.md)."""
    ref = s["reference"]["success_rate"]
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["task", "mode", "success_rate", "ci_low", "ci_high", "successes",
                    "episodes", "reasoner_calls_per_episode", "wall_s_per_episode",
                    "reference_rate", *CAUSES, *(f"{k}_per_episode" for k in _LLM)])
        for task, rates in s["success_rate"].items():
            for mode, rate in rates.items():
                causes = s["failure_causes"][task][mode]
                w.writerow([task, mode, round(rate, 4), *s["ci95"][task][mode],
                            s["successes"][task][mode], s["episodes"],
                            round(s["reasoner_calls_per_episode"][task][mode], 2),
                            round(s["wall_s_per_episode"][task][mode], 3),
                            ref.get(task, {}).get(mode, ""), *(causes.get(c, 0) for c in CAUSES),
                            *(round(s.get(f"{k}_per_episode", {}).get(task, {}).get(mode, 0), 3)
                              for k in _LLM)])


def plot_success(s: dict, path: Path) -> None:
    """Grouped bar chart: tasks on x, one bar per mode, Wilson whiskers, paper as markers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks, modes = list(s["success_rate"]), list(next(iter(s["success_rate"].values())))
    width = 0.8 / len(modes)
    fig, ax = plt.subplots(figsize=(2.6 * len(tasks) + 1.5, 3.6), dpi=120)
    for k, mode in enumerate(modes):
        xs = [i + (k - (len(modes) - 1) / 2) * width for i in range(len(tasks))]
        rates = [100 * s["success_rate"][t][mode] for t in tasks]
        lows = [r - 100 * s["ci95"][t][mode][0] for r, t in zip(rates, tasks, strict=True)]
        highs = [100 * s["ci95"][t][mode][1] - r for r, t in zip(rates, tasks, strict=True)]
        ax.bar(xs, rates, width, yerr=[lows, highs], capsize=3, label=mode)
        ref = [100 * s["reference"]["success_rate"].get(t, {}).get(mode, float("nan"))
               for t in tasks]
        ax.scatter(xs, ref, marker="o", facecolors="none", edgecolors="black", zorder=3,
                   clip_on=False,
                   label="seed paper" if k == 0 and s["reference"]["success_rate"] else None)
    ax.set_xticks(range(len(tasks)), [t.replace("put-", "").replace("-", " ") for t in tasks],
                  fontsize=8)
    ax.set_ylabel("success %")
    ax.set_ylim(0, 105)
    ax.set_title(f"{s.get('suite') or 'closed loop'}: actor {s['actor']}, reasoner "
                 f"{s['reasoner']}, {s['episodes']} episodes", fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))  # never over a bar
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
