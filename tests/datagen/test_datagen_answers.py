"""Every stored answer is what the question language answers on the stored scene."""

from __future__ import annotations

import json

from datasets import load_from_disk

from datagen.clevr_files import scene_from_json
from vrs.questions import Question, answer_question, answer_type, parse_question


def _load(out, split):
    scenes = json.loads((out / split / "scenes.json").read_text())["scenes"]
    questions = json.loads((out / split / "questions.json").read_text())["questions"]
    return {s["image_index"]: scene_from_json(s) for s in scenes}, questions


def test_every_answer_equals_answer_question_on_the_stored_scene(small_run):
    out, manifest = small_run
    checked = 0
    for split in manifest["families"]:
        scenes, questions = _load(out, split)
        for q in questions:
            program = parse_question(q["question"])
            assert answer_question(program, scenes[q["image_index"]]) == q["answer"], q
            assert answer_type(program) == q["answer_type"]
            assert program.template == q["template"]
            assert program == Question(q["program"]["template"], q["program"]["params"])
            checked += 1
    assert checked == manifest["totals"]["questions"] > 50


def test_hf_rows_agree_with_the_clevr_files(small_run):
    out, manifest = small_run
    hf = load_from_disk(str(out / "hf"))
    for split in manifest["families"]:
        scenes, questions = _load(out, split)
        rows = hf[split].remove_columns("image").to_list()
        assert [(r["scene_index"], r["question"], r["answer"]) for r in rows] == [
            (q["image_index"], q["question"], q["answer"]) for q in questions]
        for r in rows:
            scene = scenes[r["scene_index"]]
            assert answer_question(parse_question(r["question"]), scene) == r["answer"]


def test_questions_are_distinct_per_image_and_name_visible_objects(small_run):
    out, manifest = small_run
    for split in manifest["families"]:
        scenes, questions = _load(out, split)
        per_image: dict[int, list] = {}
        for q in questions:
            per_image.setdefault(q["image_index"], []).append(parse_question(q["question"]))
            scene = scenes[q["image_index"]]
            for key in ("subject", "anchor"):
                name = q["program"]["params"].get(key)
                if name and name != "table":
                    assert scene.get(name).visible, (split, q["question"])
        for programs in per_image.values():
            assert len(programs) == len(set(programs))
