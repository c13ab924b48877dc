"""DKPROMPT's question-answering baselines (issue 22): one holistic question before and/or
after each action, no predicates, no belief.

  aff-qa      before each action: "can the robot put the X in the Y now?"; replan on no
  suc-qa      after each action: "did the robot put the X in the Y?"; replan on no
  suc-aff-qa  both

How the holistic questions are answered here: the reasoners of this project answer a question
language, not free text, so "can ... now?" is answered as what it means on this tabletop —
the action's vision preconditions, all true, asked in one reasoner call — and "did ... ?" as
its main effect, "is the X in the Y?". What the baselines lack against `dkprompt` is what
DKPROMPT's Table 5 measures: no non-vision predicates (a block still held is not noticed
before the next action), no effect beyond the main one (the old place is not checked), no
reason named back to the planner beyond "could not" / "did not", and no belief — a replan
starts from a fresh look at every block, as the seed paper's loop does.
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.monitors.predicates import NON_VISION, Predicate, placement, preconditions
from runtime.monitors.symbolic import UnsureCut, View

QA_MODES = {"aff-qa": (True, False), "suc-qa": (False, True), "suc-aff-qa": (True, True)}


class QAMonitor(UnsureCut):
    """Asks one holistic yes/no question before and/or after each put; keeps no belief."""

    belief = None
    keeps_belief = False  # a replan perceives the scene afresh

    def __init__(self, mode: str, unsure_below: float | Callable[[], float] = 0.0) -> None:
        if mode not in QA_MODES:
            raise ValueError(f"unknown QA mode {mode!r}; modes: {', '.join(QA_MODES)}")
        self.mode, self._cut = mode, unsure_below
        self.check_pre, self.check_eff = QA_MODES[mode]

    def start(self, objects: list[str], facts: list[tuple[str, str, str]]) -> None:
        """Nothing to keep: the QA baselines have no belief."""

    def before(self, view: View, pick: str, targets: list[str]) -> str | None:
        if not self.check_pre:
            return None
        parts = [p for p in preconditions(pick, targets) if p.kind != NON_VISION]
        place = " and ".join(targets)
        question = f"can the robot put the {pick} {placement(targets)} the {place} now?"
        if self._holds(view, "affordance", question, parts):
            return None
        return f"the robot could not put the {pick} {placement(targets)} the {place} now"

    def after(self, view: View, pick: str, targets: list[str], source: str | None
              ) -> str | None:
        if not self.check_eff:
            return None
        rel, place = placement(targets), " and ".join(targets)
        question = f"did the robot put the {pick} {rel} the {place}?"
        main = [Predicate(rel, (pick, t)) for t in targets]
        if self._holds(view, "success", question, main):
            return None
        return f"the robot did not put the {pick} {rel} the {place}"

    def _holds(self, view: View, kind: str, question: str, parts: list[Predicate]) -> bool:
        """The holistic question's answer (its meaning asked in one reasoner call); unsure
        counts as yes, as in the symbolic modes."""
        answers = view.ask([p.question() for p in parts])
        truths = [p.truth(a.text) == p.want if a.score >= self.unsure_below
                  and a.text in ("yes", "no") else None for p, a in zip(parts, answers,
                                                                        strict=True)]
        holds = all(t is not False for t in truths)
        view.event("qa_check", check=kind, question=question,
                   asked=[[p.question(), a.text, round(a.score, 4)]
                          for p, a in zip(parts, answers, strict=True)],
                   answer="yes" if holds else "no")
        return holds
