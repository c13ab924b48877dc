"""Validation modes that reason over the action model (issue 22): DKPROMPT's precondition and
effect questions with a symbolic belief (`symbolic.py`), the predicates and their classes
(`predicates.py`), the belief (`belief.py`), and DKPROMPT's holistic question-answering
baselines (`qa.py`). The seed paper's modes (open-loop, success,
progress) stay in the controller; these plug into it through `View`."""

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


def make_monitor(mode: str, reasoner: str) -> SymbolicMonitor | QAMonitor | None:
    """The monitor of a mode (None for the seed paper's modes), with the reasoner's unsure
    threshold."""
    if mode in SYMBOLIC_MODES:
        return SymbolicMonitor(mode, unsure_below(reasoner))
    if mode in QA_MODES:
        return QAMonitor(mode, unsure_below(reasoner))
    return None


__all__ = ["MONITOR_MODES", "QA_MODES", "SYMBOLIC_MODES", "UNSURE_BELOW", "QAMonitor",
           "SymbolicMonitor", "View", "make_monitor", "unsure_below"]
