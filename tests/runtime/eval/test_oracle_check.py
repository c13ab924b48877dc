"""The oracle check counts successes per task with Wilson intervals and names failed seeds."""

from __future__ import annotations

import pytest

from runtime.eval.oracle_check import format_oracle_check, oracle_check


def test_counts_rates_intervals_and_categories():
    result = oracle_check(["swap-blocks-in-bowls", "put-block-in-bowl"], episodes=2,
                          seed_start=3)
    assert result["seeds"] == [3, 4]
    swap = result["tasks"]["swap-blocks-in-bowls"]
    assert swap["successes"] == 2 and swap["episodes"] == 2 and swap["success_rate"] == 1.0
    assert 0.3 < swap["ci95"][0] < 0.4 and swap["ci95"][1] == 1.0  # Wilson, 2 of 2
    assert swap["category"] == "memory" and swap["failed_seeds"] == []
    assert result["tasks"]["put-block-in-bowl"]["category"] == ""
    text = format_oracle_check(result)
    assert "swap-blocks-in-bowls  memory" in text and "2/2" in text


def test_a_task_the_oracle_cannot_finish_is_reported_with_its_seeds(monkeypatch):
    from ravens_env.tasks.swap_blocks_in_bowls import SwapBlocksInBowls

    monkeypatch.setattr(SwapBlocksInBowls, "oracle_step", lambda self, scene: None)
    result = oracle_check(["swap-blocks-in-bowls"], episodes=2, seed_start=0)
    row = result["tasks"]["swap-blocks-in-bowls"]
    assert row["successes"] == 0 and row["failed_seeds"] == [0, 1]
    assert "failed seeds [0, 1]" in format_oracle_check(result)


def test_an_unknown_task_fails_before_any_episode():
    with pytest.raises(KeyError, match="unknown task 'make-coffee'"):
        oracle_check(["swap-blocks-in-bowls", "make-coffee"], episodes=1)
