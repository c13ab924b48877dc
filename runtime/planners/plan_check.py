"""A dry run of a codeplan against the perceived scene, before the robot moves anything.

Why: a 1.5B model writes code that runs but does the wrong thing (a block on a block where the
instruction wants bowls; its own colour's bowl for "a different color"; one block of four left
out), and the robot then spends minutes before the mistake shows, if it ever does (a false
"done" ends the episode). Running the codeplan in the sandbox with primitives that only record
the moves, and checking the moves against the scene and the instruction's plain words, finds
those mistakes in a fraction of a second; the planner then asks again, naming the mistake.
The checks only reject what is wrong under any reading of the instruction; when the
instruction's words are mixed ("do not match"), the colour check stays out of it.
"""

from __future__ import annotations

import re
from itertools import pairwise

from runtime.planners.base import PlanRequest

_SAME = {"same", "matching", "match", "matches", "matched"}
_OTHER = {"different", "other", "another", "mismatched", "mismatching", "not", "no", "never"}
_ALL = {"all", "every", "each", "blocks", "cubes"}
_TOWER = {"stack", "tower", "pile"}


class _Done(BaseException):
    """tell_planner ended the dry run (as the real one ends the codeplan)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def dry_run(source: str, request: PlanRequest) -> tuple[list[tuple[str, str]], str | None]:
    """(moves, tell_planner message or None) of the codeplan on the perceived scene; reasoning
    calls are answered from the perceived facts. Raises nothing: a codeplan that fails here
    gives the moves made so far."""
    from runtime.sandbox import Sandbox

    moves: list[tuple[str, str]] = []
    facts = list(request.facts)

    def related(relation: str, obj: str) -> str | None:
        if relation == "below":
            return next((o for s, _r, o in facts if s == obj), "table")
        return next((s for s, r, o in facts if o == obj and r in (relation, "in", "on")), None)

    def tell(message: str) -> None:
        raise _Done(str(message))

    api = {"control_actions": {"put_first_on_second": lambda a, b: moves.append((a, b))},
           "plan_actions": {"get_object_names": lambda: list(request.objects),
                            "tell_planner": tell},
           "reasoning_actions": {"find_object_related_to_obj": related,
                                 "ask": lambda q: "unknown", "is_true": lambda q: False}}
    message = None
    try:
        with Sandbox(api) as sandbox:
            sandbox.run(source)
    except _Done as done:
        message = done.message
    return moves, message


def check_plan(source: str, request: PlanRequest) -> str | None:
    """The first mistake of the codeplan's moves, as feedback for the model; None if none."""
    moves, message = dry_run(source, request)
    if message is not None and not message.lower().startswith("done"):
        return None  # it reports a problem: the runner passes that on
    return (_name_problem(moves, request) or _bowl_problem(moves, request)
            or _color_problem(moves, request) or _tower_problem(moves, request)
            or _coverage_problem(moves, request))


def _color(name: str) -> str:
    return name.split()[0]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def _name_problem(moves: list[tuple[str, str]], request: PlanRequest) -> str | None:
    objects = set(request.objects)
    for pick, place in moves:
        if pick not in objects or not str(pick).endswith("block"):
            return f"it picks {pick!r}, which is not a block in the scene"
        parts = [p.strip() for p in str(place).split(" and ")]
        if any(p not in objects for p in parts):
            return f"it puts the {pick} on {place!r}, which is not an object in the scene"
        if pick in parts:
            return f"it puts the {pick} on itself"
    return None


def _bowl_problem(moves: list[tuple[str, str]], request: PlanRequest) -> str | None:
    """A bowl holds one block (a block moved out frees its bowl; putting a block back in its
    own bowl is no problem); an instruction about bowls needs a move into a bowl."""
    occupant = {o: s for s, r, o in request.facts if r == "in"}
    for pick, place in moves:
        occupant = {bowl: block for bowl, block in occupant.items() if block != pick}
        if str(place).endswith("bowl"):
            if place in occupant:
                return (f"it puts the {pick} in the {place}, which already holds the "
                        f"{occupant[place]}")
            occupant[place] = pick
    if "bowl" in request.instruction or "bowls" in request.instruction:
        if moves and not any(str(p).endswith("bowl") for _b, p in moves):
            return ("it puts blocks on blocks, but the instruction asks for bowls: "
                    "put_first_on_second(block, '<color> bowl')")
    return None


def _color_problem(moves: list[tuple[str, str]], request: PlanRequest) -> str | None:
    words = _words(request.instruction)
    same, other = bool(words & _SAME), bool(words & _OTHER)
    if same == other:  # neither, or mixed words ("do not match"): no colour check
        return None
    for pick, place in moves:
        if not str(place).endswith("bowl"):
            continue
        if same and _color(pick) != _color(place):
            return (f"it puts the {pick} in the {place}, but the instruction wants the bowl "
                    f"of the block's own color (the {_color(pick)} bowl)")
        if other and _color(pick) == _color(place):
            return (f"it puts the {pick} in the {place}, but the instruction wants a bowl of a "
                    f"different color")
    return None


def _tower_problem(moves: list[tuple[str, str]], request: PlanRequest) -> str | None:
    """One tower: each block after the first goes on the block moved just before it."""
    if not _words(request.instruction) & _TOWER or "pyramid" in request.instruction:
        return None
    on_blocks = [(p, q) for p, q in moves if str(q).endswith("block")]
    for (prev, _), (pick, place) in pairwise(on_blocks):
        if place != prev:
            return (f"it puts the {pick} on the {place}, not on the {prev} it moved just "
                    f"before, so it builds more than one tower")
    return None


def _coverage_problem(moves: list[tuple[str, str]], request: PlanRequest) -> str | None:
    """An instruction about all the blocks must move each one not already placed."""
    if not moves or not _words(request.instruction) & _ALL:
        return None
    placed = {s for s, _r, o in request.facts if o != "table"}
    touched = {b for move in moves for b in move} | placed
    left = [o for o in request.objects if o.endswith("block") and o not in touched]
    if left:
        return f"it leaves the {left[0]} where it is, but the instruction is about every block"
    return None
