"""The three modules a codeplan may import, and the sandbox API built from them.

Their functions' signatures and docstrings are the API the planner prompt shows, so they are
written for an LLM reader: short, concrete, with an example.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import ModuleType

from primitives import control_actions, plan_actions, reasoning_actions

MODULES: tuple[ModuleType, ...] = (control_actions, plan_actions, reasoning_actions)


def _public(module: ModuleType) -> dict[str, Callable]:
    return {name: fn for name, fn in vars(module).items() if not name.startswith("_")
            and inspect.isfunction(fn) and fn.__module__ == module.__name__}


def sandbox_api() -> dict[str, dict[str, Callable]]:
    """{module name: {function name: callable}} for `runtime.sandbox.Sandbox`."""
    return {m.__name__.split(".")[-1]: _public(m) for m in MODULES}


def describe_api() -> str:
    """The API as the planner prompt shows it: imports, then each signature and docstring."""
    parts = []
    for module in MODULES:
        short = module.__name__.split(".")[-1]
        fns = _public(module)
        parts.append(f"from {short} import {', '.join(fns)}")
        for name, fn in fns.items():
            doc = inspect.getdoc(fn) or ""
            body = "\n".join("    " + line for line in doc.splitlines())
            parts.append(f"  def {name}{inspect.signature(fn)}:\n{body}")
        parts.append("")
    return "\n".join(parts).rstrip() + "\n"
