"""The tabletop domain's predicates, DKPROMPT's perceptibility classes, and the action's
preconditions and effects as questions a reasoner can answer.

DKPROMPT (Zhang et al., 2024, Table 2) sorts a domain's predicates by how they can be known:
*perceptible in vision* (asked of the vision-language model), *perceptible in non-vision*
(read from the robot's own sensors) and *imperceptible* (only the planner's bookkeeping).
This project's PDDL model (`runtime/planners/pddl.py`) and its one action,
put-first-on-second (a pick and a place), sort as:

    in(b, w)      a block rests in a bowl            vision      "is the b in the w?"
    on(b, x)      a block rests on a block / stand   vision      "is the b on the x?"
    clear(x)      nothing rests in or on x           vision      "is there anything on the x?"
    holding(b)    the suction cup holds b            non-vision  Observation.holding
    handempty     the suction cup holds nothing      non-vision  Observation.holding is None
    fixed(s)      a pyramid slot is filled for good  imperceptible
    ok(b)         b rests where the goal accepts it  imperceptible (the goal's bookkeeping)

put(b, dst), b resting on src:
    pre   handempty or holding(b)   (a cup still holding b, after a place that did not let
                                     go, places b without picking it)
          clear(b)                  (a block with another on it cannot be lifted alone)
          clear(dst)                when dst is one bowl or one block: a bowl holds one block,
                                    a block carries one; not for the stand or a pair of blocks
                                    (a pyramid's upper slot rests on two blocks, each of which
                                    may already carry the neighbouring upper block)
    eff   in(b, dst) / on(b, t) for each target t, handempty, clear(src) when src is a bowl
          or a block
"""

from __future__ import annotations

from dataclasses import dataclass

VISION, NON_VISION, IMPERCEPTIBLE = "vision", "non-vision", "imperceptible"
PREDICATE_CLASSES = {"in": VISION, "on": VISION, "clear": VISION, "holding": NON_VISION,
                     "handempty": NON_VISION, "fixed": IMPERCEPTIBLE, "ok": IMPERCEPTIBLE}
SURFACES = ("table", "stand")  # never "clear" or "not clear": they hold any number of blocks
HELD = "gripper"  # the belief's place for a block the suction cup still holds


@dataclass(frozen=True)
class Predicate:
    """A ground predicate and the truth value an action needs (pre) or brings (eff)."""

    name: str
    args: tuple[str, ...] = ()
    want: bool = True

    @property
    def kind(self) -> str:
        return PREDICATE_CLASSES[self.name]

    def question(self) -> str:
        """The yes/no question whose "yes" means the predicate is true (vision only)."""
        if self.name in ("in", "on"):
            return f"is the {self.args[0]} {self.name} the {self.args[1]}?"
        if self.name == "clear":  # "yes" means something is there: the predicate is false
            where = "in" if self.args[0].endswith("bowl") else "on"
            return f"is there anything {where} the {self.args[0]}?"
        raise ValueError(f"{self.name} is not perceptible in vision")

    def truth(self, answer: str) -> bool:
        """The predicate's truth given the answer "yes"/"no" to `question()`."""
        return (answer == "yes") != (self.name == "clear")

    def __str__(self) -> str:
        text = f"{self.name}({', '.join(self.args)})" if self.args else self.name
        return text if self.want else f"not {text}"


def placement(targets: list[str]) -> str:
    """'in' for one bowl, else 'on' (a block, the stand, or a pyramid's pair of blocks)."""
    return "in" if len(targets) == 1 and targets[0].endswith("bowl") else "on"


def preconditions(pick: str, targets: list[str]) -> list[Predicate]:
    """put(pick, targets): the cup free (or holding this very block), the block clear, and a
    single bowl or block target clear."""
    pre = [Predicate("handempty"), Predicate("clear", (pick,))]
    if len(targets) == 1 and targets[0] not in SURFACES:
        pre.append(Predicate("clear", (targets[0],)))
    return pre


def effects(pick: str, targets: list[str], source: str | None) -> list[Predicate]:
    """put(pick, targets) from `source`: the block in/on each target, the cup free, and the
    place it left clear (when that place is a bowl or a block)."""
    eff = [Predicate(placement(targets), (pick, t)) for t in targets] + [Predicate("handempty")]
    if source and source not in (*SURFACES, HELD) and source not in targets:
        eff.append(Predicate("clear", (source,)))
    return eff
