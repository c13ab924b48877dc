"""`codeplan ask`: ask a reasoner about an image from a shell, or score it on a questions file.

    codeplan ask --model detector front.png "is the red block in the blue bowl?" "how many bowls?"
    codeplan ask --url http://127.0.0.1:8765 front.png "what color is the bowl?" --json
    codeplan ask --model detector --questions data/vqa/block_bowl/questions.json \
        --images data/vqa/block_bowl/images

Why here: with `codeplan serve vrs`, this is the only way a person (rather than the controller)
reaches a reasoner. `ask --questions` scores a reasoner on a CLEVR-layout questions file
(`datagen/clevr_files.py`) whose images may come from any renderer: it prints one JSON object
with the accuracy, per family / answer type / template when the file has them, and every
answer. Bad input (a missing image, no questions, a malformed file, a server that refuses) is a
ValueError with one line naming the file or problem; the main CLI prints it and exits 2.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from runtime.cli.args import non_negative_int, positive_float, positive_int

if TYPE_CHECKING:
    import numpy as np

    from vrs.reasoner import Answer, Reasoner

BREAKDOWNS = ("family", "answer_type", "template")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add `ask` to the `codeplan` verbs."""
    ask = subparsers.add_parser("ask", help="ask a reasoner questions about an image, or score "
                                            "it on a questions file")
    where = ask.add_mutually_exclusive_group()
    where.add_argument("--model", help="checkpoint directory or shipped name (default: default)")
    where.add_argument("--url", help="a running `codeplan serve vrs`, e.g. http://127.0.0.1:8765")
    ask.add_argument("--device", default="cpu", help="torch device for --model")
    ask.add_argument("image", nargs="?", metavar="IMAGE", help="PNG or JPEG file")
    ask.add_argument("questions", nargs="*", metavar="QUESTION")
    ask.add_argument("--questions", dest="questions_file", metavar="FILE.json",
                     help="CLEVR-layout questions file (codeplan datagen vqa) to score")
    ask.add_argument("--images", metavar="DIR",
                     help="where the file's images are (default: images/ beside the file)")
    ask.add_argument("--batch", type=positive_int, default=16, metavar="N",
                     help="images per ask_many call with --questions (default 16)")
    ask.add_argument("--timeout", type=positive_float, default=60.0, metavar="S",
                     help="seconds per request with --url (default 60)")
    ask.add_argument("--retries", type=non_negative_int, default=3, metavar="N",
                     help="retries of unreachable or failing (5xx) requests with --url")
    ask.add_argument("--json", action="store_true", help="print one JSON object")
    ask.set_defaults(handler=_ask)


def _ask(args: argparse.Namespace) -> int:
    """Answer the questions about one image, or score the reasoner on a questions file."""
    from vrs.client import ServiceError

    if args.questions_file and args.image:
        raise ValueError("give either IMAGE QUESTION... or --questions FILE.json, not both")
    if args.images and not args.questions_file:
        raise ValueError("--images goes with --questions FILE.json")
    if not args.questions_file:
        if not args.image:
            raise ValueError("codeplan ask needs IMAGE and at least one question, "
                             "or --questions FILE.json")
        if not args.questions:
            raise ValueError(f"no questions to ask about {args.image}")
    # Read the input first: a missing file should not wait for a model to load.
    if args.questions_file:
        images = args.images or Path(args.questions_file).parent / "images"
        question_set = read_question_set(args.questions_file, images)
    else:
        image = load_image(Path(args.image))
    try:
        reasoner = make_reasoner(args)
        if args.questions_file:
            result = score_question_set(reasoner, question_set, args.batch)
            print(json.dumps(result, indent=None if args.json else 2))
        else:
            _print_answers(reasoner, image, args)
    except ServiceError as e:
        raise ValueError(str(e)) from e
    return 0


def make_reasoner(args: argparse.Namespace) -> Reasoner:
    """An HttpReasoner for --url, else the checkpoint named by --model."""
    if args.url:
        from vrs.client import HttpReasoner

        return HttpReasoner(args.url, timeout_s=args.timeout, retries=args.retries)
    from vrs.loading import load_reasoner

    return load_reasoner(args.model or "default", args.device)


def _print_answers(reasoner: Reasoner, image: np.ndarray, args: argparse.Namespace) -> None:
    """One answer per line, or one JSON object with the scores."""
    answers = reasoner.ask(image, list(args.questions))
    if args.json:
        print(json.dumps({"model": reasoner.name, "image": str(args.image), "answers": [
            {"question": q, "answer": a.text, "score": a.score}
            for q, a in zip(args.questions, answers, strict=True)]}))
    else:
        print("\n".join(a.text for a in answers))


def load_image(path: Path) -> np.ndarray:
    """(H, W, 3) uint8 from an image file (any format PIL reads, via `vrs.images`);
    ValueError naming the file otherwise."""
    from vrs.images import decode_image_bytes

    if not path.is_file():
        raise ValueError(f"no image file at {path}")
    try:
        return decode_image_bytes(path.read_bytes(), formats=None)
    except (ValueError, OSError) as e:
        raise ValueError(f"{path} is not a readable image: {e}") from None


# -- codeplan ask --questions --------------------------------------------------------------
def load_questions_file(path: str | Path) -> list[dict]:
    """The `questions` list of a CLEVR-layout file, each with image_filename, question and
    answer; ValueError naming the file and the problem otherwise."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no questions file at {path}")
    try:
        data = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{path} is not valid JSON: {e}") from None
    rows = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise ValueError(f'{path} is not a CLEVR questions file: expected {{"questions": [...]}}')
    if not rows:
        raise ValueError(f"{path} has no questions")
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise ValueError(f"{path}: question {i} is not an object")
        for key in ("image_filename", "question", "answer"):
            if not isinstance(row.get(key), str | int | float) or row.get(key) == "":
                raise ValueError(f"{path}: question {i} lacks {key!r}")
    return rows


def find_image(images: Path, filename: str) -> Path:
    """`images/filename`, or `images/images/filename` when given a split directory."""
    for candidate in (images / filename, images / "images" / filename):
        if candidate.is_file():
            return candidate
    raise ValueError(f"no image file {filename!r} in {images}")


@dataclass(frozen=True)
class QuestionSet:
    """A checked questions file: its rows, their row indices per image, each image's path."""

    questions_file: Path
    images: Path
    rows: list[dict]
    by_image: dict[str, list[int]]
    paths: dict[str, Path]


def read_question_set(questions_file: str | Path, images: str | Path) -> QuestionSet:
    """Read the file and find every image it names; ValueError naming the first problem."""
    rows = load_questions_file(questions_file)
    images = Path(images)
    if not images.is_dir():
        raise ValueError(f"no image directory at {images}")
    by_image: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        by_image[str(row["image_filename"])].append(i)
    paths = {name: find_image(images, name) for name in by_image}
    return QuestionSet(Path(questions_file), images, rows, dict(by_image), paths)


def score_questions_file(reasoner: Reasoner, questions_file: str | Path, images: str | Path,
                         batch: int = 16) -> dict:
    """Answer every question of the file and score the answers (see the module docstring)."""
    return score_question_set(reasoner, read_question_set(questions_file, images), batch)


def score_question_set(reasoner: Reasoner, qs: QuestionSet, batch: int = 16) -> dict:
    """Accuracy overall and per family / answer type / template, and every answer."""
    started = time.perf_counter()
    predicted = _answer_all(reasoner, qs.rows, qs.by_image, qs.paths, batch)
    seconds = time.perf_counter() - started
    records = [_record(row, answer) for row, answer in zip(qs.rows, predicted, strict=True)]
    summary = {"model": reasoner.name, "questions_file": str(qs.questions_file),
               "images": str(qs.images), "n": len(records),
               "correct": sum(r["correct"] for r in records),
               "accuracy": _mean(r["correct"] for r in records), "seconds": round(seconds, 3)}
    for key in BREAKDOWNS:
        if any(key in row for row in qs.rows):
            summary[f"per_{key}"] = _breakdown(records, key)
    return {**summary, "answers": records}


def _answer_all(reasoner: Reasoner, rows: list[dict], by_image: dict[str, list[int]],
                paths: dict[str, Path], batch: int) -> list[Answer]:
    """One Answer per row, asking `batch` images at a time (ask_many when there is one)."""
    predicted: list = [None] * len(rows)
    names = list(by_image)
    ask_many = getattr(reasoner, "ask_many", None)
    for start in range(0, len(names), batch):
        chunk = names[start:start + batch]
        items = [(load_image(paths[n]), [str(rows[i]["question"]) for i in by_image[n]])
                 for n in chunk]
        if callable(ask_many):
            results = ask_many(items)
        else:
            results = [reasoner.ask(image, qs) for image, qs in items]
        for name, answers in zip(chunk, results, strict=True):
            if len(answers) != len(by_image[name]):
                raise ValueError(f"{reasoner.name} returned {len(answers)} answers for "
                                 f"{len(by_image[name])} questions about {name}")
            for i, answer in zip(by_image[name], answers, strict=True):
                predicted[i] = answer
    return predicted


def _record(row: dict, answer: Answer) -> dict:
    """One scored answer, keeping the row's breakdown keys."""
    from vrs.scoring import is_correct

    gold = str(row["answer"])
    out = {"image_filename": row["image_filename"], "question": row["question"],
           "answer": gold, "predicted": answer.text, "score": answer.score,
           "correct": is_correct(answer.text, gold)}
    for key in ("question_index", *BREAKDOWNS):
        if key in row:
            out[key] = row[key]
    return out


def _breakdown(records: list[dict], key: str) -> dict:
    """Accuracy per value of `key` (family, answer type, template)."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for r in records:
        groups[str(r.get(key, "unknown"))].append(r["correct"])
    return {k: {"n": len(v), "correct": sum(v), "accuracy": _mean(v)}
            for k, v in sorted(groups.items())}


def _mean(values: Iterable[bool]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0
