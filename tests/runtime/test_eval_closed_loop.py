"""The closed-loop evaluation: aggregation, and the seed paper's ordering of the three modes."""

from __future__ import annotations

import pytest

from runtime.eval_closed_loop import EvalSpec, aggregate, format_table, run_eval


def test_aggregate_gives_rates_and_wilson_intervals():
    spec = EvalSpec(["t"], ["open-loop", "progress"], episodes=4)
    eps = [{"task": "t", "mode": m, "success": s, "questions": 2, "wall_s": 1.0}
           for m, outcomes in (("open-loop", [0, 0, 1, 0]), ("progress", [1, 1, 1, 1]))
           for s in outcomes]
    result = aggregate(spec, eps)
    assert result["success_rate"] == {"t": {"open-loop": 0.25, "progress": 1.0}}
    assert result["ci95"]["t"]["progress"][1] == 1.0
    assert "| t | 25% [" in format_table(result)


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
