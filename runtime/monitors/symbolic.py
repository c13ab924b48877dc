"""DKPROMPT's closed loop (issue 22): an action's preconditions are asked before it and its
effects after it; the answers update a symbolic belief, and a precondition that fails or an
effect that is missing stops the codeplan so the planner replans from the belief.

Modes (DKPROMPT's method and its ablations, Table 4):
  dkprompt   preconditions and effects
  pre-only   preconditions only (a missed effect is only found by the next precondition)
  eff-only   effects only

Answers are yes / no / unsure: a reasoner's answer whose score is below `unsure_below` is
*unsure*, and an unsure predicate is taken to be as the plan expects (it neither stops the
codeplan nor changes the belief: one doubtful answer must not trigger a replan, and a
confident one will come with the next question). Non-vision predicates (holding,
handempty) come from the robot's own state, never from the reasoner.

Contradictions: after put(b, dst) the effects "b in dst" and "src clear" can disagree about
b — "b is in dst" and "b is still on src" (b is what is on src). The rule: the answer with
the higher score wins; on a tie the effect counts as missing, the cautious reading (a
replan costs a plan, a false "done" costs the episode).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from runtime.monitors.belief import HELD, Belief
from runtime.monitors.predicates import (
    NON_VISION,
    Predicate,
    effects,
    placement,
    preconditions,
)

SYMBOLIC_MODES = {"dkprompt": (True, True), "pre-only": (True, False),
                  "eff-only": (False, True)}
# Per reasoner (its `name`): scores below this are "unsure". Chosen with `codeplan tune unsure`
# on dev seeds 0-9 of four tasks (docs/RESULTS.md, "DKPROMPT"), never on test seeds. A
# reasoner not listed trusts every yes/no answer; the oracle scores 1.0 and is never unsure.
# Keyed by the name the loaded reasoner carries (a detector is named after its checkpoint
# dir): detector-tiny is the shipped default the threshold was tuned for; detector-dr is not
# tuned and trusts every answer.
UNSURE_BELOW = {"detector-tiny": 0.05, "oracle": 0.0}


UNKNOWN = "unknown object:"  # how a reasoner answers about an object it does not see


def unsure_below(reasoner: str) -> float:
    return UNSURE_BELOW.get(reasoner, 0.0)


class Scored(Protocol):
    text: str
    score: float


@dataclass
class View:
    """What a monitor may use of the controller: questions about the current image (counted
    and traced there), the robot's own state, and the trace."""

    ask: Callable[[list[str]], list[Scored]]
    holding: Callable[[], str | None]
    event: Callable[..., None]


@dataclass
class Verdict:
    """One predicate checked: its question and answer (vision) and its truth, or unsure."""

    predicate: Predicate
    truth: bool | None  # None: unsure
    question: str | None = None
    answer: str | None = None
    score: float = 1.0

    @property
    def failed(self) -> bool:
        return self.truth is not None and self.truth != self.predicate.want

    def to_list(self) -> list:
        verdict = "unsure" if self.truth is None else ("holds" if not self.failed else "fails")
        return [str(self.predicate), self.question, self.answer, round(self.score, 4), verdict]


class UnsureCut:
    """The reasoner's unsure threshold, given as a number or as a callable looked up when
    first needed (after an answer: an HTTP reasoner learns its model's name from its
    answers, not from an extra request). Shared by every monitor."""

    _cut: float | Callable[[], float] = 0.0

    @property
    def unsure_below(self) -> float:
        if callable(self._cut):
            self._cut = self._cut()
        return self._cut


class SymbolicMonitor(UnsureCut):
    """Asks the PDDL preconditions / effects of each put and keeps the belief."""

    keeps_belief = True  # a replan is planned from the belief

    def __init__(self, mode: str, unsure_below: float | Callable[[], float] = 0.0) -> None:
        if mode not in SYMBOLIC_MODES:
            raise ValueError(f"unknown symbolic mode {mode!r}; modes: "
                             f"{', '.join(SYMBOLIC_MODES)}")
        self.mode, self._cut = mode, unsure_below
        self.check_pre, self.check_eff = SYMBOLIC_MODES[mode]
        self.belief: Belief | None = None
        self.look_again = False  # a block could not be located: the next plan perceives

    def start(self, objects: list[str], facts: list[tuple[str, str, str]]) -> None:
        """The belief from the first perception of the episode."""
        self.belief = Belief.from_facts([o for o in objects if o.endswith("block")], facts)

    # -- the two checks ---------------------------------------------------------------------
    def before(self, view: View, pick: str, targets: list[str]) -> str | None:
        """None when put(pick, targets) may run; else why not (the codeplan stops)."""
        if not self.check_pre:
            return None
        verdicts = self._judge(view, preconditions(pick, targets), pick)
        return self._conclude(view, "preconditions", pick, targets, verdicts)

    def after(self, view: View, pick: str, targets: list[str], source: str | None
              ) -> str | None:
        """None when put(pick, targets) took effect (or is not checked); else what is missing."""
        place = " and ".join(targets)
        if not self.check_eff:
            self._belief().set(pick, place, "expected effect (not checked)")
            return None
        # pick=None: after the put, a cup still holding the block is a missing effect (the
        # exemption `_non_vision` makes for a precondition would hide a place that failed)
        verdicts = self._judge(view, effects(pick, targets, source), None)
        verdicts = self._resolve(view, verdicts, pick, source)
        if view.holding() != pick and not any(v.failed and v.predicate.name in ("in", "on")
                                              for v in verdicts):
            self._belief().set(pick, place, "effect observed")
        return self._conclude(view, "effects", pick, targets, verdicts)

    def _conclude(self, view: View, check: str, pick: str, targets: list[str],
                  verdicts: list[Verdict]) -> str | None:
        """Correct the belief from the failed predicates, trace the check, and say what
        failed (None: nothing did)."""
        failed = [v for v in verdicts if v.failed]
        self._locate(view, failed, check)
        self._record(view, check, pick, targets, verdicts)
        if not failed:
            return None
        when = "before" if check == "preconditions" else "after"
        return (f"{when} putting the {pick} {placement(targets)} {' and '.join(targets)}: "
                + "; ".join(explain(v) for v in failed))

    def facts(self) -> list[tuple[str, str, str]]:
        return self._belief().facts()

    # -- internals ----------------------------------------------------------------------------
    def _belief(self) -> Belief:
        if self.belief is None:
            self.belief = Belief()
        return self.belief

    def _judge(self, view: View, predicates: list[Predicate], pick: str | None
               ) -> list[Verdict]:
        """`judge`, and a cup still holding a block puts that block in the belief's gripper."""
        verdicts = judge(view, predicates, pick, self.unsure_below)
        held = view.holding()
        if held:
            self._belief().set(held, HELD, "robot state: the cup still holds it")
        return verdicts

    def _resolve(self, view: View, verdicts: list[Verdict], pick: str,
                 source: str | None) -> list[Verdict]:
        """The stated rule for "b is at dst" against "b is still at src"."""
        placed = [v for v in verdicts if v.predicate.name in ("in", "on") and v.truth]
        left = [v for v in verdicts if v.predicate.name == "clear" and v.failed]
        if not (placed and left and source):
            return verdicts
        if _what_is(view, source) != pick:
            return verdicts  # something else is on src: no contradiction
        winner = max(placed[0].score, left[0].score)
        if placed[0].score == winner and left[0].score < winner:
            return [Verdict(v.predicate, v.predicate.want, v.question, v.answer, v.score)
                    if v is left[0] else v for v in verdicts]
        return [Verdict(v.predicate, not v.predicate.want, v.question, v.answer, v.score)
                if v is placed[0] else v for v in verdicts]

    def _locate(self, view: View, failed: list[Verdict], cause: str) -> None:
        """A failed answer says the belief is wrong: ask where the block in question is."""
        belief = self._belief()
        for v in failed:
            p = v.predicate
            if p.name == "clear":
                other = _what_is(view, p.args[0])
                if other:
                    belief.set(other, p.args[0], f"{cause} {p} answered no")
            elif p.name in ("in", "on"):
                if belief.where(p.args[0]) != HELD:
                    below = _what_is(view, p.args[0], "below")
                    if below is not None and below.startswith(UNKNOWN):
                        self.look_again = True  # out of view: the next plan looks again
                        continue
                    belief.set(p.args[0], below or "table", f"{cause} {p} answered no")

    def _record(self, view: View, kind: str, pick: str, targets: list[str],
                verdicts: list[Verdict]) -> None:
        view.event("symbolic_check", check=kind, action=f"put({pick}, {' and '.join(targets)})",
                   verdicts=[v.to_list() for v in verdicts],
                   belief_changes=list(self._belief().changes))
        self._belief().changes.clear()


def judge(view: View, predicates: list[Predicate], pick: str | None,
          unsure_below: float = 0.0) -> list[Verdict]:
    """Each predicate's verdict: non-vision ones from the robot's state, vision ones asked in
    one reasoner call (an answer scored below `unsure_below` is unsure). Shared by DKPROMPT's
    monitor and ConceptAgent's precondition gate (`runtime.monitors.gate`)."""
    held = view.holding()
    out = {p: Verdict(p, _non_vision(p, held, pick)) for p in predicates
           if p.kind == NON_VISION}
    asked = [p for p in predicates if p.kind != NON_VISION]
    answers = view.ask([p.question() for p in asked]) if asked else []
    for p, a in zip(asked, answers, strict=True):
        sure = a.score >= unsure_below and a.text in ("yes", "no")
        truth = p.truth(a.text) if sure else None
        if _out_of_view(p, a.text):
            truth = p.truth("no")  # a block in or on a visible place would be seen
        out[p] = Verdict(p, truth, p.question(), a.text, a.score)
    return [out[p] for p in predicates]


def _out_of_view(p: Predicate, answer: str) -> bool:
    """The reasoner says the block of an in/on predicate is nowhere in the scene ("unknown
    object: no 'red block' in the scene; ..."). That is a "no", not an unsure answer: taken
    as unsure, the belief kept a dropped block where the plan had put it and every replan
    built on it (20 replans of one put on a reverse-tower). About the place it is unsure:
    a block can hide under another."""
    return (p.name in ("in", "on") and answer.startswith(UNKNOWN)
            and f"'{p.args[0]}'" in answer)


def _non_vision(p: Predicate, held: str | None, pick: str | None) -> bool:
    """handempty from robot state; before a put, a cup holding the block to be put counts as
    free for it (the next place puts the held block down without a pick); `pick` None (an
    effect) makes no exemption."""
    if p.name == "handempty":
        return held is None or held == pick
    if p.name == "holding":
        return held == p.args[0]
    raise ValueError(f"{p} is not a non-vision predicate")


def _what_is(view: View, place: str, relation: str | None = None) -> str | None:
    """The object in/on `place` (or below it), by one question; None for "nothing"."""
    rel = relation or ("in" if place.endswith("bowl") else "on")
    answer = view.ask([f"what is {rel} the {place}?"])[0].text
    return None if answer in ("nothing", "") else answer


def explain(v: Verdict) -> str:
    """Why a failed predicate fails, for the planner: what the robot or the reasoner found."""
    p = v.predicate
    if p.name == "handempty":
        return "the suction cup still holds a block" if p.want else "the suction cup is empty"
    if p.name == "holding":
        return f"the suction cup {'does not hold' if p.want else 'holds'} the {p.args[0]}"
    if p.name == "clear":
        where = "in" if p.args[0].endswith("bowl") else "on"
        return f"{'something' if p.want else 'nothing'} is {where} the {p.args[0]}"
    return f"the {p.args[0]} is {'not' if p.want else 'already'} {p.name} the {p.args[1]}"
