"""The offline planner on an instruction corpus: does it solve each instruction or refuse it,
and does it ever misread one?

Why a closed-loop check rather than comparing parses: "read right" means the robot ends with
what the words asked for. Each corpus line is a task, a wording with the task's parameters as
placeholders, and what a careful reader does with it ("solve" or "refuse"). Every line runs one
episode of its task with the oracle actor and oracle reasoner and no situations (so only the
reading can fail), and is scored:

    solved    the task's ground-truth success
    refused   the planner refused the first codeplan (`codeplan run` exits 2, naming the words)
    misread   anything else: it acted and did not succeed, or it acted on a "refuse" line

The corpus files live in `prompts/paraphrases/`: `reasoning-corpus.jsonl` is the DEV corpus
(the grammar was written against it); `reasoning-heldout.jsonl` is held out (never read while
the grammar was written) and is reported on separately.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from runtime.eval.closed_loop_paraphrases import PARAPHRASE_DIR

DEV_SEED_START = 5000  # corpus episodes: dev seeds, apart from the test seeds (1000+)
MAX_SEED_SEARCH = 200  # seeds tried for a line whose placeholders a seed must provide
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class CorpusLine:
    """One instruction template: `expect` is "solve" or "refuse"."""

    id: str
    task: str
    text: str
    expect: str
    why: str = ""


def load_corpus(name: str) -> list[CorpusLine]:
    """A corpus by name (`reasoning-corpus`, `reasoning-heldout`) or .jsonl path; ValueError
    naming the line for a malformed one."""
    path = Path(name) if name.endswith(".jsonl") else PARAPHRASE_DIR / f"{name}.jsonl"
    if not path.is_file():
        raise ValueError(f"no corpus {name!r} (looked for {path})")
    out = []
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            d = json.loads(raw)
            line = CorpusLine(d["id"], d["task"], d["text"], d["expect"], d.get("why", ""))
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise ValueError(f"{path}:{n}: not a corpus line ({e})") from None
        if line.expect not in ("solve", "refuse"):
            raise ValueError(f"{path}:{n}: expect must be 'solve' or 'refuse', got "
                             f"{line.expect!r}")
        out.append(line)
    return out


def fill(text: str, params: dict) -> str | None:
    """`text` with `{name}` replaced by the episode's values (a list as "a, b and c");
    None when the episode lacks a value the text needs."""
    values = {}
    for name in _PLACEHOLDER.findall(text):
        value = params.get(name)
        if value is None:
            return None
        if isinstance(value, (list, tuple)):
            value = (", ".join(value[:-1]) + " and " + value[-1]) if len(value) > 1 else value[0]
        values[name] = str(value)
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], text)


def episode_for(line: CorpusLine, first_seed: int) -> tuple[int, str]:
    """The first seed from `first_seed` whose episode gives every value the text needs (and,
    for a parameter some episodes leave empty, such as stack-blocks' base, gives it exactly
    when the text uses it), with the filled instruction."""
    from ravens_env.tasks import make_task

    for seed in range(first_seed, first_seed + MAX_SEED_SEARCH):
        task = make_task(line.task)
        task.setup(np.random.default_rng([seed, 0]))  # the draw env.reset makes
        params = task.params
        optional = [k for k, v in params.items() if v is None]
        if any(f"{{{k}}}" in line.text for k in optional):
            continue
        if "base" in params and params["base"] is not None and "{base}" not in line.text:
            continue
        text = fill(line.text, params)
        if text is not None:
            return seed, text
    raise ValueError(f"corpus line {line.id}: no seed in {first_seed}.."
                     f"{first_seed + MAX_SEED_SEARCH - 1} gives the values {line.text!r} needs")


def run_line(line: CorpusLine, seed: int, text: str, runs_dir: Path) -> dict:
    """One episode of the line; {'id', 'task', 'seed', 'instruction', 'expect', 'outcome',
    'detail'} with outcome solved | refused | misread."""
    from runtime.run_config import RunConfig, RunError
    from runtime.runner import run_episode

    config = RunConfig(instruction=text, task=line.task, seed=seed, planner="offline",
                       actor="oracle", reasoner="oracle", situations="none",
                       runs_dir=runs_dir, report=False)
    row = {"id": line.id, "task": line.task, "seed": seed, "instruction": text,
           "expect": line.expect}
    try:
        result = run_episode(config)
    except RunError as e:
        return {**row, "outcome": "refused", "detail": str(e)}
    if result.success and line.expect == "solve":
        return {**row, "outcome": "solved", "detail": ""}
    detail = ("acted on a line that should be refused" if result.success
              else result.failure_reason or "ended without the task done")
    return {**row, "outcome": "misread", "detail": detail}


def evaluate(lines: list[CorpusLine], runs_dir: Path, first_seed: int = DEV_SEED_START,
             progress=None) -> dict:
    """Every line once; the rows and a summary per task and overall (with Wilson 95%
    intervals for the solve rate of the "solve" lines)."""
    from common.stats import wilson_interval

    rows = []
    for i, line in enumerate(lines):
        seed, text = episode_for(line, first_seed + 7 * i)
        rows.append(run_line(line, seed, text, runs_dir))
        if progress:
            progress(rows[-1])
    summary = {}
    for task in dict.fromkeys(r["task"] for r in rows):
        summary[task] = _counts([r for r in rows if r["task"] == task], wilson_interval)
    return {"lines": len(rows), "overall": _counts(rows, wilson_interval), "tasks": summary,
            "misreads": [r for r in rows if r["outcome"] == "misread"], "rows": rows}


def _counts(rows: list[dict], wilson) -> dict:
    solve = [r for r in rows if r["expect"] == "solve"]
    solved = sum(r["outcome"] == "solved" for r in solve)
    return {"solve_lines": len(solve), "solved": solved,
            "solve_rate": round(solved / len(solve), 4) if solve else None,
            "solve_ci95": [round(x, 4) for x in wilson(solved, len(solve))] if solve else None,
            "refuse_lines": len(rows) - len(solve),
            "refused": sum(r["outcome"] == "refused" for r in rows),
            "misread": sum(r["outcome"] == "misread" for r in rows)}
