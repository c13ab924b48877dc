"""Planner prompts: plain-text files in the repository's `prompts/`, filled per request.

Prompts live in files so that they can be read, diffed and tuned without touching code.
Placeholders use `string.Template` syntax (`$name`), not `str.format`, because the prompts
hold Python code whose braces must stay literal; a literal dollar sign is written `$$`.

    planner_system.txt    $examples (optional $api: `primitives.describe_api()`, the
                          primitives' own signatures and docstrings, for a large model)
    planner_examples.txt  none        (few-shot codeplans)
    planner_task.txt      $instruction, $scene, $facts (optional $objects)  (first codeplan)
    planner_recovery.txt  the same, plus $feedback (what went wrong), after the scene

Why the scene is written as prose ("blocks: ...; bowls: ...", "Now: red block is in blue
bowl") and blocks on the table are left out: a 1.5B model copied the old `Facts: red block on
table` lines into a plan that stacked onto 'table', and the facts read like a few-shot example.
The system prompt is compact (about 600 tokens, see docs) so that it stays in the server's
prompt cache and a call on one CPU core takes seconds.

`prompts` is a package whose `.txt` files are package data, so the files are found the same
way in a source checkout, an editable install and a wheel.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from string import Template

import primitives
from runtime.planners.base import PlannerError, PlanRequest

PROMPTS_DIR = Path(str(resources.files("prompts")))


def load_prompt(name: str, directory: Path = PROMPTS_DIR) -> str:
    """The text of prompts/<name> (UTF-8); PlannerError naming the path when it is missing."""
    path = directory / name
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise PlannerError(f"cannot read the prompt file {path}: {e.strerror or e}") from None


def render(name: str, directory: Path = PROMPTS_DIR, **values: object) -> str:
    """prompts/<name> with its $placeholders filled; a missing value is a PlannerError."""
    try:
        return Template(load_prompt(name, directory)).substitute(
            {k: str(v) for k, v in values.items()})
    except (KeyError, ValueError) as e:
        raise PlannerError(f"prompt {name}: placeholder {e} has no value") from None


def format_facts(facts: list[tuple[str, str, str]]) -> str:
    """'blue block in blue bowl; green block on red block', or 'none'."""
    return "; ".join(" ".join(str(x) for x in f) for f in facts) or "none"


MEMORY_FORMS = ("swap", "restore", "reverse", "relation", "ordinal", "count", "empty")


def _memory_lines(request: PlanRequest) -> str:
    """For the forms that refer to the start or to what was done ("swap", "put back", "the
    leftmost block" once it moved): the scene at the start and the puts so far, as two more
    lines after "Now:". Other forms get nothing more, so their recovery prompt stays as it
    was (the recorded replies still match it)."""
    from runtime.planners.intent import read_intent

    if read_intent(request.instruction).family not in MEMORY_FORMS:
        return ""
    start = format_now(request.initial_facts or request.facts)
    return f"\nAt the start: {start}\nDone so far: {format_history(request.history)}"


def format_history(history: list[tuple[str, str]]) -> str:
    """The puts executed so far, in order: what "first ..., then ..." instructions need."""
    if not history:
        return "nothing yet."
    return "; ".join(f"put_first_on_second({p!r}, {q!r})" for p, q in history) + "."


def format_scene(objects: list[str]) -> str:
    """"blocks 'red block', 'blue block'; bowls 'blue bowl'" (plus other objects). Why quoted
    names: the examples loop over a list, and a small model copies a list reliably where it
    dropped the fourth of four hand-written lines; why not a Python list: the model then took
    `blocks` for a variable that already exists and never defined it."""
    blocks = [o for o in objects if o.endswith("block")]
    bowls = [o for o in objects if o.endswith("bowl")]
    other = [o for o in objects if o not in blocks and o not in bowls]
    groups = [("blocks", blocks), ("bowls", bowls)] + ([("other", other)] if other else [])
    return "; ".join(f"{name} " + (", ".join(repr(o) for o in items) or "none")
                     for name, items in groups)


def format_now(facts: list[tuple[str, str, str]]) -> str:
    """'red block is in blue bowl; green block is on red block.' Blocks on the table are left
    out (see the module docstring); 'no block is in a bowl or on a block.' when none is."""
    moved = [f"{s} is {r} {o}" for s, r, o in facts if o != "table"]
    return "; ".join(moved) + "." if moved else "no block is in a bowl or on a block."


_STOPWORDS = frozenset("a an the in on of to into onto each every all its it is put place "
                       "and with that their them so".split())
_COLORS = frozenset("red green blue yellow brown gray grey cyan orange purple pink white "
                    "black".split())


def _stem(word: str) -> str:
    for suffix in ("ing", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _words(text: str) -> set[str]:
    """Content words, crudely stemmed; a colour name becomes '<color>' (the example's colours
    are not the scene's, but naming colours at all marks a put-this-in-that instruction)."""
    words = {w.strip(".,;:!?'\"") for w in text.lower().replace("-", " ").split()} - _STOPWORDS
    return {"<color>" if w in _COLORS else _stem(w) for w in words if w}


def closest_example(instruction: str, examples: str, objects: list[str] | None = None,
                    facts: list[tuple[str, str, str]] | None = None) -> str:
    """The few-shot example (of planner_examples.txt, split at its "Example." lines) that reads
    as the same kind of task (`intent.read_intent`: family, colour polarity, a named base, a
    named object missing from the scene) and, among those, shares the most words with
    `instruction`, each word weighted by 1 / the number of examples that have it; the first on
    a tie. When no example is of the same kind, all compete on shared words. Among those of
    the same kind, an example whose scene is already disturbed ("Now:" lists blocks in bowls or
    on blocks) is for a scene that is disturbed too (`facts`), and the other way round.

    Why one example, chosen per request, in the user message: with several examples in the
    system prompt a 1.5B model wrote the different-colour loop for "matching colors" and the
    other way round; one close example it copies faithfully, so choosing the right one matters
    most. Why the kind first: shared words took "bowls that do not match their colors" for the
    matching example. The system prompt stays the same for every request, so the server's
    prompt cache still holds it.
    """
    parts = [p.strip() for p in examples.split("Example.") if p.strip()]
    if not parts:
        return ""
    heads = [_example_fields(p) for p in parts]
    keys = [_words(head) for head, _scene in heads]
    df = {w: sum(w in k for k in keys) for k in keys for w in k}
    want = _words(instruction)
    kind = _kind(instruction, objects)
    kinds = [("set", None, False, False) if head == SET_EXAMPLE else _kind(head, scene)
             for head, scene in heads]
    same_kind = [i for i, k in enumerate(kinds) if k == kind]
    disturbed = any(o != "table" for _s, _r, o in facts or [])
    same_state = [i for i in same_kind if _disturbed(parts[i]) == disturbed]
    if disturbed and not same_state:  # a recovery example of the family, base named or not
        same_state = [i for i, k in enumerate(kinds) if _disturbed(parts[i])
                      and k[:2] == kind[:2]]
    candidates = (same_state or same_kind) if kind[0] is not None and same_kind \
        else range(len(parts))
    scores = {i: sum(1 / df[w] for w in want & keys[i]) for i in candidates}
    best = max(scores, key=lambda i: (scores[i], -i))
    return "Example.\n" + parts[best]


def _disturbed(example: str) -> bool:
    """Whether an example's scene has blocks in bowls or on blocks already (a recovery)."""
    now = next((ln for ln in example.splitlines() if ln.startswith("Now:")), "Now: no block")
    return not now.removeprefix("Now:").strip().startswith("no block")


def _example_fields(example: str) -> tuple[str, list[str]]:
    """(instruction, scene object names) of one few-shot example."""
    lines = example.splitlines()
    head = next((ln for ln in lines if ln.startswith("Instruction:")), "")
    scene = next((ln for ln in lines if ln.startswith("Scene:")), "")
    return head.removeprefix("Instruction:").strip(), re.findall(r"'([^']+)'", scene)


# Families that share another's example. A colour set named by a word (warm, cool, primary)
# keeps the blocks of a set of colours, one per bowl. Without an example of that form shared
# words drew the matching-bowls one, whose loop the 1.5B model copied
# (`block.replace('block', 'bowl')`: 0/20 primary, 1/20 warm, test seeds); with the flag's
# example (`colors = [the flag's]`) it kept the flag's list or wrote the scene's colours under
# a "# the warm colors" comment (session 34, dev seeds). Since session 34 they draw an example
# of their own form in a set no task asks for (`SET_EXAMPLE`: neutral colours), whose list is
# named after its word (`neutral = [...]`), so that `warm = [` is what the model continues.
EXAMPLE_FAMILY = {"primary": "set", "temperature": "set"}
SET_EXAMPLE = "put the neutral colored blocks in bowls"  # no reader knows "neutral": kind "set"


def _kind(instruction: str, objects: list[str] | None) -> tuple:
    """(family, polarity, names a base, names an object the scene lacks) of an instruction;
    the family as `EXAMPLE_FAMILY` maps it."""
    from runtime.planners.intent import read_intent

    intent = read_intent(instruction)
    named = [n for n in (intent.pick, intent.place, intent.base) if n]
    missing = objects is not None and any(n not in objects for n in named)
    family = EXAMPLE_FAMILY.get(intent.family, intent.family)
    return family, intent.polarity, intent.base is not None, missing


def build_messages(request: PlanRequest, directory: Path = PROMPTS_DIR) -> list[dict[str, str]]:
    """Chat messages for one planner call: the system prompt (rules, API), then the task with
    its closest example; for a recovery attempt the same, with the scene as it is now and a
    note of what went wrong (the latest failure, earlier ones after it).

    Why the failed codeplan is not shown again: shown its own broken code, the 1.5B model
    edited it further and further from the example (dev seed 4 of the different-colour task:
    15 calls, each reply a variation of the one before, none finished); asked afresh with the
    note, it writes from the example again. Why the note comes last: the user message then
    starts like the first one, so the server's prompt cache reuses it."""
    examples = load_prompt("planner_examples.txt", directory).strip()
    system = render("planner_system.txt", directory,
                    api="The API (the only functions a codeplan may call):\n\n"
                    + primitives.describe_api().strip(), examples=examples)
    scene = {"instruction": request.instruction, "objects": ", ".join(request.objects) or "none",
             "scene": format_scene(request.objects), "facts": format_now(request.facts),
             "examples": closest_example(request.instruction, examples, request.objects,
                                         request.facts)}
    if request.attempt == 0 or not request.feedback:
        user = render("planner_task.txt", directory, **scene)
    else:
        feedback = request.feedback[-1]
        if len(request.feedback) > 1:
            feedback += " (before that: " + "; ".join(request.feedback[:-1]) + ")"
        user = render("planner_recovery.txt", directory, **scene, attempt=request.attempt,
                      feedback=feedback, memory=_memory_lines(request))
    return [{"role": "system", "content": system.strip()},
            {"role": "user", "content": user.strip()}]
