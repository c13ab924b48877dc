"""Planner prompts: plain-text files in the repository's `prompts/`, filled per request.

Prompts live in files so that they can be read, diffed and tuned without touching code.
Placeholders use `string.Template` syntax (`$name`), not `str.format`, because the prompts
hold Python code whose braces must stay literal; a literal dollar sign is written `$$`.

    planner_system.txt    $api, $examples                 (system message; $api is
                                                          `primitives.describe_api()`: the
                                                          primitives' own signatures and
                                                          docstrings)
    planner_examples.txt  none                            (few-shot codeplans)
    planner_task.txt      $instruction, $objects, $facts  (user message, first codeplan)
    planner_recovery.txt  $instruction, $objects, $facts, $attempt, $feedback, $previous

`prompts` is a package whose `.txt` files are package data, so the files are found the same
way in a source checkout, an editable install and a wheel.
"""

from __future__ import annotations

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


def build_messages(request: PlanRequest, directory: Path = PROMPTS_DIR) -> list[dict[str, str]]:
    """Chat messages for one planner call: the system prompt (rules, API, examples), then the
    task, or for a recovery attempt the feedback and the previous codeplan."""
    system = render("planner_system.txt", directory,
                    api="The API (the only functions a codeplan may call):\n\n"
                    + primitives.describe_api().strip(),
                    examples=load_prompt("planner_examples.txt", directory).strip())
    scene = {"instruction": request.instruction, "objects": ", ".join(request.objects) or "none",
             "facts": format_facts(request.facts)}
    if request.attempt == 0:
        user = render("planner_task.txt", directory, **scene)
    else:
        feedback = "\n".join(f"{i}. {f}" for i, f in enumerate(request.feedback, 1)) or "none"
        previous = request.previous[-1].strip() if request.previous else "# (none)"
        user = render("planner_recovery.txt", directory, **scene, attempt=request.attempt,
                      feedback=feedback, previous=previous)
    return [{"role": "system", "content": system.strip()},
            {"role": "user", "content": user.strip()}]
