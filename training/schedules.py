"""Learning-rate schedules shared by every training job (actor, detector, VQA model).

One function, so the three jobs cannot drift apart in what "cosine with warmup" means.
"""

from __future__ import annotations

import math


def cosine_with_warmup(step: int, warmup: int, total: int, floor: float = 0.0) -> float:
    """Multiplier of the base lr at `step`: linear 0 -> 1 over `warmup` steps, then cosine from
    1 down to `floor` at `total` (and `floor` after it). A floor > 0 keeps late steps learning."""
    if step < warmup:
        return (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return floor + (1.0 - floor) * 0.5 * (1.0 + math.cos(math.pi * progress))
