"""Score a reasoner on VQA data: one record per question, accuracy with 95% intervals.

Why here and not beside the tables (`runtime.eval.vqa`): tuning a checkpoint's thresholds on a
dev set (`training.detector.tune`) scores exactly as the published tables do, and training may
not import the runtime. Data is a `codeplan datagen vqa` output (its Hugging Face `hf/`
DatasetDict); all questions of one image go to the reasoner together, and images go in batches
through `ask_many` when the reasoner has it.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from common.stats import wilson_interval
from vrs.images import to_rgb_array
from vrs.question_vocab import same_answer
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


def by_image(dataset) -> Iterator[tuple[np.ndarray, list[dict]]]:
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
    for item in by_image(dataset):
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


def is_color_exists(row: dict) -> bool:
    """Whether a question is "is there a <colour> <type>?" (no relation): the colour-existence
    figure of issue 27, where another palette shows first. Read from the row's program."""
    if row.get("template") != "exists" or not row.get("program"):
        return False
    try:
        params = json.loads(row["program"]).get("params", {})
    except (ValueError, AttributeError):
        return False
    return bool(params.get("color")) and not params.get("anchor")


def _record(row: dict, answer: Answer) -> dict:
    keep = ("image_id", "question", "answer", "answer_type", "template", "family", "same_color",
            "dark")
    return {**{k: row[k] for k in keep}, "color_exists": is_color_exists(row),
            "predicted": answer.text,
            "score": round(answer.score, 4), "correct": is_correct(answer.text, row["answer"]),
            "equivalent": is_equivalent(answer.text, row["answer"], row["answer_type"])}


def is_correct(predicted: str, gold: object) -> bool:
    """Whether an answer is right: exactly the gold answer (as text), as CLEVR scores it and as
    `eval vqa` always has; "Blue " for "blue" is wrong. Why one function: `codeplan ask
    --questions` scores with it too, so both report the same accuracy for the same answers."""
    return predicted == str(gold)


def is_equivalent(predicted: str, gold: object, answer_type: str | None = None) -> bool:
    """Whether an answer says the same as the gold one up to form ("Grey." for "gray", "two"
    for "2", "none" for "nothing", a list in another order): `vrs.question_vocab.same_answer`.
    Recorded beside `correct` for answers from outside the answer vocabulary (a free-text
    model); the published accuracy stays exact match (`is_correct`)."""
    return same_answer(predicted, gold, answer_type)


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
    color_exists = [r for r in records if r.get("color_exists")]
    return {**accuracy(records),
            "by_answer_type": {k: accuracy(v) for k, v in sorted(groups["answer_type"].items())},
            "by_template": {k: accuracy(v) for k, v in sorted(groups["template"].items())},
            "count": accuracy(groups["answer_type"].get("count", [])),
            "same_color_relation": accuracy(same_color),
            "color_exists": accuracy(color_exists)}


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
