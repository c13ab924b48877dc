"""`codeplan eval vqa`: scoring, intervals, the Table 1 writers and the paper-table1 suite."""

from __future__ import annotations

import argparse
import csv
import json

import numpy as np
import pytest

from datagen import generate
from runtime.cli.eval import add_vqa_parser
from runtime.eval.vqa import format_markdown, write_outputs
from runtime.eval.vqa_suites import PAPER_OFA_BASE, get_suite
from vrs.reasoner import Answer
from vrs.scoring import evaluate, load_vqa_data

SPLITS = ["block_bowl", "unseen"]


@pytest.fixture(scope="module")
def vqa_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("vqa")
    generate(out, SPLITS, images_per_split=3, questions_per_image=4, shard_size=3,
             seed_offset=900_000, progress=False)
    return out


class AlwaysYes:
    """Answers "yes" to everything: its accuracy must equal the share of "yes" answers."""

    name = "always-yes"

    def ask(self, image: np.ndarray, questions: list[str]) -> list[Answer]:
        assert image.ndim == 3 and image.shape[2] == 3
        return [Answer("yes", 1.0) for _ in questions]


def test_accuracy_is_the_share_of_matching_answers_per_split(vqa_dir):
    data = load_vqa_data(vqa_dir)
    result = evaluate(AlwaysYes(), data, progress=False)
    for split in SPLITS:
        answers = list(data[split]["answer"])
        assert result["splits"][split]["n"] == len(answers) == 12
        want = sum(a == "yes" for a in answers) / len(answers)
        assert result["accuracy"][split] == pytest.approx(want, abs=1e-4)
        lo, hi = result["splits"][split]["ci95"]
        assert lo <= want <= hi
    assert len(result["records"]) == 24
    by_type = result["overall"]["by_answer_type"]
    non_binary = [t for t in by_type if t not in ("yes/no", "yes_no", "bool", "boolean")]
    assert all(by_type[t]["accuracy"] == 0.0 for t in non_binary)  # "yes" is never a color


def test_unknown_splits_and_missing_data_are_named(vqa_dir, tmp_path):
    with pytest.raises(ValueError, match="no split"):
        load_vqa_data(vqa_dir, ["block_stack"])
    with pytest.raises(ValueError, match="no dataset"):
        load_vqa_data(tmp_path / "nowhere")


def test_reference_rows_sit_beside_ours_in_markdown_and_json(vqa_dir, tmp_path):
    results = [evaluate(AlwaysYes(), load_vqa_data(vqa_dir), progress=False)]
    table = format_markdown(results, {"paper": {"block_bowl": 55.9}})
    paper_row = next(line for line in table.splitlines() if line.startswith("| paper"))
    assert paper_row.split(" | ")[1:3] == ["55.9", "–"]
    write_outputs(results, tmp_path, "codeplan eval vqa", {"paper": {"block_bowl": 55.9}})
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["reference"] == {"paper": {"block_bowl": 55.9}}
    assert saved["commit"] and "CPU cores" in saved["machine"]  # where the numbers came from
    rows = list(csv.DictReader((tmp_path / "table.csv").open()))
    assert {r["split"] for r in rows} == {*SPLITS, "overall"}
    assert len((tmp_path / "answers.jsonl").read_text().splitlines()) == 24


def test_the_paper_suite_names_its_data_and_the_papers_numbers():
    suite = get_suite("paper-table1")
    assert set(PAPER_OFA_BASE) <= set(suite.splits) and "detector" in suite.models
    assert "--seed-offset 100000" in suite.datagen_command()
    with pytest.raises(ValueError, match="suites: paper-table1"):
        get_suite("table9")


def test_the_suite_command_writes_a_table_with_the_paper_row(vqa_dir, tmp_path, capsys,
                                                             monkeypatch):
    import runtime.eval.vqa_suites as suites

    monkeypatch.setattr(suites, "column_data", lambda suite, progress: (None, "not here"))
    parser = argparse.ArgumentParser()
    add_vqa_parser(parser.add_subparsers())
    args = parser.parse_args(["vqa", "--suite", "paper-table1", "--data", str(vqa_dir),
                              "--splits", ",".join(SPLITS), "--model", "detector",
                              "--out", str(tmp_path / "out"), "--json"])
    assert args.handler(args) == 0
    printed = json.loads(capsys.readouterr().out)
    assert set(printed["accuracy"]) == set(SPLITS)
    table = (tmp_path / "out" / "table.md").read_text()
    assert "seed paper: OFA-base fine-tuned" in table and "55.9" in table


def test_the_transfer_suites_make_their_own_looks_on_seeds_no_other_set_uses():
    foreign, blender = get_suite("foreign"), get_suite("blender")
    assert "--variant foreign" in foreign.datagen_command()
    assert "--renderer blender" in blender.datagen_command()
    assert "--workers 1" in blender.datagen_command()
    offsets = {get_suite(n).seed_offset for n in ("paper-table1", "foreign", "blender")}
    assert len(offsets) == 3


def test_every_held_out_look_has_a_suite_on_seeds_of_its_own_and_warns_when_seen():
    """A look added to `held_out_looks` is a suite, on its own seed offset, and the held-out
    check knows it (else a model trained on it would pass for a transfer figure)."""
    from runtime.eval.held_out import HELD_OUT_LOOKS
    from runtime.eval.vqa_suites import SUITES

    assert {"foreign", "studio", "kitchen", "workshop", "gallery", "lobby",
            "library", "piano", "steel", "baize", "slate"} <= set(HELD_OUT_LOOKS)
    by_variant = {s.variant: s for s in SUITES.values()}
    for look in HELD_OUT_LOOKS:
        assert f"--variant {look}" in by_variant[look].datagen_command()
    offsets = [s.seed_offset for s in SUITES.values() if s.renderer != "blender"]
    assert len(offsets) == len(set(offsets))


def test_colour_existence_is_scored_apart_from_other_existence_questions():
    from vrs.scoring import is_color_exists

    def row(params):
        return {"template": "exists", "program": json.dumps({"params": params})}

    assert is_color_exists(row({"color": "red", "type": "block"}))
    assert not is_color_exists(row({"color": "red", "type": "block", "anchor": "blue bowl",
                                    "rel": "in"}))
    assert not is_color_exists(row({"type": "block"}))
    assert not is_color_exists({"template": "count", "program": json.dumps({"params": {
        "color": "red"}})})


def test_two_shipped_detectors_get_two_row_names():
    """A detector reasoner is named after its checkpoint dir, so a table holding detector-tiny
    and detector-dr does not print two rows called "detector"."""
    from vrs.loading import load_reasoner

    assert load_reasoner("detector").name == "detector-tiny"
    assert load_reasoner("detector-dr").name == "detector-dr"


def _run_suite(vqa_dir, out, monkeypatch, column):
    import runtime.eval.vqa_suites as suites

    monkeypatch.setattr(suites, "column_data", column)
    parser = argparse.ArgumentParser()
    add_vqa_parser(parser.add_subparsers())
    args = parser.parse_args(["vqa", "--suite", "paper-table1", "--data", str(vqa_dir),
                              "--splits", ",".join(SPLITS), "--model", "detector",
                              "--out", str(out), "--json"])
    assert args.handler(args) == 0
    return (out / "table.md").read_text(), json.loads((out / "results.json").read_text())


def test_the_paper_suite_measures_the_blender_variant_as_a_column(vqa_dir, tmp_path,
                                                                 monkeypatch, capsys):
    """Table 1's Blender column: the same reasoner on the column suite's data, its overall
    accuracy beside the splits, in the markdown, the CSV and results.json."""
    asked = []

    def column(suite, progress):
        asked.append(suite.name)
        return vqa_dir, ""  # stands in for data/vqa-blender: the same scoring either way

    table, saved = _run_suite(vqa_dir, tmp_path / "out", monkeypatch, column)
    assert asked == ["blender"] == list(get_suite("paper-table1").columns)
    head = next(line for line in table.splitlines() if line.startswith("| model"))
    assert head.split(" | ")[len(SPLITS) + 2] == "blender (overall)"
    row = next(line for line in table.splitlines() if line.startswith("| detector"))
    cells = row.split(" | ")
    assert cells[len(SPLITS) + 2] == cells[len(SPLITS) + 1]  # same data: same overall
    column_result = saved["results"][0]["columns"]["blender"]
    assert column_result["n"] == 24 and column_result["data"] == str(vqa_dir)
    assert f"`blender (overall)`: {vqa_dir}, 24 questions" in table
    rows = list(csv.DictReader((tmp_path / "out" / "table.csv").open()))
    assert {r["split"] for r in rows} == {*SPLITS, "overall", "blender:overall"}


def test_a_column_that_cannot_be_measured_is_left_out_with_its_reason(vqa_dir, tmp_path,
                                                                     monkeypatch, capsys):
    table, saved = _run_suite(vqa_dir, tmp_path / "out", monkeypatch,
                              lambda suite, progress: (None, "blender: no bpy here"))
    assert "**Column left out:** blender: no bpy here" in table
    assert "blender (overall)" not in table and saved["notes"] == ["blender: no bpy here"]


def test_column_data_without_blender_uses_finished_data_or_says_why(tmp_path, monkeypatch):
    from dataclasses import replace

    from runtime.eval.vqa_suites import column_data

    monkeypatch.setenv("CODEPLAN_BLENDER_PYTHON", str(tmp_path / "no-such-python"))
    missing = replace(get_suite("blender"), data=tmp_path / "vqa-blender")
    path, why = column_data(missing, progress=False)
    assert path is None and str(tmp_path / "vqa-blender") in why and "blender" in why
    (tmp_path / "vqa-blender" / "hf").mkdir(parents=True, exist_ok=True)
    (tmp_path / "vqa-blender" / "hf" / "dataset_dict.json").write_text('{"splits": []}')
    assert column_data(missing, progress=False) == (tmp_path / "vqa-blender", "")


def test_a_column_whose_data_a_model_trained_on_is_flagged(vqa_dir, tmp_path):
    """The held-out check covers the extra columns too: a model trained on scenes of the
    Blender column's data gets its own warning line naming that column."""
    result = evaluate(AlwaysYes(), load_vqa_data(vqa_dir), progress=False)
    overlap = {"held_out": False, "overlaps": [{"family": "blender"}]}
    result["columns"] = {"blender": {**result["overall"], "data": "d", "held_out": overlap}}
    write_outputs([result], tmp_path, "codeplan eval vqa")
    table = (tmp_path / "table.md").read_text()
    assert ("**Not held out:** always-yes was trained or tuned on scenes of the blender "
            "column's data (blender;") in table
    assert "scenes of this data" not in table  # the main data was not flagged
