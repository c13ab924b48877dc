"""Stub primitives for trying a codeplan without simulator or reasoner.

Why stubs: checking that an LLM's codeplan compiles, stays inside the sandbox and calls the
API sensibly needs neither the simulator nor the VQA model. The stubs answer with fixed,
plausible values and keep a call log of what the plan would have done. `codeplan sandbox run`
and `codeplan bench sandbox` both run codeplans against them.
"""

from __future__ import annotations

from collections.abc import Callable

STUB_OBJECTS = ("red block", "green block", "yellow block", "blue bowl", "green bowl", "red bowl")


def _call_text(name: str, *args: object) -> str:
    return f"{name}({', '.join(repr(arg) for arg in args)})"


class StubPrimitives:
    """The codeplan API with real signatures (so arity errors show) and fixed answers."""

    def __init__(self, emit: Callable[[str], None]) -> None:
        self.calls: list[str] = []
        self.messages: list[str] = []  # what the plan told the planner
        self._emit = emit

    def _log(self, name: str, *args: object) -> None:
        line = _call_text(name, *args)
        self.calls.append(line)
        self._emit(line)

    def put_first_on_second(self, pick: str, place: str) -> None:
        self._log("put_first_on_second", pick, place)

    def get_object_names(self) -> list[str]:
        self._log("get_object_names")
        return list(STUB_OBJECTS)

    def tell_planner(self, message: str) -> None:
        self._log("tell_planner", message)
        self.messages.append(message)

    def find_object_related_to_obj(self, relation: str, obj: str,
                                   at_start: bool = False) -> str | None:
        self._log("find_object_related_to_obj", relation, obj, *([True] if at_start else []))
        return "table"

    def ask(self, question: str, at_start: bool = False) -> str:
        self._log("ask", question, *([True] if at_start else []))
        return "yes"

    def is_true(self, statement: str, at_start: bool = False) -> bool:
        self._log("is_true", statement, *([True] if at_start else []))
        return True

    def api(self) -> dict[str, dict[str, Callable[..., object]]]:
        return {
            "control_actions": {"put_first_on_second": self.put_first_on_second},
            "plan_actions": {"get_object_names": self.get_object_names,
                             "tell_planner": self.tell_planner},
            "reasoning_actions": {"find_object_related_to_obj": self.find_object_related_to_obj,
                                  "ask": self.ask, "is_true": self.is_true},
        }
