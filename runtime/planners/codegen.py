"""Plan -> codeplan source, written the way the LLM planner is asked to write one.

The offline codeplan is the baseline an LLM codeplan is compared with, and it runs through the
same sandbox, controller and trace, so it uses the same API in the same style: the three
imports, a comment with the goal, a check that the objects it needs are visible (asking for a
new plan when one is not), the calls in order, and tell_planner('done') at the end. Every
string it writes is a Python literal made with repr(), so no object name or feedback text can
change the code; free text only ever lands in comments, with line breaks and control
characters replaced.
"""

from __future__ import annotations

import itertools
import re
import textwrap

from runtime.planners.base import PlanRequest
from runtime.planners.goal import Goal
from runtime.planners.pddl import SUPPORTS, Solution, Step, tower_from
from runtime.planners.scene_state import STAND, TABLE, SceneState, kind_of

IMPORTS = (
    "from control_actions import put_first_on_second",
    "from plan_actions import get_object_names, tell_planner",
    "from reasoning_actions import find_object_related_to_obj, ask, is_true",
)
MAX_FEEDBACK_CHARS = 300  # per feedback item: a traceback in the feedback stays readable
COMMENT_WIDTH = 96  # characters per comment line
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")
ROWS = ("bottom row: blocks on the stand", "middle row: each block on two blocks",
        "top: one block on the middle row")
ROW_OF_SLOT = (0, 0, 0, 1, 1, 2)


def write_codeplan(request: PlanRequest, goal: Goal, state: SceneState,
                   solution: Solution) -> str:
    """The codeplan source for `solution` (valid Python; imports only the three modules)."""
    lines = [*IMPORTS, "", *_header(request, goal, state, solution)]
    if solution.steps:
        lines += _visibility_check(solution.steps)
        lines += _calls(solution.steps, solution)
        if goal.check_end:
            lines += _end_check(goal)
    else:
        lines += _recheck(goal, state, solution)
    lines.append("tell_planner('done')")
    return "\n".join(lines) + "\n"


def write_reference_codeplan(request: PlanRequest, goal: Goal, state: SceneState,
                             candidates: list[str], plans: dict[str, Solution]) -> str:
    """A codeplan that first finds the block the instruction names by where it is — asking
    about the first camera image, so a recovery codeplan finds the same block after it has
    moved — then runs the plan made for that block."""
    ref = goal.reference
    lines = [*IMPORTS, "", *comment(f"Instruction: {goal.instruction}"),
             *comment(f"Goal: {goal.summary()}"),
             *comment("Which block is it? Ask about the scene as it was at the start (the "
                      "block may have moved since).")]
    lines += _py_list("blocks = ", candidates, "")
    lines += _find_referred(ref)
    lines += ["if len(found) != 1:",
              f"    tell_planner('expected one block, {ref.words()}; found ' + str(found))",
              "block = found[0]"]
    for i, (block, solution) in enumerate(plans.items()):
        lines.append(f"{'if' if i == 0 else 'elif'} block == {block!r}:")
        body = _calls(solution.steps, solution) if solution.steps else [
            f"if not is_true({_question(block, goal.place)!r}):",
            f"    tell_planner('the {block} is not in the {goal.place} yet')"]
        lines += ["    " + line for line in body]
    lines += ["else:", "    tell_planner('no plan puts the ' + block + ' there')",
              "tell_planner('done')"]
    return "\n".join(lines) + "\n"


def _find_referred(ref) -> list[str]:
    if not ref.ordinal:
        return ["found = []", "for name in blocks:",
                f"    if is_true('is the ' + name + ' {ref.relation} the {ref.anchor}?', "
                "at_start=True):",
                "        found.append(name)"]
    side = "left of" if ref.ordinal.endswith("left") or ref.ordinal == "leftmost" else "right of"
    rank = 0 if ref.ordinal.endswith("most") else 1
    return [*comment(f"the {ref.ordinal} block has exactly {rank} other block(s) {side} it"),
            "found = []", "for name in blocks:", "    count = 0",
            "    for other in blocks:",
            f"        if other != name and is_true('is the ' + other + ' {side} the ' + name "
            "+ '?', at_start=True):",
            "            count = count + 1",
            f"    if count == {rank}:", "        found.append(name)"]


def _question(block: str, place: str) -> str:
    return f"is the {block} {_prep(place)} the {place}?"


def _end_check(goal: Goal) -> list[str]:
    """Before 'done', ask once more for every goal relation: a block someone else moved
    meanwhile (nobody's claim, so no re-validation sees it) then asks for a new plan."""
    questions = [_question(b, places[0]) for b, places in goal.accept if len(places) == 1]
    lines = comment("Look again before reporting done: a block may have been moved by "
                    "someone else meanwhile.")
    return [*lines, *_py_list("for question in ", questions, ":"),
            "    if not is_true(question):",
            "        tell_planner('not as asked yet: ' + question)"]


def comment(text: str, prefix: str = "# ", limit: int | None = None) -> list[str]:
    """`text` as wrapped comment lines (cut at `limit` characters); control characters and
    line breaks are replaced, so nothing in `text` can end the comment and become code."""
    clean = _UNPRINTABLE.sub(" ", str(text)).strip()
    if limit is not None and len(clean) > limit:
        clean = clean[:limit] + " ..."
    lines = textwrap.wrap(clean, COMMENT_WIDTH - len(prefix), break_on_hyphens=False) or [""]
    return [f"{prefix}{line}".rstrip() for line in lines]


def _header(request: PlanRequest, goal: Goal, state: SceneState,
            solution: Solution) -> list[str]:
    lines = comment(f"Instruction: {goal.instruction}")
    lines += comment(f"Goal: {goal.summary()}")
    if request.attempt > 0:
        lines += comment(f"Recovery codeplan (attempt {request.attempt + 1}); "
                         "feedback on the earlier codeplans:")
        for i, item in enumerate(request.feedback, 1):
            lines += comment(f"{i}. {item}", "#   ", MAX_FEEDBACK_CHARS)
        lines += comment("Planned from the scene as perceived now: it does only what is left.")
    lines += [line for note in _notes(goal, state, solution) for line in comment(note)]
    n = len(solution.steps)
    lines += comment(f"Plan: {n} action{'s' * (n != 1)} (Fast Downward, shortest plan).")
    return lines


def _notes(goal: Goal, state: SceneState, solution: Solution) -> list[str]:
    notes = []
    done = _already_done(goal, state, solution)
    if done:
        notes.append(f"Already done (as perceived): {', '.join(done)}.")
    if goal.unmatched:
        notes.append(f"No bowl has the color of: {', '.join(goal.unmatched)}; left alone.")
    if goal.family == "stack-all" and not goal.base and solution.base:
        notes.append(f"The tower is built on the {solution.base}, the bottom of the tallest "
                     "tower already on the table.")
    if state.ignored:
        facts = "; ".join(" ".join(f) for f in state.ignored)
        notes.append(f"Ignored facts about objects not in the scene: {facts}.")
    return notes


def _already_done(goal: Goal, state: SceneState, solution: Solution) -> list[str]:
    return [f"{b} {prep} {' and '.join(places)}"
            for b, prep, places in _done_relations(goal, state, solution)]


def _done_relations(goal: Goal, state: SceneState, solution: Solution
                    ) -> list[tuple[str, str, tuple[str, ...]]]:
    """(block, 'in' | 'on', places) for the goal relations that hold as perceived."""
    moved = {s.pick for s in solution.steps}
    if goal.accept:
        return [(b, _prep(state.resting_on(b)), (state.resting_on(b),))
                for b, places in goal.accept
                if b not in moved and state.resting_on(b) in places
                and state.resting_on(b) != TABLE]
    if goal.family in ("matching", "put"):
        return [(b, _prep(p), (p,)) for b, p in goal.pairs
                if b not in moved and state.resting_on(b) == p]
    if goal.family == "mismatched":
        return [(b, "in", (state.resting_on(b),)) for b in goal.blocks if b not in moved]
    if goal.family == "stack-all" and solution.base:
        tower = tower_from(state, solution.base)
        return [(a, "on", (b,)) for b, a in itertools.pairwise(tower)]
    slots = solution.slots or {}
    return [(block, "on", tuple(slots[i] for i in SUPPORTS.get(slot, ())) or (STAND,))
            for slot, block in sorted(slots.items())]


def _prep(place: str) -> str:
    return "in" if kind_of(place) == "bowl" else "on"


def _visibility_check(steps: list[Step]) -> list[str]:
    """The LLM prompt asks for tell_planner when an object is missing; do the same."""
    needed = []
    for step in steps:
        needed += [step.pick, *step.place.split(" and ")]
    return ["objects = get_object_names()",
            *_py_list("for name in ", list(dict.fromkeys(needed)), ":"),
            "    if name not in objects:",
            "        tell_planner('I cannot see the ' + name)",
            ""]


def _calls(steps: list[Step], solution: Solution) -> list[str]:
    lines: list[str] = []
    guessed = not solution.row_known
    row = None
    for step in steps:
        if step.slot in SUPPORTS and step.slot != 5 and guessed:
            lines += _find_middle(_bottom_row(steps, solution), solution.slots or {})
            guessed = False
        if step.slot is not None and ROW_OF_SLOT[step.slot] != row:
            row = ROW_OF_SLOT[step.slot]
            lines += comment(ROWS[row])
        if step.room:
            lines += comment(f"make room: the {step.pick} goes {_prep(step.place)} the "
                             f"{step.place} for now")
        lines.append(f"put_first_on_second({step.pick!r}, {_place(step, solution)})")
    return lines


def _place(step: Step, solution: Solution) -> str:
    """The place argument as Python: a literal, or for a middle-row slot over a bottom row
    ordered at run time, an expression over `middle` and `ends` (see _find_middle)."""
    if solution.row_known or step.slot not in (3, 4):
        return repr(step.place)
    return "ends[0] + ' and ' + middle" if step.slot == 3 else "middle + ' and ' + ends[1]"


def _bottom_row(steps: list[Step], solution: Solution) -> list[str]:
    slots = dict(solution.slots or {})
    slots.update({s.slot: s.pick for s in steps if s.slot is not None and s.slot < 3})
    return [slots[i] for i in range(3)]


def _find_middle(row: list[str], perceived: dict[int, str]) -> list[str]:
    """Code that finds the bottom row's middle block by asking, once the row is complete.

    Perception gave the blocks on the stand but not their order, and "on the stand" fills
    whichever slot is free, so the plan cannot name the two blocks a middle-row block straddles
    until it has looked. The middle block has exactly one other block left of it (or in front
    of it, when the row runs away from the camera) — trusted only when the answers order the
    whole row (0, 1 and 2 blocks left of the three). Why: a row running nearly away from the
    camera has neighbours less than the relations' 1 cm margin apart sideways, so "left of"
    holds for the two ends only and "exactly one" picks an end as the middle; on dev
    pyramids 5300-5309 places on two blocks were named on blocks 10-11 cm apart (the two
    ends), which that explains (tests/runtime/test_offline_planner.py). Ordered by neither
    relation, the middle stays the second block put on the stand (the slot next to the
    first: the grounded place fills it so, and the learned actor mostly does).
    """
    lines = comment("Which block is in the middle of the bottom row? The perceived scene did "
                    "not say, so ask: the middle one has exactly one other block left of it "
                    "(in front of it, if the row runs away from the camera), when the answers "
                    "order the whole row.")
    lines += [*_py_list("row = ", row, ""),
              "middle = row[1]",
              "for relation in ['left of', 'in front of']:",
              "    counts = []",
              "    for block in row:",
              "        count = 0",
              "        for other in row:",
              "            question = 'is the ' + other + ' ' + relation + ' the ' + block + '?'",
              "            if other != block and is_true(question):",
              "                count = count + 1",
              "        counts.append(count)",
              "    if sorted(counts) == [0, 1, 2]:",
              "        middle = row[counts.index(1)]",
              "        break",
              "ends = [block for block in row if block != middle]"]
    if 3 in perceived:  # a middle-row block already stands on two of them: keep its side first
        pair = [perceived[0], perceived[1]]
        lines += [f"if ends[0] not in {pair!r}:", "    ends = [ends[1], ends[0]]"]
    return lines


def _recheck(goal: Goal, state: SceneState, solution: Solution) -> list[str]:
    """Nothing to do as perceived: look once more before reporting done, so that a wrong
    perception costs a replan rather than a false 'done'."""
    questions = [f"is the {block} {prep} the {place}?"
                 for block, prep, places in _done_relations(goal, state, solution)
                 for place in places]
    lines = comment("Nothing left to do as perceived; check once more before reporting done.")
    lines += [*_py_list("for question in ", questions, ":"),
              "    if not is_true(question):",
              "        tell_planner('not as perceived: ' + question)"]
    return lines


def _py_list(head: str, items: list[str], tail: str) -> list[str]:
    """`head[items]tail` as a list literal of repr()'d strings, wrapped at COMMENT_WIDTH with
    continuation lines aligned under the first item."""
    indent = " " * (len(head) + 1)
    lines, current = [], head + "["
    for i, item in enumerate(items):
        piece = repr(item) + (", " if i < len(items) - 1 else "")
        if len(current) + len(piece.rstrip()) > COMMENT_WIDTH and current.strip() != head + "[":
            lines.append(current.rstrip())
            current = indent
        current += piece
    return [*lines, current + "]" + tail]
