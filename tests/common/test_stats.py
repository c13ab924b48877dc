"""Wilson and bootstrap intervals: known values and edge cases."""

from __future__ import annotations

import pytest

from common.stats import median_interval, summarize_times, wilson_interval


def test_wilson_matches_known_values():
    lo, hi = wilson_interval(20, 20)
    assert hi == 1.0 and abs(lo - 0.8389) < 1e-4  # the 100%-of-20 interval
    lo, hi = wilson_interval(5, 10)
    assert abs(lo - 0.2366) < 1e-4 and abs(hi - 0.7634) < 1e-4
    assert wilson_interval(0, 50)[0] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(("k", "n"), [(1, 0), (-1, 5), (6, 5)])
def test_wilson_rejects_impossible_counts(k, n):
    with pytest.raises(ValueError):
        wilson_interval(k, n)


def test_median_interval_is_deterministic_and_covers_the_median():
    values = [0.01 * i for i in range(1, 101)]
    lo, hi = median_interval(values)
    assert (lo, hi) == median_interval(values)
    assert lo < 0.505 < hi and hi - lo < 0.2
    summary = summarize_times(values)
    assert summary["n"] == 100 and summary["median_ci95"][0] <= summary["median"]
