"""Named task lists: the reasoning suite (GitHub issue 21) and its categories.

Why: the oracle check (`codeplan eval oracle --suite reasoning`) and the closed-loop suite
`reasoning` (`runtime/eval/closed_loop_suites.py`) must run the same tasks and group them by
the same categories; this is the one list both import. The task package imports no PyBullet
(only `env.py` does), so a parser module may import this list at its top and `codeplan
--help` stays light.
"""

from __future__ import annotations

CATEGORIES = ("reference", "memory", "common-sense", "world-knowledge")

# task id -> category, grouped by category (the order tables print in)
REASONING_TASKS: dict[str, str] = {
    "put-block-by-relation": "reference",
    "put-ordinal-block-in-bowl": "reference",
    "put-n-blocks-in-bowls": "reference",
    "put-blocks-except-color": "reference",
    "swap-blocks-in-bowls": "memory",
    "restore-after-disturbance": "memory",
    "reverse-tower": "memory",
    "tidy-up-blocks": "common-sense",
    "one-block-per-bowl": "common-sense",
    "empty-the-bowl": "common-sense",
    "flag-colors-in-bowls": "world-knowledge",
    "rainbow-order-tower": "world-knowledge",
    "warm-colors-in-bowls": "world-knowledge",
    "primary-colors-in-bowls": "world-knowledge",
}

TASK_SUITES: dict[str, tuple[str, ...]] = {"reasoning": tuple(REASONING_TASKS)}


def suite_tasks(name: str) -> list[str]:
    """The task ids of suite `name`; ValueError naming the known suites."""
    if name not in TASK_SUITES:
        raise ValueError(f"unknown task suite {name!r}; suites: {', '.join(TASK_SUITES)}")
    return list(TASK_SUITES[name])
