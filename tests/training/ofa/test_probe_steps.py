"""The GPU recipes' step count: the probe's rate over the time budget, 10% left to the
evaluations, rounded down to hundreds, never under 100; a log it cannot read is named."""

from __future__ import annotations

import json

import pytest

from training.ofa.probe_steps import main, steps_for


def _log(path, rows):
    path.write_text("".join(json.dumps({"step": s, "seconds": t}) + "\n" for s, t in rows))
    return path


def test_the_rate_between_the_first_and_last_rows_fills_the_budget(tmp_path):
    log = _log(tmp_path / "log.jsonl", [(50, 10.0), (100, 15.0)])  # 10 steps/s once warm
    assert steps_for(log, 400) == 3600  # 10 * 400 * 0.9
    assert steps_for(log, 400, scale=1.5) == 5400
    assert steps_for(log, 5) == 100  # the floor: never a run of almost no steps
    assert steps_for(_log(tmp_path / "b.jsonl", [(0, 0.0), (77, 10.0)]), 100) == 600  # 693


def test_an_unreadable_probe_log_is_named(tmp_path, capsys):
    one = _log(tmp_path / "one.jsonl", [(50, 10.0)])
    with pytest.raises(ValueError, match=r"one\.jsonl: a probe log needs two rows"):
        steps_for(one, 100)
    assert main([str(tmp_path / "missing.jsonl"), "100"]) == 1
    assert "missing.jsonl" in capsys.readouterr().err
    assert main([str(_log(tmp_path / "ok.jsonl", [(0, 0.0), (10, 1.0)])), "100", "2"]) == 0
    assert capsys.readouterr().out.strip() == "1800"
