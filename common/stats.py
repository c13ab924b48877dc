"""Small statistics every published number goes through: Wilson intervals and percentiles."""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval for a success rate; behaves at 0% and 100%, unlike Wald's."""
    if n <= 0:
        raise ValueError("a rate needs at least one trial")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in [0, {n}], got {successes}")
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def median_interval(values: list[float], resamples: int = 2000,
                    seed: int = 0) -> tuple[float, float]:
    """95% percentile-bootstrap interval of the median (fixed seed: the same data give the
    same interval)."""
    arr = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    medians = np.median(rng.choice(arr, size=(resamples, len(arr)), replace=True), axis=1)
    lo, hi = np.percentile(medians, [2.5, 97.5])
    return (float(lo), float(hi))


def summarize_times(values: list[float]) -> dict:
    """median (with its 95% bootstrap interval) / p90 / mean / n of seconds, to 0.1 ms."""
    if not values:
        return {"median": float("nan"), "p90": float("nan"), "mean": float("nan"), "n": 0,
                "median_ci95": [float("nan"), float("nan")]}
    arr = np.asarray(values, dtype=float)
    lo, hi = median_interval(values)
    return {
        "median": round(float(np.median(arr)), 4),
        "median_ci95": [round(lo, 4), round(hi, 4)],
        "p90": round(float(np.percentile(arr, 90)), 4),
        "mean": round(float(arr.mean()), 4),
        "n": len(values),
    }
