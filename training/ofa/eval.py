"""The learning curve of a VQA training run: held-out accuracy, honestly baselined.

Why in the trainer: the probe (shared/notes/vqa-from-scratch-probe.md) found small models sit
for a long time on a "question pattern" plateau, where accuracy looks fine but comes from the
question alone. So every evaluation decodes exactly as the deployed reasoner does (trie-
constrained greedy, `vrs.ofa.reasoner.answer_batch`), reports accuracy per answer type and per
split, and the curve's first line carries the question-only baseline (the training set's most
common answer to the same question text, else to the same template) to read it against.

curve.jsonl, one JSON object a line:
  {"baseline": {...}}                                   first line of a fresh run
  {"step", "samples", "wall_s", "loss", "lr", "accuracy", "n", "by_answer_type": {t: acc},
   "by_split": {s: acc}}                                every evaluation
A resumed run drops the lines after its checkpoint's step, so the curve has no gaps or repeats.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import torch

from training.ofa.data import Pick, SplitData
from vrs.ofa.model import OfaVqa, images_to_tensor
from vrs.ofa.reasoner import answer_batch
from vrs.ofa.tokenizer import QuestionTokenizer
from vrs.ofa.trie import AnswerTrie
from vrs.question_vocab import normalize

IMAGES_PER_PASS = 16


def eval_picks(splits: dict[str, SplitData], max_questions: int, seed: int = 0) -> list[Pick]:
    """A fixed evaluation set: whole images in a seeded random order per split, taken round
    robin across splits until `max_questions` questions (all of them when it is 0)."""
    rng = np.random.default_rng(seed)
    orders = {n: list(rng.permutation(len(s.images))) for n, s in sorted(splits.items())}
    picks, total = [], 0
    while any(orders.values()) and (max_questions <= 0 or total < max_questions):
        for name, order in orders.items():
            if order and (max_questions <= 0 or total < max_questions):
                k = int(order.pop(0))
                rows = splits[name].images[k]
                picks.append(Pick(splits[name], k, list(rows)))
                total += len(rows)
    return picks


def _accuracy(pairs: list[bool]) -> float | None:
    return round(sum(pairs) / len(pairs), 4) if pairs else None


def summarize(records: list[tuple[str, str, bool]]) -> dict:
    """(split, answer type, correct) records -> accuracy overall, by answer type, by split."""
    by_type, by_split = defaultdict(list), defaultdict(list)
    for split, kind, ok in records:
        by_type[kind].append(ok)
        by_split[split].append(ok)
    return {"accuracy": _accuracy([ok for *_, ok in records]), "n": len(records),
            "by_answer_type": {k: _accuracy(v) for k, v in sorted(by_type.items())},
            "by_split": {k: _accuracy(v) for k, v in sorted(by_split.items())}}


@torch.no_grad()
def evaluate(model: OfaVqa, tokenizer: QuestionTokenizer, tries: dict[str, AnswerTrie],
             picks: list[Pick]) -> dict:
    """Exact-match accuracy of trie-constrained greedy answers on `picks` (see summarize)."""
    was_training = model.training
    model.eval()
    records = []
    for start in range(0, len(picks), IMAGES_PER_PASS):
        chunk = picks[start:start + IMAGES_PER_PASS]
        images = images_to_tensor([p.split.image(p.image) for p in chunk], model.config)
        rows = [(i, p.split, r) for i, p in enumerate(chunk) for r in p.rows]
        answers = answer_batch(model, tokenizer, images, [i for i, _, _ in rows],
                               [s.question_ids[r] for _, s, r in rows],
                               [tries[s.answer_type[r]] for _, s, r in rows])
        records += [(s.name, s.answer_type[r], text == s.answer[r])
                    for (_, s, r), (text, _) in zip(rows, answers, strict=True)]
    model.train(was_training)
    return summarize(records)


def question_only_baseline(train: dict[str, SplitData], picks: list[Pick]) -> dict:
    """Accuracy on `picks` of answering from the question alone: the most common training
    answer to the same normalized text, else to the same template (ties: first seen)."""
    by_text: dict[str, Counter] = defaultdict(Counter)
    by_template: dict[str, Counter] = defaultdict(Counter)
    for s in train.values():
        for group in s.images:
            for r in group:
                by_text[normalize(s.question[r])][s.answer[r]] += 1
                by_template[s.template[r]][s.answer[r]] += 1
    records = []
    for p in picks:
        for r in p.rows:
            s = p.split
            table = by_text.get(normalize(s.question[r])) or by_template.get(s.template[r])
            guess = table.most_common(1)[0][0] if table else ""
            records.append((s.name, s.answer_type[r], guess == s.answer[r]))
    return summarize(records)


class Curve:
    """curve.jsonl of a run directory (see the module docstring)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def append(self, record: dict) -> None:
        """Add one line and flush it."""
        with self.path.open("a") as f:
            f.write(json.dumps(record) + "\n")

    def truncate_after(self, step: int) -> None:
        """Drop evaluation lines after `step` (a resumed run redoes those steps)."""
        if not self.path.is_file():
            return
        lines = [json.loads(x) for x in self.path.read_text().splitlines() if x.strip()]
        kept = [x for x in lines if x.get("step", -1) <= step]
        self.path.write_text("".join(json.dumps(x) + "\n" for x in kept))

    def records(self) -> list[dict]:
        """Every line, parsed."""
        if not self.path.is_file():
            return []
        return [json.loads(x) for x in self.path.read_text().splitlines() if x.strip()]
