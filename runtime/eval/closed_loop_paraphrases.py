"""Paraphrase sets for the LLM planner: instructions in other words than the tasks' own.

Why: a planner tuned on the canonical instructions can pass by pattern-matching them. The sets
live in `prompts/paraphrases/`: `dev.jsonl`, `dev-a.jsonl`, `dev-b.jsonl` and `dev-c.jsonl`
(prompt and decoding choices were made on them, on dev seeds; dev-a and dev-b were held out
until their failures were read) and `heldout-d.jsonl` (written by a helper who saw only the
task families, committed unread before the tuning it measures, never used for a choice;
reported figures use it, on test seeds). See docs/LLM_PLANNER.md.
A line is {"task", "instruction"} and, for stack-blocks, "instruction_nobase" for scenes
whose canonical instruction names no base. Placeholders come from the seed's canonical
instruction: {pick} and {place} (the colours of put-block-in-bowl), {base} (stack-blocks'
named base block).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from prompts import __file__ as _prompts_init

PARAPHRASE_DIR = Path(_prompts_init).parent / "paraphrases"
_PICK_PLACE = re.compile(r"put the (\w+) block in the (\w+) bowl")
_BASE = re.compile(r"on the (\w+ block)$")


@dataclass(frozen=True)
class Paraphrase:
    """One instruction template for one task."""

    task: str
    instruction: str
    instruction_nobase: str | None = None

    def fill(self, canonical: str) -> str:
        """The instruction for a scene whose canonical instruction is `canonical`."""
        values: dict[str, str] = {}
        m = _PICK_PLACE.search(canonical)
        if m:
            values.update(pick=m.group(1), place=m.group(2))
        m = _BASE.search(canonical)
        if m:
            values["base"] = m.group(1)
        template = self.instruction
        if "{base}" in template and "base" not in values:
            template = self.instruction_nobase or template
        try:
            return template.format(**values)
        except KeyError as e:
            raise ValueError(f"paraphrase {self.instruction!r} needs {e} but the scene's "
                             f"instruction {canonical!r} has none") from None


def load_paraphrases(name: str) -> list[Paraphrase]:
    """The set `name` (one of `paraphrase_sets()`, or a path to a .jsonl file)."""
    path = Path(name) if name.endswith(".jsonl") else PARAPHRASE_DIR / f"{name}.jsonl"
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            out.append(Paraphrase(d["task"], d["instruction"], d.get("instruction_nobase")))
    return out


def paraphrase_sets() -> list[str]:
    """The names of the sets in prompts/paraphrases/."""
    return sorted(p.stem for p in PARAPHRASE_DIR.glob("*.jsonl"))
