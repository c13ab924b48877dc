"""The instruction corpus check: its file format, the seeds it picks, and the offline planner
on the corpora (a sample closed-loop by default; every line in the slow tests)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from runtime.eval.instruction_corpus import (
    CorpusLine,
    episode_for,
    evaluate,
    fill,
    load_corpus,
)
from runtime.planners.base import PlannerError, PlanRequest
from runtime.planners.offline import OfflinePlanner


def test_a_malformed_corpus_line_is_named(tmp_path):
    bad = tmp_path / "c.jsonl"
    bad.write_text('{"id": "a", "task": "t", "text": "x", "expect": "solve"}\n{"id": "b"}\n')
    with pytest.raises(ValueError, match=r"c.jsonl:2: not a corpus line"):
        load_corpus(str(bad))
    bad.write_text('{"id": "a", "task": "t", "text": "x", "expect": "maybe"}\n')
    with pytest.raises(ValueError, match="expect must be 'solve' or 'refuse'"):
        load_corpus(str(bad))
    with pytest.raises(ValueError, match="no corpus 'nope'"):
        load_corpus("nope")


def test_placeholders_fill_from_the_episode_and_lists_read_as_words():
    assert fill("the {adjective} flag: {flag_colors}", {"adjective": "French", "flag_colors":
                ["blue", "white", "red"]}) == "the French flag: blue, white and red"
    assert fill("stack on the {base}", {"base": None}) is None


def test_a_line_without_the_base_gets_an_episode_that_names_none():
    with_base = CorpusLine("a", "stack-blocks", "stack all the blocks on the {base}", "solve")
    without = CorpusLine("b", "stack-blocks", "stack all the blocks", "solve")
    import numpy as np

    from ravens_env.tasks import make_task

    def base(seed: int) -> str | None:
        task = make_task("stack-blocks")
        task.setup(np.random.default_rng([seed, 0]))
        return task.params["base"]

    seed, text = episode_for(with_base, 5000)
    assert text == f"stack all the blocks on the {base(seed)}" and base(seed)
    seed, text = episode_for(without, 5000)
    assert text == "stack all the blocks" and base(seed) is None


def _scene_request(line: CorpusLine, seed: int, text: str) -> PlanRequest:
    from ravens_env.env import TabletopEnv

    with TabletopEnv() as env:
        env.reset(line.task, seed)
        scene = env.scene(visibility=False)
    facts = []
    for o in scene.of_type("block"):
        under = scene.container_of(o.name) or scene.support_of(o.name)
        if under and under != "table":
            facts.append((o.name, "in" if under.endswith("bowl") else "on", under))
    return PlanRequest(text, [o.name for o in scene.objects], facts, initial_facts=facts)


def test_every_refuse_line_of_the_dev_corpus_is_refused():
    lines = [ln for ln in load_corpus("reasoning-corpus") if ln.expect == "refuse"]
    assert len(lines) >= 40
    planner = OfflinePlanner()
    for line in lines:
        seed, text = episode_for(line, 5000)
        with pytest.raises(PlannerError):
            planner.plan(_scene_request(line, seed, text))


def test_one_solve_line_per_task_is_solved_closed_loop(tmp_path):
    lines = load_corpus("reasoning-corpus")
    sample = list({ln.task: ln for ln in lines if ln.expect == "solve"}.values())
    assert len(sample) == 20  # every task of the suite and the paper's
    result = evaluate(sample, tmp_path)
    assert result["misreads"] == [], result["misreads"]
    assert result["overall"]["solved"] >= 18  # the rest refused, never misread


def test_eval_parser_prints_the_figures_as_json(tmp_path):
    out = subprocess.run([sys.executable, "-m", "runtime.cli", "eval", "parser", "--task",
                          "empty-the-bowl", "--out", str(tmp_path), "--json"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["overall"]["misread"] == 0 and summary["lines"] >= 8
    assert summary["tasks"]["empty-the-bowl"]["solve_ci95"][1] <= 1.0
    assert (tmp_path / "summary.json").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["reasoning-corpus", "reasoning-heldout"])
def test_no_corpus_line_is_misread(tmp_path, corpus):
    result = evaluate(load_corpus(corpus), tmp_path)
    assert result["misreads"] == [], [(r["id"], r["detail"]) for r in result["misreads"]]
