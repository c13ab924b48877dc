"""CLEVR-style questions for one image, balanced by rejection sampling.

Why balance: a VQA model learns answer priors first (a question-only model reaches ~0.37 on
such data), so the generator must not let the question give the answer away.

  yes/no     each yes/no template is asked in pairs: one program answered "yes" and one "no"
             from the same stratum (template, relation or none, same-color or not), both for
             the same image, or neither. So every template (and every relation) is exactly
             50/50, and a "red block in the red bowl" question is as often "no" as "yes".
  count,     a slot first decides whether it wants a minor answer ("0" for counts, "nothing"
  object,    or "table" for objects and colors) with probability MINOR_P, and gives one only
  color      where a major answer was possible too; else among the major classes present in
             its candidates a class is drawn by CLASS_WEIGHTS (count values alike but "1", the
             commonest, at half weight; an object or color answer that repeats the anchor's
             color at half weight: models copy the color named in the question).

Each slot draws a template from the family's weights (retried with a fresh relation and
stratum up to TRIES times, then dropped for the image) and a relation from its weights,
then up to DRAWS candidates (`question_candidates`, aiming at the wanted answers), keeps those
the image supports (`question_checks`) and never repeats a program in one image. Text comes
from `render_question(q, rng)` (synonyms, optional words); answers from `answer_question`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from datagen.families import Family
from datagen.moves import weighted_choice
from datagen.question_candidates import GENERATORS, Context, pick_relation, same_color_ok
from datagen.question_checks import answerable
from ravens_env.scene_graph import TABLE, Scene
from vrs.questions import (
    Question,
    answer_question,
    answer_type,
    list_templates,
    render_question,
)

DRAWS = 12  # candidates per slot
MINOR_P = {"count": 0.15, "object": 0.2, "color": 0.15}  # slots that want 0 / nothing / table
TRIES = 4  # a template that fails this often in a row is dropped for the image
CLASS_WEIGHTS = {"same": 0.5, "1": 0.5}  # others 1.0; "1" is the commonest count
MINOR = ("0", "nothing", "table")


@dataclass(frozen=True)
class QA:
    """One question about one image, with the tags the datasets carry."""

    question: str
    answer: str
    answer_type: str
    template: str
    program: Question
    same_color: bool  # the question relates two objects of one color (see same_color())
    dark: bool  # it names or answers with a darker-shade block

    def program_json(self) -> str:
        return json.dumps({"template": self.program.template, "params": self.program.args},
                          sort_keys=True)


def sample_questions(scene: Scene, fam: Family, k: int, rng: np.random.Generator) -> list[QA]:
    """Up to `k` distinct balanced questions about `scene` (fewer when the image supports
    fewer; yes/no questions come in yes+no pairs)."""
    ctx = Context.of(scene, fam)
    out: list[QA] = []
    dropped: set[str] = set()
    while len(out) < k:
        room = k - len(out)
        weights = {t: w / (2 if _kind(t) == "yes/no" else 1)  # a pair is two questions
                   for t, w in fam.templates.items()
                   if t not in dropped and (room >= 2 or _kind(t) != "yes/no")}
        if not weights:
            break
        template = weighted_choice(weights, rng)
        got = _attempts(ctx, template, rng, {qa.program for qa in out})
        if not got or template == "list_objects":  # one listing per image is enough
            dropped.add(template)
        out.extend(_qa(ctx.scene, q, a, rng) for q, a in got)
    return out


def _attempts(ctx: Context, template: str, rng: np.random.Generator, seen: set
              ) -> list[tuple[Question, str]]:
    """Questions of `template` (a yes/no pair or one), trying a fresh relation and stratum
    up to TRIES times: retrying keeps each template's share near its weight although some
    are harder to satisfy than others. A single question's answer class (minor or major) is
    fixed before the tries, and a minor answer is given only where a major one was possible,
    so images that only allow "nothing" do not fill up with it."""
    if _kind(template) == "yes/no":
        for _ in range(TRIES):
            got = _pair(ctx, template, rng, seen)
            if got:
                return got
        return []
    minor = rng.random() < MINOR_P.get(_kind(template), 0.0)
    major_seen = False
    for _ in range(TRIES):
        groups = _groups(ctx, template, rng, seen)
        major_seen = major_seen or any(c not in MINOR for c in groups)
        wanted = {c: g for c, g in groups.items() if (c in MINOR) == minor}
        if wanted and (major_seen or not minor):
            pool = wanted[weighted_choice({c: CLASS_WEIGHTS.get(c, 1.0) for c in wanted}, rng)]
            return [pool[int(rng.integers(len(pool)))]]
    return []


def _kind(template: str) -> str:
    return ANSWER_TYPE[template]


ANSWER_TYPE = {t.id: t.answer_type for t in list_templates()}


def _candidates(ctx: Context, template: str, rng: np.random.Generator, seen: set, rel: str,
                hints: tuple, **extra) -> list[tuple[Question, str]]:
    """Up to DRAWS usable (program, answer) pairs; hints cycle over the draws."""
    found: dict[Question, str] = {}
    for i in range(DRAWS):
        q = GENERATORS[template](ctx, rng, hints[i % len(hints)], rel, **extra)
        if q is None or q in seen or q in found or not answerable(q, ctx.scene):
            continue
        found[q] = answer_question(q, ctx.scene)
    return list(found.items())


def _pair(ctx: Context, template: str, rng: np.random.Generator, seen: set
          ) -> list[tuple[Question, str]]:
    """A yes and a no program from one stratum (template, relation param or none, same color
    or not), in random order; [] when no stratum has both. A relation question tries the
    drawn same-color stratum first, then the other one."""
    rel = pick_relation(ctx, rng)
    same = (template == "relation_yes_no" and same_color_ok(rel)
            and rng.random() < ctx.fam.same_color_q)
    strata = (same, not same) if template == "relation_yes_no" and same_color_ok(rel) else (
        False,)
    for stratum in strata:
        extra = {"same": stratum} if template == "relation_yes_no" else {}
        groups: dict[str | None, dict[str, list]] = {}  # relation param -> answer -> programs
        for q, a in _candidates(ctx, template, rng, seen, rel, ("yes", "no"), **extra):
            if same_color(q, a, ctx.scene) == stratum:
                groups.setdefault(q.get("rel"), {}).setdefault(a, []).append((q, a))
        both = [g for _, g in sorted(groups.items(), key=lambda kv: str(kv[0])) if len(g) == 2]
        if both:
            g = both[int(rng.integers(len(both)))]
            pair = [g["yes"][int(rng.integers(len(g["yes"])))],
                    g["no"][int(rng.integers(len(g["no"])))]]
            return pair if rng.random() < 0.5 else pair[::-1]
    return []


def _groups(ctx: Context, template: str, rng: np.random.Generator, seen: set
            ) -> dict[str, list[tuple[Question, str]]]:
    """Usable candidates of a relation drawn afresh, grouped by answer class (sorted)."""
    groups: dict[str, list[tuple[Question, str]]] = {}
    rel = pick_relation(ctx, rng)
    for q, a in _candidates(ctx, template, rng, seen, rel, ("named", None)):
        groups.setdefault(_class(q, a, ctx.scene), []).append((q, a))
    return dict(sorted(groups.items()))


def _class(q: Question, answer: str, scene: Scene) -> str:
    """The answer class balanced over: the count itself, nothing / table, or whether an
    object or color answer repeats the anchor's color ("same")."""
    kind = answer_type(q)
    if kind == "count" or answer in MINOR:
        return answer
    if kind in ("object", "color"):
        return "same" if same_color(q, answer, scene) else "other"
    return kind


def same_color(q: Question, answer: str, scene: Scene) -> bool:
    """Whether the question relates two objects of one color: subject and anchor, the answer
    (object or color) and the anchor, or the color it names and the anchor."""
    p = q.args
    anchor = p.get("anchor")
    if anchor in (None, TABLE):
        return False
    color = scene.get(anchor).color
    if "subject" in p:
        return scene.get(p["subject"]).color == color
    if answer_type(q) == "object":
        return answer in scene.names() and scene.get(answer).color == color
    if answer_type(q) == "color":
        return answer == color
    return p.get("color") == color


def _qa(scene: Scene, q: Question, answer: str, rng: np.random.Generator) -> QA:
    names = [n for n in (q.get("subject"), q.get("anchor"), answer) if n in scene.names()]
    dark = any(scene.get(n).shade == "dark" for n in names)
    return QA(render_question(q, rng), answer, answer_type(q), q.template, q,
              same_color(q, answer, scene), dark)
