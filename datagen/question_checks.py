"""Which question programs an image can answer: visibility, ambiguity and near-ties.

Why: a label the image does not support teaches the model to guess. The scene graph answers
every question (the oracle's rules pick "the first by name" or "the nearest" when several
objects qualify, and include objects hidden from the camera), but a picture only supports:
  - questions whose objects are all visible (named ones, the ones counted or listed, the ones
    that could qualify — for in / on / above / below, those within REACH of the anchor):
    `SceneObject.visible`, recomputed for the variant's camera;
  - in / on / above / below questions only about objects resting on something: the scene
    graph says a block that rolled onto its side rests on nothing (its tilt is 90 degrees),
    where the picture shows it on the table;
  - for in / on / above / below questions that want one object: at most one qualifies;
  - for left / right / front / behind: no object within TIE of the anchor along the axis (the
    scene graph's 1 cm margin decides such pairs, the eye cannot), and "the nearest" at least
    NEAREST_GAP nearer than the next.
"""

from __future__ import annotations

import math

from ravens_env.scene_graph import TABLE, Scene, SceneObject
from vrs.questions import Question

DIRECTIONS = ("left", "right", "front", "behind")
SUPPORT = ("in", "on", "above", "below")
TIE = 0.03  # metres along the direction's axis
NEAREST_GAP = 0.02  # metres between the nearest and the second nearest
REACH = 0.12  # metres (xy): farther objects cannot be in, on, above or below the anchor


def answerable(q: Question, scene: Scene) -> bool:
    """True when the image of `scene` supports the answer to `q` (see the module doc)."""
    p = q.args
    rel = p.get("rel")

    def clear(o: SceneObject) -> bool:
        return o.visible and (rel not in SUPPORT or scene.support_of(o.name) is not None)

    anchor = scene.get(p["anchor"]) if p.get("anchor", TABLE) != TABLE else None
    if q.template in ("list_objects", "all_in"):
        kinds = ("block", "bowl", "stand") if q.template == "list_objects" else ("block", "bowl")
        return all(o.visible for o in scene.objects if o.type in kinds)
    if anchor is not None and not clear(anchor):
        return False
    if q.template == "relation_yes_no":
        subject = scene.get(p["subject"])
        return clear(subject) and _apart(anchor, [subject], rel)
    pool = [o for o in scene.objects if o is not anchor and _matches(o, p)
            and (anchor is None or rel not in SUPPORT
                 or math.dist(o.position[:2], anchor.position[:2]) <= REACH)]
    if not all(clear(o) for o in pool) or not _apart(anchor, pool, rel):
        return False
    if q.template in ("relate_object", "query_color"):
        related = [o for o in pool if scene.holds(o.name, rel, p["anchor"])]
        return _single(anchor, related, rel)
    return True


def _matches(obj: SceneObject, p: dict[str, str]) -> bool:
    """Could `obj` be the object the question looks for (type and color, relation aside)?"""
    kind = p.get("type", "object")
    return kind in ("object", obj.type) and p.get("color") in (None, obj.color)


def _apart(anchor: SceneObject | None, objects: list[SceneObject], rel: str | None) -> bool:
    """No object is a near-tie with the anchor along a direction's axis."""
    if anchor is None or rel not in DIRECTIONS:
        return True
    axis = 1 if rel in ("left", "right") else 0  # y: left/right, x: front/behind
    return all(abs(o.position[axis] - anchor.position[axis]) >= TIE for o in objects)


def _single(anchor: SceneObject | None, related: list[SceneObject], rel: str) -> bool:
    if rel not in DIRECTIONS:
        return len(related) <= 1
    if len(related) < 2 or anchor is None:
        return True
    d = sorted(math.dist(o.position[:2], anchor.position[:2]) for o in related)
    return d[1] - d[0] >= NEAREST_GAP
