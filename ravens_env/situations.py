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

Grasp kinds (DKPROMPT's Table 6 failures; one draw per phase, so the rates are exact and a
pick fails in one way at most):
  pick_stay   the suction does not seal: the block stays where it was, nothing is placed
  pick_drop   the block is lifted and falls 3-6 cm from where it stood
  place_held  the suction does not let go: the arm goes home still holding the block; the
              next pick-place places the held block (a suction cup that holds a block cannot
              pick another), and `Observation.holding` names it meanwhile
  place_drop  the block is let go early and lands 7-12 cm from the place target (as a miss)

The grasp kinds draw from a stream of their own (stream 3), so turning them on leaves every
draw of the five kinds above, and with it every earlier table, exactly as it was.

`natural` (issue 23) is not drawn: it makes failures come from motion. The arm carries a
block at a clearance set only by the pick and place points (3 cm above the higher of the two
surfaces), in 1 cm waypoints with physics running, so the carried block strikes whatever
stands taller in between (a tower, a block on a block) and knocks it — as an arm that plans
its height from its endpoints does. Written `natural`, `dkprompt+natural` or
`drop=0.2,natural`; the injected kinds work on top.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace

KINDS = ("drop", "miss", "knock", "tip", "edge")
PICK_KINDS = ("pick_stay", "pick_drop")
PLACE_KINDS = ("place_held", "place_drop")
GRASP_KINDS = PICK_KINDS + PLACE_KINDS
ALL_KINDS = KINDS + GRASP_KINDS


@dataclass(frozen=True)
class Situations:
    """Probability (0-1) of each situation per pick-place; all zero by default."""

    drop: float = 0.0
    miss: float = 0.0
    knock: float = 0.0
    tip: float = 0.0
    edge: float = 0.0
    pick_stay: float = 0.0
    pick_drop: float = 0.0
    place_held: float = 0.0
    place_drop: float = 0.0
    natural: bool = False  # failures from motion: a low carry that strikes what is taller

    def __post_init__(self) -> None:
        if not isinstance(self.natural, bool):
            raise ValueError(f"natural is on or off (a bool), got {self.natural!r}")
        for f in fields(self):
            if f.name == "natural":
                continue
            p = getattr(self, f.name)
            if not isinstance(p, (int, float)) or not 0.0 <= float(p) <= 1.0:
                raise ValueError(f"situation {f.name!r} probability must be in [0, 1], got {p!r}")
        for phase in (PICK_KINDS, PLACE_KINDS):
            total = sum(getattr(self, k) for k in phase)
            if total > 1.0:
                raise ValueError(f"{' + '.join(phase)} is {total:g}: one pick (or place) fails "
                                 "in one way at most, so their sum must be at most 1")

    @property
    def active(self) -> bool:
        return any(getattr(self, k) > 0 for k in ALL_KINDS)

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


PRESETS: dict[str, Situations] = {
    "none": Situations(),
    # This project's preset since the seed paper's Table 2 (kept, so those tables stay
    # comparable): place-time disturbances at rates taken from DKPROMPT's Table 6 place rows.
    "dkprompt": Situations(drop=0.1, miss=0.1, knock=0.1, tip=0.05),
    "hard": Situations(drop=0.15, miss=0.15, knock=0.15, tip=0.1, edge=0.05),
    # DKPROMPT's Table 6 itself (Zhang et al., 2024): pick fails and the object stays 0.25,
    # pick fails and it drops nearby 0.25, place fails with it still held 0.1, place drops it
    # nearby 0.1.
    "dkprompt-grasp": Situations(pick_stay=0.25, pick_drop=0.25, place_held=0.1,
                                 place_drop=0.1),
}


def parse_situations(text: str) -> Situations:
    """A preset name (`none`, `dkprompt`, `hard`, `dkprompt-grasp`) or `kind=p,...` such as
    `drop=0.2,knock=0.1`; `natural` alone, as `PRESET+natural` or as one more `,natural`
    turns on failures from motion."""
    text = text.strip()
    base, plus, extra = text.partition("+")
    parts = [p.strip() for p in base.split(",")]
    if (plus and extra.strip() == "natural") or "natural" in parts:
        rest = ",".join(p for p in parts if p != "natural") or "none"
        if plus and extra.strip() != "natural":
            raise ValueError(f"unknown addition {extra!r} in {text!r}: only '+natural'")
        return replace(parse_situations(rest), natural=True)
    if plus:
        raise ValueError(f"unknown addition {extra!r} in {text!r}: only '+natural'")
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
        if kind == "natural":
            raise ValueError("natural takes no value: write 'natural', 'PRESET+natural' or "
                             "'drop=0.2,natural'")
        if kind not in ALL_KINDS:
            raise ValueError(f"unknown situation {kind!r}; kinds: {', '.join(ALL_KINDS)}")
        try:
            values[kind] = float(raw)
        except ValueError:
            raise ValueError(f"situation {kind!r} needs a number, got {raw!r}") from None
    return Situations(**values)
