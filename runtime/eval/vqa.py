"""`codeplan eval vqa`: accuracy of reasoners on held-out VQA data, per split and answer type.

The paper's Table 1 (accuracy per data family) as markdown, CSV and JSON, with 95% Wilson
intervals, accuracy per answer type, count questions and the same-color block/bowl questions
(the seed paper's failure case) broken out. Data is a `codeplan datagen vqa` output (its
Hugging Face `hf/` DatasetDict); all questions of one image go to the reasoner together, and
images go in batches through `ask_many` when the reasoner has it. The scoring itself lives in
`vrs.scoring`; this module turns scores into the published tables.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from common.provenance import provenance


def _pct(summary: dict) -> str:
    if summary["accuracy"] is None:
        return "–"
    lo, hi = summary["ci95"]
    return f"{100 * summary['accuracy']:.1f} [{100 * lo:.1f}–{100 * hi:.1f}]"


def format_markdown(results: list[dict],
                    reference: dict[str, dict[str, float]] | None = None) -> str:
    """Table 1: one row per model, one column per split, the overall, then one column per
    other data set measured beside (`columns`: a suite's Blender variant), then count and
    same-color columns; `reference` rows ({label: {split: %}}, e.g. the seed paper's) follow,
    "–" where absent."""
    splits = list(results[0]["splits"])
    extra = list(dict.fromkeys(c for r in results for c in r.get("columns", {})))
    head = ["model", *splits, "overall", *(f"{c} (overall)" for c in extra), "count",
            "same-color in/on", "colour exists", "questions"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        o = r["overall"]
        cells = [r["model"], *(_pct(r["splits"][s]) for s in splits), _pct(o),
                 *(_pct(r["columns"][c]) if c in r.get("columns", {}) else "–" for c in extra),
                 _pct(o["count"]), _pct(o["same_color_relation"]),
                 _pct(o["color_exists"]) if "color_exists" in o else "–", str(o["n"])]
        lines.append("| " + " | ".join(cells) + " |")
    for label, by_split in (reference or {}).items():
        cells = [label, *(f"{by_split[s]:.1f}" if s in by_split else "–" for s in splits)]
        lines.append("| " + " | ".join(cells + ["–"] * (5 + len(extra))) + " |")
    lines.append("")
    lines.append("Accuracy % [95% Wilson CI]. Per answer type (overall):")
    lines.append("")
    types = sorted({t for r in results for t in r["overall"]["by_answer_type"]})
    lines.append("| model | " + " | ".join(types) + " |")
    lines.append("|" + "---|" * (len(types) + 1))
    for r in results:
        by = r["overall"]["by_answer_type"]
        lines.append(f"| {r['model']} | "
                     + " | ".join(_pct(by[t]) if t in by else "–" for t in types) + " |")
    return "\n".join(lines) + "\n"


def _held_out_notes(results: list[dict]) -> str:
    """A warning paragraph per model whose training or tuning data shares scenes with this
    data or an extra column's (runtime/eval/held_out.py); nothing for a clean or unchecked
    one."""
    notes = []
    for r in results:
        checks = [("this data", r.get("held_out"))] + [
            (f"the {c} column's data", v.get("held_out")) for c, v in r.get("columns", {}).items()]
        notes += [f"**Not held out:** {r['model']} was trained or tuned on scenes of {where} "
                  f"({', '.join(o['family'] for o in check['overlaps'])}; see results.json "
                  "`held_out`).\n\n"
                  for where, check in checks if (check or {}).get("held_out") is False]
    return "".join(notes)


def _columns_header(results: list[dict], notes: list[str]) -> str:
    """Where each extra column's questions came from, and why a column is missing."""
    seen = {c: (v["data"], v["n"]) for r in results for c, v in r.get("columns", {}).items()}
    lines = [f"`{c} (overall)`: {data}, {n} questions per model." for c, (data, n) in seen.items()]
    return "".join(line + "\n\n" for line in lines + [f"**Column left out:** {n}" for n in notes])


def write_outputs(results: list[dict], out: Path, command: str,
                  reference: dict[str, dict[str, float]] | None = None,
                  notes: list[str] | None = None) -> dict:
    """results.json (without per-question records), table.md, table.csv and answers.jsonl;
    `notes` say which extra columns could not be measured."""
    out.mkdir(parents=True, exist_ok=True)
    light = [{k: v for k, v in r.items() if k != "records"} for r in results]
    where = provenance()
    (out / "results.json").write_text(json.dumps(
        {"command": command, **where, "results": light, "reference": reference or {},
         "notes": notes or []}, indent=2) + "\n")
    header = (f"`{command}`\n\nMachine: {where['machine']}; commit {where['commit']}; "
              f"{where['date']}; {results[0]['overall']['n']} questions per model.\n\n"
              + _columns_header(results, notes or []) + _held_out_notes(results))
    (out / "table.md").write_text(header + format_markdown(results, reference))
    with (out / "table.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "split", "answer_type", "accuracy", "ci_low", "ci_high", "n"])
        for r in results:
            columns = {f"{c}:overall": v for c, v in r.get("columns", {}).items()}
            for split, s in {**r["splits"], "overall": r["overall"], **columns}.items():
                for t, a in {"all": s, **s["by_answer_type"]}.items():
                    w.writerow([r["model"], split, t, a["accuracy"], *a["ci95"], a["n"]])
    with (out / "answers.jsonl").open("w") as f:
        for r in results:
            for rec in r["records"]:
                f.write(json.dumps({"model": r["model"], **rec}) + "\n")
    return {"out": str(out)}
