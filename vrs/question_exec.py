"""Executing a question program on a ground-truth scene: the oracle's answers.

Why from relations only: the scene graph's relations (`in`, `on`, `above`, `below` and the
front-camera directions with their 1 cm margin) are what success checks and data generation use,
so answering from them keeps the oracle, the scorer and the training labels consistent.

When several objects qualify for a question that wants one (relate_object, query_color):
  - left / right / front / behind: the nearest to the anchor (xy distance between centres),
    ties broken by name;
  - in / on / above / below: the first by name (e.g. the block below one that straddles the
    red and the blue block is "blue block").
"nothing" when none qualifies. "what is below X" is "table" when X rests on the table.
An anchor "any bowl" / "any block" (`question_vocab.GROUPS`, from "how many blocks are in
bowls?", "is the red block on another block?") holds when the relation holds to some object of
that type other than the subject; relate_object with one ("what is in a bowl?", support
relations only) answers the first object by name that so holds, "nothing" when none does.
list_objects lists every object of the scene, visible from the front camera or not: the
planner needs the full vocabulary, and a learned model is scored on the same labels.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from vrs.question_program import Question, UnknownObject
from vrs.question_templates import template_of
from vrs.question_vocab import DIRECTIONS, GROUPS, NOTHING, TABLE

if TYPE_CHECKING:
    from ravens_env.scene_graph import Scene, SceneObject

Params = dict[str, str]


def answer_question(q: Question, scene: Scene) -> str:
    """The answer string for program `q` on `scene`.

    Raises UnsupportedQuestion for an invalid program and UnknownObject when the question names
    an object the scene lacks (the message lists the scene's objects): for the controller a
    wrong name is a planner bug to report, not a fact about the world.
    """
    template_of(q)
    params = q.args
    _check_names(params, scene)
    return _EXECUTORS[q.template](params, scene)


def _check_names(params: Params, scene: Scene) -> None:
    known = scene.names()
    for key in ("subject", "anchor"):
        name = params.get(key)
        if name is not None and name != TABLE and name not in GROUPS and name not in known:
            objects = ", ".join(sorted(known)) or "none"
            raise UnknownObject(f"no {name!r} in the scene; objects: {objects}")


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def _holds(scene: Scene, subject: str, rel: str, anchor: str) -> bool:
    """Relation(subject, rel, anchor); for a group anchor, to some other object of its type."""
    kind = GROUPS.get(anchor)
    if kind is None:
        return scene.holds(subject, rel, anchor)
    return any(scene.holds(subject, rel, o.name) for o in scene.of_type(kind)
               if o.name != subject)


def _select(params: Params, scene: Scene) -> list[SceneObject]:
    """Objects of the param's type and color (when given) with Relation(obj, rel, anchor)."""
    kind, color, rel = params["type"], params.get("color"), params.get("rel")
    return [o for o in scene.objects
            if kind in ("object", o.type) and color in (None, o.color)
            and (rel is None or _holds(scene, o.name, rel, params["anchor"]))]


def _pick(names: list[str], rel: str, anchor: str, scene: Scene) -> str:
    """One of `names` by the module's rule: nearest for directions, else first by name."""
    if not names:
        return NOTHING
    if rel in DIRECTIONS and anchor != TABLE:
        at = scene.get(anchor).position[:2]
        return min(names, key=lambda n: (math.dist(scene.get(n).position[:2], at), n))
    return sorted(names)[0]


def _exists(params: Params, scene: Scene) -> str:
    return _yes(bool(_select(params, scene)))


def _count(params: Params, scene: Scene) -> str:
    return str(len(_select(params, scene)))


def _relation(params: Params, scene: Scene) -> str:
    return _yes(_holds(scene, params["subject"], params["rel"], params["anchor"]))


def _relate(params: Params, scene: Scene) -> str:
    rel, anchor = params["rel"], params["anchor"]
    if anchor in GROUPS:  # "what is in a bowl": the first by name so related to some bowl
        names = sorted(o.name for o in scene.objects if _holds(scene, o.name, rel, anchor))
        return names[0] if names else NOTHING
    names = scene.related(rel, anchor)
    if not names and rel == "below" and scene.holds(anchor, "on", TABLE):
        return TABLE
    return _pick(names, rel, anchor, scene)


def _query_color(params: Params, scene: Scene) -> str:
    names = [o.name for o in _select(params, scene)]
    picked = _pick(names, params["rel"], params["anchor"], scene)
    return NOTHING if picked == NOTHING else scene.get(picked).color


def _list_objects(params: Params, scene: Scene) -> str:
    return ", ".join(sorted(scene.names())) or NOTHING


def _all_in(params: Params, scene: Scene) -> str:
    mode = params["mode"]

    def placed(block: SceneObject) -> bool:
        bowl = scene.container_of(block.name)
        if bowl is None:
            return False
        same = scene.get(bowl).color == block.color
        return mode == "any" or same == (mode == "same")

    return _yes(all(placed(b) for b in scene.of_type("block")))  # no blocks: vacuously yes


_EXECUTORS: dict[str, Callable[[Params, Scene], str]] = {
    "exists": _exists,
    "count": _count,
    "relation_yes_no": _relation,
    "relate_object": _relate,
    "query_color": _query_color,
    "list_objects": _list_objects,
    "all_in": _all_in,
}
