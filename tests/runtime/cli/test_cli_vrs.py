"""`codeplan serve vrs` and `codeplan ask`, through a throwaway parser holding only them."""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import socket
import threading
import time

import numpy as np
import pytest
import requests
from PIL import Image

from runtime.cli import ask as ask_cli
from runtime.cli import serve as serve_cli
from runtime.cli.ask import score_questions_file
from runtime.cli.serve import build_server
from vrs.reasoner import Answer
from vrs.scoring import is_correct
from vrs.service import BackgroundServer, create_app

COLORS = {"red": (220, 30, 30), "green": (30, 200, 60), "blue": (30, 60, 220)}


class ColorReasoner:
    """Answers "what color is the image?" with the nearest named color of the mean pixel and
    "how wide is the image?" from the shape; records the batch sizes of ask_many."""

    name = "color-test"

    def __init__(self) -> None:
        self.batches: list[int] = []

    def ask(self, image, questions):
        return [self._answer(image, q) for q in questions]

    def ask_many(self, items):
        self.batches.append(len(items))
        return [self.ask(image, qs) for image, qs in items]

    @staticmethod
    def _answer(image, question):
        if question == "what color is the image?":
            mean = image.reshape(-1, 3).mean(axis=0)
            return Answer(min(COLORS, key=lambda c: ((mean - COLORS[c]) ** 2).sum()), 0.9)
        if question == "how wide is the image?":
            return Answer(str(image.shape[1]), 0.9)
        return Answer("unsupported question", 0.0)


def run(argv: list[str], capsys) -> tuple[int, str]:
    """Parse with only these subcommands and run the handler, as `codeplan` would."""
    parser = argparse.ArgumentParser(prog="codeplan")
    sub = parser.add_subparsers()
    serve_cli.add_parser(sub)
    ask_cli.add_parser(sub)
    args = parser.parse_args(argv)
    code = args.handler(args)
    return code, capsys.readouterr().out


def save(path, color: str, width: int = 30, fmt: str = "PNG") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.full((20, width, 3), COLORS[color], np.uint8)).save(path, format=fmt)


@pytest.fixture(scope="module")
def service():
    with BackgroundServer(create_app(ColorReasoner())) as server:
        yield server.url


@pytest.fixture
def dataset(tmp_path):
    """A CLEVR-layout split: 3 images, 7 questions of which the reasoner gets 5 right."""
    split = tmp_path / "data" / "tiny"
    save(split / "images" / "a.png", "red", 31)
    save(split / "images" / "b.png", "green", 32)
    save(split / "images" / "c.jpg", "blue", 33, "JPEG")
    rows = [("a.png", "what color is the image?", "red", "f1", "color"),
            ("a.png", "how wide is the image?", "31", "f1", "count"),
            ("b.png", "what color is the image?", "blue", "f1", "color"),  # wrong gold
            ("b.png", "how wide is the image?", "32", "f2", "count"),
            ("c.jpg", "what color is the image?", "blue", "f2", "color"),
            ("c.jpg", "how wide is the image?", "33", "f2", "count"),
            ("c.jpg", "is it pretty?", "yes", "f2", "yes/no")]  # unsupported: wrong
    questions = [{"image_index": ord(f[0]) - 97, "image_filename": f, "question_index": i,
                  "question": q, "answer": a, "family": fam, "answer_type": t}
                 for i, (f, q, a, fam, t) in enumerate(rows)]
    path = split / "questions.json"
    path.write_text(json.dumps({"info": {"split": "tiny"}, "questions": questions}))
    return path


def test_ask_one_image_prints_one_answer_per_line(service, tmp_path, capsys):
    save(tmp_path / "x.png", "green", 44)
    code, out = run(["ask", "--url", service, str(tmp_path / "x.png"),
                     "what color is the image?", "how wide is the image?"], capsys)
    assert code == 0 and out.splitlines() == ["green", "44"]


def test_ask_json(service, tmp_path, capsys):
    save(tmp_path / "x.jpg", "blue", 21, "JPEG")
    _, out = run(["ask", "--url", service, "--json", str(tmp_path / "x.jpg"),
                  "what color is the image?"], capsys)
    data = json.loads(out)
    assert data["model"] == "http:color-test"
    assert data["answers"] == [{"question": "what color is the image?", "answer": "blue",
                                "score": 0.9}]


def test_ask_questions_file_over_http_scores_per_family_and_answer_type(service, dataset,
                                                                       capsys):
    code, out = run(["ask", "--url", service, "--questions", str(dataset), "--json"], capsys)
    result = json.loads(out)
    assert code == 0 and result["n"] == 7 and result["correct"] == 5
    assert result["accuracy"] == pytest.approx(5 / 7)
    assert result["per_family"] == {"f1": {"n": 3, "correct": 2, "accuracy": 2 / 3},
                                    "f2": {"n": 4, "correct": 3, "accuracy": 0.75}}
    assert result["per_answer_type"]["count"] == {"n": 3, "correct": 3, "accuracy": 1.0}
    assert result["per_answer_type"]["yes/no"]["accuracy"] == 0.0
    assert "per_template" not in result
    assert [a["predicted"] for a in result["answers"]] == [
        "red", "31", "green", "32", "blue", "33", "unsupported question"]
    assert [a["correct"] for a in result["answers"]] == [1, 1, 0, 1, 1, 1, 0]


def test_questions_file_in_process_uses_ask_many_in_batches(dataset):
    reasoner = ColorReasoner()
    result = score_questions_file(reasoner, dataset, dataset.parent, batch=2)  # split dir
    assert reasoner.batches == [2, 1] and result["correct"] == 5


def test_model_option_loads_through_load_reasoner(dataset, monkeypatch, capsys):
    seen = []
    monkeypatch.setattr("vrs.loading.load_reasoner",
                        lambda spec, device: seen.append((spec, device)) or ColorReasoner())
    _, out = run(["ask", "--model", "ns", "--questions", str(dataset),
                  "--images", str(dataset.parent / "images")], capsys)
    assert seen == [("ns", "cpu")] and json.loads(out)["correct"] == 5


def test_questions_file_is_scored_with_eval_vqas_exact_match(tmp_path):
    """`ask --questions` and `eval vqa` count the same answers right: exact text, no case or
    whitespace folding (it used to fold both, so the two disagreed on the same answers)."""
    save(tmp_path / "images" / "a.png", "red", 31)
    golds = [("what color is the image?", "red"), ("what color is the image?", "Red"),
             ("what color is the image?", " red"), ("how wide is the image?", 31)]
    rows = [{"image_filename": "a.png", "question": q, "answer": a} for q, a in golds]
    (tmp_path / "questions.json").write_text(json.dumps({"questions": rows}))
    result = score_questions_file(ColorReasoner(), tmp_path / "questions.json",
                                  tmp_path / "images")
    assert [a["correct"] for a in result["answers"]] == [True, False, False, True]
    assert [a["correct"] for a in result["answers"]] == [
        is_correct(a["predicted"], a["answer"]) for a in result["answers"]]
    assert result["correct"] == 2 and result["accuracy"] == 0.5


class SceneLookupReasoner:
    """Recognizes a generated image by its exact pixels and answers from its scene: a perfect
    reasoner, to check that the file's questions, images and answers line up."""

    name = "scene-lookup"

    def __init__(self, split) -> None:
        from datagen.clevr_files import scene_from_json

        scenes = json.loads((split / "scenes.json").read_text())["scenes"]
        self.scenes = {_digest(np.array(Image.open(split / "images" / s["image_filename"])
                                        .convert("RGB"))): scene_from_json(s) for s in scenes}

    def ask(self, image, questions):
        from vrs.questions import answer_question, parse_question

        scene = self.scenes[_digest(image)]
        return [Answer(answer_question(parse_question(q), scene), 1.0) for q in questions]


def _digest(image: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(image).tobytes()).hexdigest()


def test_questions_file_from_datagen_is_read_and_scored(tmp_path):
    from datagen import generate

    generate(tmp_path, ["block_bowl"], images_per_split=2, questions_per_image=4,
             shard_size=2, progress=False)
    split = tmp_path / "block_bowl"
    result = score_questions_file(SceneLookupReasoner(split), split / "questions.json",
                                  split / "images")
    total = len(json.loads((split / "questions.json").read_text())["questions"])
    assert result["n"] == total == 8 and result["accuracy"] == 1.0
    assert set(result["per_family"]) == {"block_bowl"}
    assert sum(v["n"] for v in result["per_answer_type"].values()) == 8
    assert sum(v["n"] for v in result["per_template"].values()) == 8


@pytest.mark.parametrize(("content", "message"), [
    ("{not json", "is not valid JSON"),
    ('{"scenes": []}', "not a CLEVR questions file"),
    ('{"questions": []}', "has no questions"),
    ('{"questions": [{"image_filename": "a.png", "question": "q?"}]}', "question 0 lacks 'answer'"),
    ('{"questions": [{"image_filename": "zz.png", "question": "q?", "answer": "a"}]}',
     "no image file 'zz.png'"),
])
def test_bad_questions_files_raise_value_error_before_loading_a_model(tmp_path, content, message,
                                                                      monkeypatch, capsys):
    loads = []
    monkeypatch.setattr("vrs.loading.load_reasoner", lambda *a: loads.append(a))
    path = tmp_path / "questions.json"
    path.write_text(content)
    (tmp_path / "images").mkdir()
    with pytest.raises(ValueError, match=message):
        run(["ask", "--model", "ns", "--questions", str(path)], capsys)
    assert loads == []


@pytest.mark.parametrize(("argv", "message"), [
    (["ask", "--url", "http://127.0.0.1:1", "missing.png", "q?"], "no image file at missing.png"),
    (["ask", "--url", "http://127.0.0.1:1", "x.png"], "no questions to ask about x.png"),
    (["ask", "--url", "http://127.0.0.1:1"], "needs IMAGE and at least one question"),
    (["ask", "x.png", "q?", "--questions", "q.json"], "not both"),
    (["serve", "vrs", "--model", "/no/such/checkpoint"], "no checkpoint directory"),
])
def test_bad_command_lines_raise_value_error(argv, message, capsys):
    with pytest.raises(ValueError, match=message):
        run(argv, capsys)


def test_unreachable_server_is_a_value_error_naming_the_url(tmp_path, capsys):
    save(tmp_path / "x.png", "red")
    message = re.escape("cannot reach http://127.0.0.1:1/v1/vqa after 1 ")
    with pytest.raises(ValueError, match=message):
        run(["ask", "--url", "http://127.0.0.1:1", "--retries", "0", str(tmp_path / "x.png"),
             "q?"], capsys)


def test_serve_vrs_options_reach_the_running_server(capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    parser = argparse.ArgumentParser()
    serve_cli.add_parser(parser.add_subparsers())
    args = parser.parse_args(["serve", "vrs", "--port", str(port), "--max-batch", "4",
                              "--max-wait-ms", "2.5", "--log-level", "warning"])
    server = build_server(args, ColorReasoner())
    batcher = server.config.app.state.batcher
    assert (batcher.max_batch_images, batcher.max_wait_s) == (4, 0.0025)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.01)
        reply = requests.get(f"http://127.0.0.1:{port}/healthz", timeout=5)
        assert reply.json() == {"status": "ok", "model": "color-test"}
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.mark.parametrize("bad", [["--max-batch", "0"], ["--max-wait-ms", "-1"],
                                 ["--port", "http"]])
def test_bad_serve_numbers_exit_2(bad, capsys):
    parser = argparse.ArgumentParser()
    serve_cli.add_parser(parser.add_subparsers())
    with pytest.raises(SystemExit) as exit_info:
        parser.parse_args(["serve", "vrs", *bad])
    assert exit_info.value.code == 2


def test_a_worker_of_a_multi_process_service_builds_its_app_from_the_environment(monkeypatch):
    """`serve vrs --workers N`: uvicorn starts each worker from an import string, so the
    options travel in the environment; a worker gets the model, batching and its threads."""
    import torch

    from vrs.service import app_from_env

    threads = torch.get_num_threads()
    monkeypatch.setenv("CODEPLAN_VRS_MODEL", "detector")
    monkeypatch.setenv("CODEPLAN_VRS_MAX_BATCH", "3")
    monkeypatch.setenv("CODEPLAN_VRS_MAX_WAIT_MS", "7")
    monkeypatch.setenv("CODEPLAN_VRS_THREADS", "1")
    try:
        app = app_from_env()
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(threads)
    assert (app.state.batcher.max_batch_images, app.state.batcher.max_wait_s) == (3, 0.007)
    assert app.state.batcher.reasoner.name.startswith("detector")


@pytest.mark.slow
def test_two_service_workers_answer_behind_one_address():
    from runtime.eval.bench_service import bench_service

    result = bench_service("default", workers=(2,), clients=2, requests=6, warmup=2, images=3)
    (row,) = result["rows"]
    assert row["workers"] == 2 and row["requests_per_s"] > 0 and row["latency_ms_p50"] > 0


def test_bench_service_refuses_bad_worker_counts(capsys):
    from runtime.cli import main

    assert main(["bench", "service", "--workers", "0,2"]) == 2
    assert "--workers must name counts >= 1" in capsys.readouterr().err
    assert main(["bench", "service", "--workers", "one"]) == 2
