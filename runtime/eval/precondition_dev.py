"""Dev actions for choosing how preconditions are asked (issue 24): five blocks-world
actions that are *not* primitives of this project, with hand-written preconditions.

Why: put_first_on_second is the one primitive with a reference set, so a prompt form chosen
by its score would be scored on what it was chosen on. These actions share the world and the
predicates but not the primitive; a form is chosen here, and the primitive is measured once
with it (`codeplan eval preconditions --actions dev`, docs/RESULTS.md). Their docstrings are
what the LLM sees, written in the primitives' style. The references are the classic
blocks-world preconditions over this project's predicates (`in`, `on`, `clear`, `holding`,
`handempty`).
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.planners.preconditions import PreconditionSet, parse_line


def pick_up(block: str) -> None:
    """Lift the block named `block` off whatever it rests on and keep holding it.

    Example: pick_up('red block')
    """


def put_down(block: str) -> None:
    """Set the held block named `block` down on the table.

    Example: put_down('red block')
    """


def stack(block: str, base: str) -> None:
    """Put the held block named `block` on top of the block named `base`.

    Example: stack('red block', 'blue block')
    """


def unstack(block: str, base: str) -> None:
    """Lift the block named `block` off the block named `base` it rests on, and keep holding it.

    Example: unstack('red block', 'blue block')
    """


def take_out(block: str, bowl: str) -> None:
    """Pick the block named `block` up out of the bowl named `bowl` and set it on the table.

    Example: take_out('red block', 'blue bowl')
    """


REFERENCE = {
    "pick_up": ("handempty", "clear(block)"),
    "put_down": ("holding(block)",),
    "stack": ("holding(block)", "clear(base)"),
    "unstack": ("handempty", "clear(block)", "on(block, base)"),
    "take_out": ("handempty", "clear(block)", "in(block, bowl)"),
}


def actions() -> dict[str, Callable]:
    """The dev actions by name, in a fixed order."""
    return {f.__name__: f for f in (pick_up, put_down, stack, unstack, take_out)}


def reference_set() -> PreconditionSet:
    """The dev actions' hand-written preconditions (11 conditions)."""
    import inspect

    conditions = {}
    for name, fn in actions().items():
        params = tuple(inspect.signature(fn).parameters)
        conditions[name] = [parse_line(line, params)[0] for line in REFERENCE[name]]
    return PreconditionSet(conditions, "reference:dev")
