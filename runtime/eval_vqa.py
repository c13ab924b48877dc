"""`codeplan eval vqa`: accuracy of reasoners on held-out VQA data, per split and answer type.

The paper's Table 1 (accuracy per data family) as markdown, CSV and JSON, with 95% Wilson
intervals, accuracy per answer type, count questions and the same-color block/bowl questions
(the seed paper's failure case) broken out. Data is a `codeplan datagen vqa` output (its
Hugging Face `hf/` DatasetDict); all questions of one image go to the reasoner together, and
images go in batches through `ask_many` when the reasoner has it.
"""

from __future__ import annotations

import csv
import json
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from runtime.provenance import provenance
from runtime.stats import wilson_interval
from vrs.images import to_rgb_array
from vrs.reasoner import Answer, Reasoner

IMAGES_PER_CALL = 16


def load_vqa_data(path: Path, splits: list[str] | None = None) -> dict:
    """The DatasetDict of a datagen output dir (or of its `hf/`), optionally some splits."""
    from datasets import DatasetDict, load_from_disk

    path = Path(path)
    root = path / "hf" if (path / "hf").is_dir() else path
    if not root.is_dir():
        raise ValueError(f"no dataset at {path} (expected `codeplan datagen vqa` output)")
    data = load_from_disk(str(root))
    if not isinstance(data, DatasetDict):
        raise ValueError(f"{root} holds one Dataset, expected a DatasetDict of splits")
    unknown = [s for s in splits or [] if s not in data]
    if unknown:
        raise ValueError(f"{path} has no split(s) {unknown}; splits: {list(data)}")
    return {s: data[s] for s in (splits or list(data))}


def _by_image(dataset) -> Iterator[tuple[np.ndarray, list[dict]]]:
    """(image, rows) per image, in dataset order (rows of one image are contiguous)."""
    rows: list[dict] = []
    current = None
    for row in dataset:
        if row["image_id"] != current and rows:
            yield to_rgb_array(rows[0]["image"]), rows
            rows = []
        current = row["image_id"]
        rows.append(row)
    if rows:
        yield to_rgb_array(rows[0]["image"]), rows


def answer_split(reasoner: Reasoner, dataset) -> list[dict]:
    """One record per question: the row's labels plus `predicted`, `score`, `correct`."""
    records: list[dict] = []
    chunk: list[tuple[np.ndarray, list[dict]]] = []
    for item in _by_image(dataset):
        chunk.append(item)
        if len(chunk) == IMAGES_PER_CALL:
            records += _answer_chunk(reasoner, chunk)
            chunk = []
    return records + (_answer_chunk(reasoner, chunk) if chunk else [])


def _answer_chunk(reasoner: Reasoner, chunk: list) -> list[dict]:
    items = [(img, [r["question"] for r in rows]) for img, rows in chunk]
    if hasattr(reasoner, "ask_many"):
        answers = reasoner.ask_many(items)
    else:
        answers = [reasoner.ask(img, qs) for img, qs in items]
    out = []
    for (_, rows), ans in zip(chunk, answers, strict=True):
        out += [_record(r, a) for r, a in zip(rows, ans, strict=True)]
    return out


def _record(row: dict, answer: Answer) -> dict:
    keep = ("image_id", "question", "answer", "answer_type", "template", "family", "same_color",
            "dark")
    return {**{k: row[k] for k in keep}, "predicted": answer.text,
            "score": round(answer.score, 4), "correct": is_correct(answer.text, row["answer"])}


def is_correct(predicted: str, gold: object) -> bool:
    """Whether an answer is right: exactly the gold answer (as text), as CLEVR scores it and as
    `eval vqa` always has; "Blue " for "blue" is wrong. Why one function: `codeplan ask
    --questions` scores with it too, so both report the same accuracy for the same answers."""
    return predicted == str(gold)


def accuracy(records: list[dict]) -> dict:
    """{'accuracy', 'correct', 'n', 'ci95'} of some records (accuracy None when empty)."""
    n = len(records)
    k = sum(r["correct"] for r in records)
    lo, hi = wilson_interval(k, n) if n else (0.0, 0.0)
    return {"accuracy": round(k / n, 4) if n else None, "correct": k, "n": n,
            "ci95": [round(lo, 4), round(hi, 4)]}


def summarize(records: list[dict]) -> dict:
    """Accuracy overall, per answer type, per template, count and same-color questions."""
    groups: dict[str, dict[str, list[dict]]] = {"answer_type": defaultdict(list),
                                                 "template": defaultdict(list)}
    for r in records:
        groups["answer_type"][r["answer_type"]].append(r)
        groups["template"][r["template"]].append(r)
    same_color = [r for r in records if r["same_color"] and r["template"] == "relation_yes_no"]
    return {**accuracy(records),
            "by_answer_type": {k: accuracy(v) for k, v in sorted(groups["answer_type"].items())},
            "by_template": {k: accuracy(v) for k, v in sorted(groups["template"].items())},
            "count": accuracy(groups["answer_type"].get("count", [])),
            "same_color_relation": accuracy(same_color)}


def evaluate(reasoner: Reasoner, data: dict, progress: bool = True) -> dict:
    """Per-split summaries, overall figures and every record; `data` from load_vqa_data."""
    from tqdm import tqdm

    splits, everything = {}, []
    begin = time.perf_counter()
    for name, dataset in tqdm(data.items(), desc="eval vqa", unit="split", disable=not progress):
        records = answer_split(reasoner, dataset)
        splits[name] = summarize(records)
        everything += [{**r, "split": name} for r in records]
    return {"model": reasoner.name, "accuracy": {s: v["accuracy"] for s, v in splits.items()},
            "overall": summarize(everything), "splits": splits,
            "seconds": round(time.perf_counter() - begin, 1), "records": everything}


def _pct(summary: dict) -> str:
    if summary["accuracy"] is None:
        return "–"
    lo, hi = summary["ci95"]
    return f"{100 * summary['accuracy']:.1f} [{100 * lo:.1f}–{100 * hi:.1f}]"


def format_markdown(results: list[dict],
                    reference: dict[str, dict[str, float]] | None = None) -> str:
    """Table 1: one row per model, one column per split, then count and same-color columns;
    `reference` rows ({label: {split: %}}, e.g. the seed paper's) follow, "–" where absent."""
    splits = list(results[0]["splits"])
    head = ["model", *splits, "overall", "count", "same-color in/on", "questions"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        o = r["overall"]
        cells = [r["model"], *(_pct(r["splits"][s]) for s in splits), _pct(o),
                 _pct(o["count"]), _pct(o["same_color_relation"]), str(o["n"])]
        lines.append("| " + " | ".join(cells) + " |")
    for label, by_split in (reference or {}).items():
        cells = [label, *(f"{by_split[s]:.1f}" if s in by_split else "–" for s in splits)]
        lines.append("| " + " | ".join(cells + ["–"] * 4) + " |")
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
    data (runtime/held_out.py); nothing for a clean or unchecked one."""
    return "".join(f"**Not held out:** {r['model']} was trained or tuned on scenes of this "
                   f"data ({', '.join(o['family'] for o in r['held_out']['overlaps'])}; see "
                   "results.json `held_out`).\n\n"
                   for r in results if (r.get("held_out") or {}).get("held_out") is False)


def write_outputs(results: list[dict], out: Path, command: str,
                  reference: dict[str, dict[str, float]] | None = None) -> dict:
    """results.json (without per-question records), table.md, table.csv and answers.jsonl."""
    out.mkdir(parents=True, exist_ok=True)
    light = [{k: v for k, v in r.items() if k != "records"} for r in results]
    where = provenance()
    (out / "results.json").write_text(json.dumps(
        {"command": command, **where, "results": light, "reference": reference or {}},
        indent=2) + "\n")
    header = (f"`{command}`\n\nMachine: {where['machine']}; commit {where['commit']}; "
              f"{where['date']}; {results[0]['overall']['n']} questions per model.\n\n"
              + _held_out_notes(results))
    (out / "table.md").write_text(header + format_markdown(results, reference))
    with (out / "table.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "split", "answer_type", "accuracy", "ci_low", "ci_high", "n"])
        for r in results:
            for split, s in {**r["splits"], "overall": r["overall"]}.items():
                for t, a in {"all": s, **s["by_answer_type"]}.items():
                    w.writerow([r["model"], split, t, a["accuracy"], *a["ci95"], a["n"]])
    with (out / "answers.jsonl").open("w") as f:
        for r in results:
            for rec in r["records"]:
                f.write(json.dumps({"model": r["model"], **rec}) + "\n")
    return {"out": str(out)}
