"""Choosing where a reasoner's answers become *unsure*, on dev scenes (issue 22).

Why measured and not assumed: a reasoner's score need not be a per-answer confidence (the
shipped detector-based reasoner scores every answer of an image with the lowest detection
score in it, often near 0.2 while its answers are right), so a fixed cut such as 0.5 made
most answers unsure on dev seeds, and unsure effects taken as achieved became false "done".

    rows = collect("default", ["put-block-in-bowl"], episodes=20, seed_start=0)
    choose(rows)  # the threshold, with the accuracy table it was chosen from

The dev scenes: the oracle actor runs each task under `dkprompt-grasp` failures; before and
after every action the reasoner is asked the action's vision predicates (the questions the
symbolic modes ask) about the front image, and the oracle reasoner's answer on the same
scene is the label. Seeds 0.. are dev seeds: the closed-loop tables use 1000.. and 3000...
"""

from __future__ import annotations

from dataclasses import dataclass

from runtime.monitors.predicates import VISION, effects, preconditions

GRID = tuple(round(0.05 * k, 2) for k in range(20))  # candidate thresholds 0.0 .. 0.95


@dataclass(frozen=True)
class Row:
    question: str
    answer: str
    label: str
    score: float

    @property
    def right(self) -> bool:
        return self.answer == self.label


def collect(reasoner: str, tasks: list[str], episodes: int, seed_start: int = 0,
            situations: str = "dkprompt-grasp") -> list[Row]:
    """(question, answer, label, score) for every vision predicate of every oracle step."""
    from ravens_env.agents.oracle import OracleActor, parse_step
    from ravens_env.env import TabletopEnv
    from runtime.components import make_reasoner
    from vrs.oracle import OracleReasoner

    rows: list[Row] = []
    with TabletopEnv(situations=situations) as env:
        model = make_reasoner(reasoner, env)
        for task in tasks:
            for seed in range(seed_start, seed_start + episodes):
                obs = env.reset(task, seed)
                for _ in range(12):
                    step = env.task.oracle_step(env.scene(visibility=False))
                    if step is None:
                        break
                    pick, place = parse_step(step)
                    targets = [t.strip() for t in place.replace("the ", "").split(" and ")]
                    source = env.scene(visibility=False).support_of(pick)
                    oracle = OracleReasoner(lambda: env.scene(visibility=False))
                    rows += _ask(model, oracle, obs.front_rgb, preconditions(pick, targets))
                    obs = env.execute(OracleActor(env).act(obs, step))
                    rows += _ask(model, oracle, obs.front_rgb,
                                 effects(pick, targets, source))
    return rows


def _ask(model, oracle, image, predicates) -> list[Row]:
    questions = [p.question() for p in predicates if p.kind == VISION]
    if not questions:
        return []
    answers, labels = model.ask(image, questions), oracle.ask(image, questions)
    return [Row(q, a.text, b.text, float(a.score))
            for q, a, b in zip(questions, answers, labels, strict=True)]


def accuracy_below(rows: list[Row], threshold: float) -> tuple[float | None, int]:
    """Accuracy and count of the answers a threshold would call unsure."""
    below = [r for r in rows if r.score < threshold]
    return (sum(r.right for r in below) / len(below) if below else None), len(below)


def choose(rows: list[Row]) -> dict:
    """The grid threshold that best separates right from wrong answers: the most answers
    either trusted and right or called unsure and wrong (ties: the lower threshold, which
    trusts more). With the table of what each threshold would call unsure."""
    table, best = [], (-1, 0.0)
    for threshold in GRID:
        acc, n = accuracy_below(rows, threshold)
        kept = sum(r.right == (r.score >= threshold) for r in rows)
        table.append({"threshold": threshold, "unsure": n, "accuracy_of_unsure": acc,
                      "separated": kept})
        if kept > best[0]:
            best = (kept, threshold)
    overall = sum(r.right for r in rows) / len(rows) if rows else None
    return {"threshold": best[1], "answers": len(rows), "accuracy": overall, "table": table}
