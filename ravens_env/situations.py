"""Situations: unforeseen outcomes injected into pick-places, each with its own probability.

Why: the seed paper's closed loop exists to notice and repair what goes wrong after an action
reports success. DKPROMPT (Table 6) injects such failures at fixed rates for place actions; the
presets below reuse those rates. Every draw comes from the episode's own seeded generator, so
the same task, seed and settings give the same failures on any machine.

Kinds (when they act):
  drop   the held block falls during transport (the place never happens)
  miss   the place lands 7-12 cm off target, so the block ends up nearby
  knock  after the place, a neighbouring block is knocked 6-10 cm away
  tip    after the place, a bowl tips and spills what it holds beside it (an empty bowl is
         only nudged)
  edge   after the place, a block is pushed to within 1-4 cm of the workspace edge
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

KINDS = ("drop", "miss", "knock", "tip", "edge")


@dataclass(frozen=True)
class Situations:
    """Probability (0-1) of each situation per pick-place; all zero by default."""

    drop: float = 0.0
    miss: float = 0.0
    knock: float = 0.0
    tip: float = 0.0
    edge: float = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):
            p = getattr(self, f.name)
            if not isinstance(p, (int, float)) or not 0.0 <= float(p) <= 1.0:
                raise ValueError(f"situation {f.name!r} probability must be in [0, 1], got {p!r}")

    @property
    def active(self) -> bool:
        return any(getattr(self, k) > 0 for k in KINDS)

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


PRESETS: dict[str, Situations] = {
    "none": Situations(),
    # DKPROMPT Table 6 rates for place actions.
    "dkprompt": Situations(drop=0.1, miss=0.1, knock=0.1, tip=0.05),
    "hard": Situations(drop=0.15, miss=0.15, knock=0.15, tip=0.1, edge=0.05),
}


def parse_situations(text: str) -> Situations:
    """A preset name (`none`, `dkprompt`, `hard`) or `kind=p,...` such as `drop=0.2,knock=0.1`."""
    text = text.strip()
    if text in PRESETS:
        return PRESETS[text]
    if "=" not in text:
        raise ValueError(
            f"unknown situations preset {text!r}; presets: {', '.join(PRESETS)}, "
            "or give probabilities like 'drop=0.2,knock=0.1'"
        )
    values: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        kind, _, raw = part.partition("=")
        kind = kind.strip()
        if kind not in KINDS:
            raise ValueError(f"unknown situation {kind!r}; kinds: {', '.join(KINDS)}")
        try:
            values[kind] = float(raw)
        except ValueError:
            raise ValueError(f"situation {kind!r} needs a number, got {raw!r}") from None
    return Situations(**values)
