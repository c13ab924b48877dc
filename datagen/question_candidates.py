"""Random question programs instantiated from a scene (CLEVR's template instantiation).

Why hints: balance is reached by rejection (the sampler keeps a candidate only if its answer is
of the class it wants), and a blind draw almost never hits some classes — "is the red block in
the blue bowl?" is "no" for nearly every random pair. So a generator can be asked to aim: with
hint "yes" it draws from relations that hold, with "no" (or None) from random pairs of the
right types. The answer is always computed by `vrs.questions.answer_question`, never assumed.

Params stay natural: blocks go in bowls, on blocks, the stand or the table; questions only name
objects visible in the image (the context holds those), and an absent color is drawn from the
family's own palette for that type (a CoGenT question never names a combination its condition
lacks).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from datagen.families import Family
from datagen.moves import weighted_choice
from ravens_env.scene_graph import TABLE, Relation, Scene, SceneObject
from vrs.questions import Question

DIRECTIONS = ("left", "right", "front", "behind")
# rel -> (subject types, anchor types): the pairs a relation question may name.
PAIRS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "in": (("block",), ("bowl",)),
    "on": (("block",), ("block", "stand", TABLE)),
    "above": (("block",), ("block", "bowl", "stand")),
    "below": (("block", "bowl", "stand"), ("block",)),
    **{d: (("block", "bowl", "stand"), ("block", "bowl", "stand")) for d in DIRECTIONS},
}


@dataclass
class Context:
    """What the generators draw from: the scene, its visible objects, the family's weights."""

    scene: Scene
    fam: Family
    visible: list[SceneObject]
    relations: dict[str, list[Relation]]  # rel -> relations between nameable objects

    @classmethod
    def of(cls, scene: Scene, fam: Family) -> Context:
        visible = [o for o in scene.objects if o.visible]  # question_checks has the last word
        names = {o.name for o in visible} | {TABLE}
        rels: dict[str, list[Relation]] = {}
        for r in scene.relations:
            if r.subject in names and r.object in names:
                rels.setdefault(r.relation, []).append(r)
        return cls(scene, fam, visible, rels)

    def of_types(self, kinds: tuple[str, ...]) -> list[SceneObject]:
        return [o for o in self.visible if o.type in kinds]

    def natural(self, rel: str) -> list[Relation]:
        """Holding relations `rel` whose subject and anchor types make a natural question."""
        subj, anch = PAIRS[rel]
        kind = {o.name: o.type for o in self.visible} | {TABLE: TABLE}
        return [r for r in self.relations.get(rel, [])
                if kind[r.subject] in subj and kind[r.object] in anch]

    def absent_colors(self, kind: str) -> list[str]:
        present = {o.color for o in self.scene.objects if o.type == kind}
        return [c for c in self.fam.colors.colors(kind) if c not in present]


def _one(items: list, rng: np.random.Generator):
    return items[int(rng.integers(len(items)))] if items else None


def same_color_ok(rel: str) -> bool:
    """Whether a relation can join two objects of one color (a block and a bowl)."""
    return "bowl" in PAIRS[rel][0] + PAIRS[rel][1]


def relation_yes_no(ctx: Context, rng: np.random.Generator, hint: str | None, rel: str,
                    same: bool = False) -> Question | None:
    """'is the X <rel> the Y?'; X and Y have one color (a block and its bowl) exactly when
    `same`, so that color agreement never predicts the answer."""
    subj_types, anchor_types = PAIRS[rel]
    if hint == "yes":
        pool = [r for r in ctx.natural(rel) if _same_color(ctx.scene, r) == same]
        r = _one(pool, rng)
        return r and Question("relation_yes_no", {"subject": r.subject, "rel": rel,
                                                  "anchor": r.object})
    subject = _one(ctx.of_types(subj_types), rng)
    if subject is None:
        return None
    anchors = [o.name for o in ctx.of_types(anchor_types) if o.name != subject.name
               and (o.color == subject.color and o.type != subject.type) == same]
    anchors += [TABLE] if TABLE in anchor_types and not same else []
    anchor = _one(anchors, rng)
    return anchor and Question("relation_yes_no", {"subject": subject.name, "rel": rel,
                                                   "anchor": anchor})


def _same_color(scene: Scene, r: Relation) -> bool:
    if r.object == TABLE:
        return False
    a, b = scene.get(r.subject), scene.get(r.object)
    return a.color == b.color and a.type != b.type


def relate_object(ctx: Context, rng: np.random.Generator, hint: str | None, rel: str
                  ) -> Question | None:
    """'what is <rel> the Y?' (below: 'what is the Y on?')."""
    anchor_types = tuple(t for t in PAIRS[rel][1] if t != TABLE)
    if hint == "named":
        names = [r.object for r in ctx.natural(rel) if r.object != TABLE]
    else:
        names = [o.name for o in ctx.of_types(anchor_types)]
    anchor = _one(names, rng)
    return anchor and Question("relate_object", {"rel": rel, "anchor": anchor})


def query_color(ctx: Context, rng: np.random.Generator, hint: str | None, rel: str
                ) -> Question | None:
    """'what color is the <type> <rel> the Y?' and 'the bowl that the X is in'."""
    kinds = ("block", "bowl") if rel == "below" or rel in DIRECTIONS else ("block",)
    kind = _one(list(kinds), rng)
    if hint == "named":
        pool = [r for r in ctx.natural(rel) if ctx.scene.get(r.subject).type == kind]
        r = _one(pool, rng)
        anchor = r.object if r else None
    else:
        anchors = [o.name for o in ctx.of_types(PAIRS[rel][1])]
        anchor = _one(anchors + ([TABLE] if rel == "on" else []), rng)
    if anchor is None or (anchor == TABLE and rel != "on"):
        return None
    return Question("query_color", {"type": kind, "rel": rel, "anchor": anchor})


def exists(ctx: Context, rng: np.random.Generator, hint: str | None, rel: str
           ) -> Question | None:
    """'is there a [color] <type> [<rel> the Y]?'."""
    if rng.random() < 0.4:
        return _plain("exists", ctx, rng, hint)
    return _related("exists", ctx, rng, hint, rel)


def count(ctx: Context, rng: np.random.Generator, hint: str | None, rel: str
          ) -> Question | None:
    """'how many [color] <type>s [are <rel> the Y]?'."""
    roll = rng.random()
    if roll < 0.25:
        kind = _one(["block", "bowl", "object"], rng)
        return Question("count", {"type": kind})
    if roll < 0.35:
        return _plain("count", ctx, rng, hint)
    return _related("count", ctx, rng, hint, rel)


def _plain(template: str, ctx: Context, rng: np.random.Generator, hint: str | None
           ) -> Question | None:
    kind = _one(["block", "bowl"], rng)
    colors = ctx.absent_colors(kind) if hint == "no" else []
    colors = colors or [o.color for o in ctx.scene.objects if o.type == kind]
    color = _one(colors, rng)
    return color and Question(template, {"type": kind, "color": color})


def _related(template: str, ctx: Context, rng: np.random.Generator, hint: str | None,
             rel: str) -> Question | None:
    subj_types, anchor_types = PAIRS[rel]
    held = _one(ctx.natural(rel), rng) if hint in ("yes", "named") else None
    if held is not None:
        subject, anchor = ctx.scene.get(held.subject), held.object
    else:
        subject = _one(ctx.of_types(subj_types), rng)
        anchor = _one([o.name for o in ctx.of_types(anchor_types)]
                      + ([TABLE] if TABLE in anchor_types else []), rng)
        if subject is None or anchor is None:
            return None
    params = {"type": subject.type if rng.random() < 0.7 else "object", "rel": rel,
              "anchor": anchor}
    if params["type"] != "object" and subject.name != anchor and rng.random() < 0.3:
        params["color"] = subject.color  # never "a red block on the red block"
    return Question(template, params)


def all_in(ctx: Context, rng: np.random.Generator, hint: str | None, rel: str
           ) -> Question | None:
    """'are all the blocks in (matching / mismatched) bowls?'."""
    return Question("all_in", {"mode": _one(["any", "same", "different"], rng)})


def list_objects(ctx: Context, rng: np.random.Generator, hint: str | None, rel: str
                 ) -> Question | None:
    """'what objects are on the table?'."""
    return Question("list_objects", {})


GENERATORS = {"relation_yes_no": relation_yes_no, "relate_object": relate_object,
              "query_color": query_color, "exists": exists, "count": count,
              "all_in": all_in, "list_objects": list_objects}


def pick_relation(ctx: Context, rng: np.random.Generator) -> str:
    """A relation drawn from the family's weights (all_in and list_objects ignore it)."""
    return weighted_choice(ctx.fam.relations, rng)
