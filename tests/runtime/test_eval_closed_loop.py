"""The closed-loop evaluation: aggregation, suites, report files, determinism, and the seed
paper's ordering of the three modes."""

from __future__ import annotations

import argparse
import csv
import json

import pytest

from runtime.cli_eval_closed_loop import CliError, add_closed_loop_parser, build_spec
from runtime.closed_loop_report import write_report
from runtime.closed_loop_suites import PAPER_TABLE2, get_suite
from runtime.eval_closed_loop import COUNTS, EvalSpec, aggregate, format_table, run_eval


def _episode(task: str, mode: str, success: bool, cause: str | None = None) -> dict:
    return {"task": task, "mode": mode, "success": success, "wall_s": 1.0,
            **{k: 2 for k in COUNTS}, "diagnostics": {"failure_cause": cause}}


def test_aggregate_gives_rates_wilson_intervals_and_failure_causes():
    spec = EvalSpec(["t"], ["open-loop", "progress"], episodes=4)
    eps = [_episode("t", "open-loop", s, None if s else "missed failure") for s in (0, 0, 1, 0)]
    eps += [_episode("t", "progress", True) for _ in range(4)]
    result = aggregate(spec, eps)
    assert result["success_rate"] == {"t": {"open-loop": 0.25, "progress": 1.0}}
    assert result["ci95"]["t"]["progress"][1] == 1.0
    assert result["failure_causes_by_mode"]["open-loop"]["missed failure"] == 3
    assert result["reasoner_calls_per_episode"]["t"]["progress"] == 2.0
    assert "| t | 25% [" in format_table(result)


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_closed_loop_parser(parser.add_subparsers())
    return parser.parse_args(["closed-loop", *argv])


def test_the_paper_suite_expands_to_its_tasks_modes_and_dated_results_dir():
    spec = build_spec(_parse("--suite", "paper-table2", "--episodes", "3"))
    assert spec.tasks == list(PAPER_TABLE2) and spec.modes == ["open-loop", "success", "progress"]
    assert spec.out_dir.parts[:2] == ("results", "paper-table2") and spec.seed_start == 1000
    assert spec.reference["put-blocks-in-mismatched-bowls"]["progress"] == 0.60
    assert spec.actor == "cliport" and spec.reasoner == "default"  # the default stack
    other = build_spec(_parse("--suite", "paper-table2", "--actor", "oracle",
                              "--reasoner", "learned"))
    assert other.out_dir.parts[:2] == ("results", "paper-table2+actor-oracle")


def test_bad_suites_tasks_and_modes_are_named():
    with pytest.raises(CliError, match="exclusive"):
        build_spec(_parse("--suite", "paper-table2", "--task", "stack-blocks"))
    with pytest.raises(CliError, match="unknown mode"):
        build_spec(_parse("--task", "stack-blocks", "--modes", "sometimes"))
    with pytest.raises(ValueError, match="suites: paper-table2"):
        get_suite("table-9")


def _tiny_eval(out):
    spec = EvalSpec(["put-blocks-in-mismatched-bowls"], ["open-loop", "progress"], episodes=2,
                    situations="dkprompt", actor="oracle", reasoner="oracle", out_dir=out,
                    suite="tiny", reference={"put-blocks-in-mismatched-bowls": {"progress": 0.6}},
                    reference_label="paper", reference_episodes=15)
    return spec, run_eval(spec, progress=False)


def test_same_seeds_give_the_same_table_and_every_report_file(tmp_path):
    spec, first = _tiny_eval(tmp_path / "a")
    _, second = _tiny_eval(tmp_path / "b")
    for key in ("success_rate", "ci95", "reasoner_calls_per_episode", "failure_causes"):
        assert first[key] == second[key], key
    summary = write_report(first, spec.out_dir, "codeplan eval closed-loop --suite tiny")
    out = spec.out_dir
    assert (out / "success.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((out / "summary.json").read_text())["commit"] == summary["commit"]
    table = (out / "table.md").read_text()
    assert "paper (15 ep.)" in table and "60.0%" in table and "codeplan replay" in table
    rows = list(csv.DictReader((out / "table.csv").open()))
    assert [(r["mode"], r["reference_rate"]) for r in rows] == [("open-loop", ""),
                                                                ("progress", "0.6")]
    records = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert len(records) == 4 and {r["seed"] for r in records} == {1000, 1001}
    assert all("failure_cause" in r["diagnostics"] and r["situations"] == "dkprompt"
               for r in records)


def test_a_small_eval_runs_and_writes_per_episode_records(tmp_path):
    spec = EvalSpec(["put-block-in-bowl"], ["success"], episodes=2, situations="none",
                    out_dir=tmp_path)
    result = run_eval(spec, progress=False)
    assert result["success_rate"]["put-block-in-bowl"]["success"] == 1.0
    lines = (tmp_path / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == 2 and '"seed": 1000' in lines[0]


@pytest.mark.slow
def test_progress_beats_success_beats_open_loop_with_dkprompt_situations(tmp_path):
    spec = EvalSpec(["put-blocks-in-mismatched-bowls"], ["open-loop", "success", "progress"],
                    episodes=30, situations="dkprompt", out_dir=tmp_path)
    rates = run_eval(spec, progress=False)["success_rate"]["put-blocks-in-mismatched-bowls"]
    assert rates["progress"] > rates["success"] > rates["open-loop"], rates
