"""What an instruction asks for, in the scene's object names: the offline planner's goal.

A reader (`instruction_parser`, `reasoning_readers`) turns words into a Goal; the PDDL model
(`pddl`) turns a Goal into Fast Downward's problem; `codegen` writes the codeplan. Goals that
name no fixed place for a block say which places they accept (`accept`), which is how "a bowl
of another colour", "any bowl", "back where it started" and "the swapped bowl" all become the
same planning problem.
"""

from __future__ import annotations

from dataclasses import dataclass

from runtime.planners.scene_state import kind_of


@dataclass(frozen=True)
class Reference:
    """A block the instruction names by where it is, found at run time by asking the reasoner
    about the first camera image: `relation` to `anchor` ("left of" the "red bowl"), or an
    `ordinal` along the left-right axis ("leftmost", "second from the right")."""

    relation: str = ""
    anchor: str = ""
    ordinal: str = ""

    def words(self) -> str:
        """'the block left of the red bowl' / 'the leftmost block'."""
        if self.ordinal:
            return (f"the {self.ordinal} block" if self.ordinal.endswith("most")
                    else f"the block {self.ordinal}")
        return f"the block {self.relation} the {self.anchor}"


@dataclass(frozen=True)
class Goal:
    """What the instruction asks for, in object names from the scene.

    `pairs` are (block, place) the plan must achieve literally (matching, put); `blocks` are
    the blocks an existential goal is about (mismatched, stack-all, pyramid); `base` is the
    named bottom block of a stack-all; `unmatched` are blocks a matching goal leaves alone
    because no bowl has their color.
    """

    family: str
    instruction: str
    pairs: tuple[tuple[str, str], ...] = ()
    blocks: tuple[str, ...] = ()
    bowls: tuple[str, ...] = ()
    base: str | None = None
    darker: bool = False
    unmatched: tuple[str, ...] = ()
    # block -> the places the goal accepts for it (subset, empty, swap, restore, reverse,
    # rainbow families); blocks not listed may stay where they are
    accept: tuple[tuple[str, tuple[str, ...]], ...] = ()
    first: tuple[tuple[str, str], ...] = ()  # restore: the puts asked for before restoring
    reference: Reference | None = None  # refer: the block named by where it is
    place: str = ""  # refer: where that block goes
    note: str = ""  # what the reading resolved, for the codeplan's goal comment
    check_end: bool = False  # re-ask every goal relation before 'done' (memory goals)

    def summary(self) -> str:
        """One line for the codeplan's goal comment."""
        if self.family in ("matching", "put"):
            what = "every darker block" if self.darker else "each block"
            head = f"{what} in the bowl of its color: " if self.family == "matching" else ""
            return head + ", ".join(f"{b} {_prep(p)} {p}" for b, p in self.pairs)
        if self.family == "mismatched":
            return (f"each of {', '.join(self.blocks)} in a bowl of a different color, "
                    "one block per bowl")
        if self.family == "refer":
            return f"{self.reference.words()} {_prep(self.place)} the {self.place}"
        if self.accept:
            return self.note or "; ".join(f"{b} {_prep(p[0])} {' or '.join(p)}"
                                          for b, p in self.accept if p)
        if self.family == "stack-all":
            base = f"the {self.base} at the bottom" if self.base else "any block at the bottom"
            return f"one tower of {', '.join(self.blocks)}, {base}"
        return "a 3-2-1 pyramid on the stand: three blocks on the stand, two on them, one on top"




def _prep(place: str) -> str:
    return "in" if kind_of(place) == "bowl" else "on"
