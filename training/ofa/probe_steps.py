"""How many training steps fit a GPU recipe's time budget, from a short probe run's step log.

    python3 -m training.ofa.probe_steps RUN/train_log.jsonl SECONDS [SCALE]

Why: a GPU call has a hard time limit, and the cosine schedule must end inside it. The rate is
taken between the log's first and last rows (past the first images' decoding), 10% of the
budget is left to the evaluations, and the count is rounded down to hundreds, never below 100.
SCALE corrects a probe known to mis-measure (the stride-16 runs ran ~1.7x faster once warm).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

EVAL_SHARE = 0.1  # of the budget, left to the learning-curve evaluations


def steps_for(log: Path, seconds: float, scale: float = 1.0) -> int:
    """Steps of the probed rate in `seconds` (see the module docstring). A log of fewer than
    two rows, or without time between them, is a ValueError naming the file."""
    rows = [json.loads(x) for x in log.read_text().splitlines() if x.strip()]
    if len(rows) < 2 or rows[-1]["seconds"] <= rows[0]["seconds"]:
        raise ValueError(f"{log}: a probe log needs two rows at different times, "
                         f"got {len(rows)}")
    first, last = rows[0], rows[-1]
    rate = (last["step"] - first["step"]) / (last["seconds"] - first["seconds"])
    steps = rate * seconds * (1 - EVAL_SHARE) * scale
    return max(100, int(steps) // 100 * 100)


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print("usage: python3 -m training.ofa.probe_steps LOG SECONDS [SCALE]", file=sys.stderr)
        return 2
    try:
        print(steps_for(Path(argv[0]), float(argv[1]), float(argv[2]) if len(argv) == 3
                        else 1.0))
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
