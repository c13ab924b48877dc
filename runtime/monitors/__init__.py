"""Validation modes that reason over the action model (issue 22): DKPROMPT's precondition and
effect questions with a symbolic belief (`symbolic.py`), the predicates and their classes
(`predicates.py`), the belief (`belief.py`). The seed paper's modes (open-loop, success,
progress) stay in the controller; these plug into it through `View`."""

from runtime.monitors.symbolic import (
    SYMBOLIC_MODES,
    UNSURE_BELOW,
    SymbolicMonitor,
    View,
    unsure_below,
)

__all__ = ["SYMBOLIC_MODES", "UNSURE_BELOW", "SymbolicMonitor", "View", "unsure_below"]
