"""Validation modes that reason over the action model (issue 22): DKPROMPT's precondition and
effect questions with a symbolic belief (`symbolic.py`), the predicates and their classes
(`predicates.py`), the belief (`belief.py`), and DKPROMPT's holistic question-answering
baselines (`qa.py`). The seed paper's modes (open-loop, success,
progress) stay in the controller; these plug into it through `View`."""

from collections.abc import Callable

from runtime.monitors.qa import QA_MODES, QAMonitor
from runtime.monitors.symbolic import (
    SYMBOLIC_MODES,
    UNSURE_BELOW,
    SymbolicMonitor,
    View,
    unsure_below,
)

# Every mode that checks an action against the action model and replans on a failure.
MONITOR_MODES = (*SYMBOLIC_MODES, *QA_MODES)


def make_monitor(mode: str, reasoner: str | Callable[[], str]
                 ) -> SymbolicMonitor | QAMonitor | None:
    """The monitor of a mode (None for the seed paper's modes), with the reasoner's unsure
    threshold. `reasoner` is its name, or a callable giving it when first needed: the name
    of a reasoning service is a request (a service that fails must fail inside the episode,
    where its errors end the episode cleanly, not while the controller is built)."""
    if mode not in MONITOR_MODES:
        return None
    cut = (lambda: unsure_below(reasoner())) if callable(reasoner) else unsure_below(reasoner)
    return (SymbolicMonitor if mode in SYMBOLIC_MODES else QAMonitor)(mode, cut)


__all__ = ["MONITOR_MODES", "QA_MODES", "SYMBOLIC_MODES", "UNSURE_BELOW", "QAMonitor",
           "SymbolicMonitor", "View", "make_monitor", "unsure_below"]
