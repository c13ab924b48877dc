"""Answer balance: yes/no exactly 50/50 per stratum, counts and object answers not dominated
by 0 / nothing / table, no question-only shortcut."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from datagen import generate
from datagen.clevr_files import scene_from_json
from datagen.families import FAMILIES
from datagen.question_sampler import sample_questions
from datagen.stats import question_stats


def _rows(qas) -> list[dict]:
    return [{"question": q.question, "answer": q.answer, "answer_type": q.answer_type,
             "template": q.template, "same_color": q.same_color, "dark": q.dark,
             "program": q.program_json()} for q in qas]


@pytest.fixture(scope="module")
def resampled(small_run) -> dict[str, list[list]]:
    """Questions asked afresh (6 seeds x 10 questions) about every image of the small run."""
    out, manifest = small_run
    per_family = {}
    for split in manifest["families"]:
        scenes = json.loads((out / split / "scenes.json").read_text())["scenes"]
        per_family[split] = [sample_questions(scene_from_json(s), FAMILIES[split], 10,
                                              np.random.default_rng([seed, s["image_index"]]))
                             for s in scenes for seed in range(6)]
    return per_family


def test_yes_no_is_exactly_balanced_in_every_image_and_stratum(resampled):
    for images in resampled.values():
        for qas in images:
            strata = Counter()
            for q in qas:
                if q.answer_type == "yes/no":
                    key = (q.template, q.program.get("rel"), q.same_color)
                    strata[key] += 1 if q.answer == "yes" else -1
            assert all(v == 0 for v in strata.values()), strata


def test_answer_shares_stay_within_bounds(resampled):
    rows = _rows(q for images in resampled.values() for qas in images for q in qas)
    stats = question_stats(rows)
    assert stats["questions"] > 500
    for template in stats["templates"].values():
        if "yes_share" in template:
            assert template["yes_share"] == 0.5
    assert stats["same_color"]["yes_share_of_yes_no"] == 0.5
    assert stats["count_zero_share"] <= 0.3
    assert stats["object_nothing_or_table_share"] <= 0.35
    assert stats["color_nothing_share"] <= 0.3
    for kind in ("count", "object", "color"):
        assert stats["answer_types"][kind]["majority_share"] <= 0.4
    assert stats["question_only_baseline"] <= 0.55


def test_block_bowl_asks_many_same_color_block_in_bowl_questions(resampled):
    rows = _rows(q for qas in resampled["block_bowl"] for q in qas)
    assert question_stats(rows)["same_color_block_in_bowl"] >= 0.05


def test_questions_per_image_are_distinct_and_as_many_as_asked(resampled):
    for images in resampled.values():
        counts = [len(qas) for qas in images]
        assert np.mean(counts) >= 9
        for qas in images:
            assert len({q.program for q in qas}) == len(qas)
            assert len({q.question for q in qas}) == len(qas)


@pytest.mark.slow
def test_balance_of_a_larger_run_over_every_family(tmp_path):
    manifest = generate(tmp_path, list(FAMILIES), images_per_split=30, questions_per_image=10,
                        shard_size=15, progress=False)
    for name, info in manifest["families"].items():
        stats = info["question_stats"]
        assert info["questions"] >= 270, name
        assert all(t.get("yes_share", 0.5) == 0.5 for t in stats["templates"].values()), name
        assert stats["count_zero_share"] <= 0.3, name
        assert stats["object_nothing_or_table_share"] <= 0.35, name
        assert stats["question_only_baseline"] <= 0.55, name
    bowl = manifest["families"]["block_bowl"]["question_stats"]
    assert bowl["same_color_block_in_bowl"] >= 0.05
    assert manifest["families"]["block_bowl"]["image_stats"]["dark_blocks"] > 0
