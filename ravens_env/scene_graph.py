"""Ground-truth scene graph: objects with attributes and poses, and the relations between them.

Used by the oracle, by scoring and by data generation — never by the system under test unless
the user picks the oracle reasoner. Relations are computed from object poses alone
(`compute_relations`), so they can be tested on hand-built scenes without a simulator.

Relation vocabulary (subject REL object):
  in           a block resting inside a bowl (xy within IN_RADIUS of the bowl centre, low)
  on           a block resting on a block, on the stand, or any object on the table
  above/below  direct support: A above B and B below A when A is in or on B (not the table)
  left/right/front/behind   as seen from the front camera (CLEVR's relationships): +y is right,
               +x is towards the camera; pairs closer than DIRECTION_MARGIN along an axis
               get neither relation, so no question has a near-tie answer.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from ravens_env.dimensions import BLOCK_SIZE, BOWL_FLOOR, BOWL_HEIGHT, STAND_SIZE

IN_RADIUS = 0.05  # metres: a block whose centre is this close (xy) to a bowl's centre is in it
ON_XY = 0.03  # metres: max xy offset between a block and the block it rests on
REST_TOL = 0.012  # metres: max gap between a bottom face and the surface it rests on
DIRECTION_MARGIN = 0.01  # metres
TABLE = "table"


@dataclass
class SceneObject:
    """One object as ground truth knows it. `name` is unique in a scene ("red block")."""

    name: str
    type: str  # "block" | "bowl" | "stand"
    color: str
    position: tuple[float, float, float]  # metres, centre of the body frame
    yaw: float = 0.0  # radians about +z
    tilt: float = 0.0  # radians between the body's up axis and world up
    shade: str = ""  # "" or "dark"
    body_id: int = -1
    pixel_box: tuple[int, int, int, int] | None = None  # front camera (u0, v0, u1, v1) px
    pixel_coords: tuple[float, float, float] | None = None  # CLEVR: (u, v, depth m) of centre
    visible_pixels: int = 0  # in the front camera's segmentation

    @property
    def visible(self) -> bool:
        return self.visible_pixels >= 20

    @property
    def bottom(self) -> float:
        """Height of the lowest point (metres) for upright objects."""
        return self.position[2] - _half_height(self.type)

    @property
    def top(self) -> float:
        return self.position[2] + (_half_height(self.type) if self.type != "bowl" else BOWL_HEIGHT)


@dataclass(frozen=True)
class Relation:
    subject: str
    relation: str
    object: str


@dataclass
class Scene:
    """Objects and their relations at one moment; `to_json()` is CLEVR's scene layout."""

    objects: list[SceneObject]
    relations: list[Relation] = field(default_factory=list)

    def get(self, name: str) -> SceneObject:
        for obj in self.objects:
            if obj.name == name:
                return obj
        raise KeyError(f"no object named {name!r} in the scene; objects: {self.names()}")

    def names(self) -> list[str]:
        return [o.name for o in self.objects]

    def of_type(self, kind: str) -> list[SceneObject]:
        return [o for o in self.objects if o.type == kind]

    def holds(self, subject: str, relation: str, obj: str) -> bool:
        return Relation(subject, relation, obj) in set(self.relations)

    def related(self, relation: str, obj: str) -> list[str]:
        """Subjects S with (S relation obj), e.g. related('below', 'red block')."""
        return [r.subject for r in self.relations if r.relation == relation and r.object == obj]

    def container_of(self, name: str) -> str | None:
        """The bowl `name` is in, else None."""
        hits = [r.object for r in self.relations if r.subject == name and r.relation == "in"]
        return hits[0] if hits else None

    def support_of(self, name: str) -> str | None:
        """What `name` rests on or in (an object name or "table"), else None (e.g. mid-air)."""
        for r in self.relations:
            if r.subject == name and r.relation in ("in", "on"):
                return r.object
        return None

    def to_json(self) -> dict:
        """CLEVR layout: `objects` (color, shape, 3d_coords, pixel_coords, ...) and
        `relationships` (for each object index i, the indices j with j REL i), plus a flat
        `relations` list of [subject, relation, object] names for in/on/above/below."""
        index = {o.name: i for i, o in enumerate(self.objects)}
        rel_names = ("left", "right", "front", "behind", "in", "on", "above", "below")
        relationships = {r: [[] for _ in self.objects] for r in rel_names}
        for r in self.relations:
            if r.subject in index and r.object in index:
                relationships[r.relation][index[r.object]].append(index[r.subject])
        objects = []
        for o in self.objects:
            d = asdict(o)
            d.update(shape=o.type, **{"3d_coords": list(o.position)}, visible=o.visible)
            objects.append(d)
        return {
            "objects": objects,
            "relationships": relationships,
            "relations": [[r.subject, r.relation, r.object] for r in self.relations],
        }


def _half_height(kind: str) -> float:
    return {"block": BLOCK_SIZE / 2, "bowl": 0.0, "stand": STAND_SIZE[2] / 2}.get(kind, 0.0)


def compute_relations(objects: list[SceneObject]) -> list[Relation]:
    """All relations between `objects` (and the table), from poses only."""
    rels: list[Relation] = []
    for obj in objects:
        for kind, under in _supports(obj, objects):
            rels.append(Relation(obj.name, kind, under))
            if under != TABLE:
                rels.append(Relation(obj.name, "above", under))
                rels.append(Relation(under, "below", obj.name))
    rels.extend(_directions(objects))
    return rels


def _supports(obj: SceneObject, objects: list[SceneObject]) -> list[tuple[str, str]]:
    """('in' | 'on', name) for what `obj` rests in or on: a bowl, or one or more blocks (a
    pyramid block straddles two), the stand, or the table; empty when it rests on nothing."""
    if obj.type == "block":
        for bowl in (o for o in objects if o.type == "bowl"):
            if _in_bowl(obj, bowl):
                return [("in", bowl.name)]
        under = [("on", o.name) for o in objects
                 if o is not obj and o.type in ("block", "stand") and _rests_on(obj, o)]
        if under:
            return under
    if abs(obj.bottom) <= REST_TOL and obj.tilt < 0.35:
        return [("on", TABLE)]
    return []


def _in_bowl(block: SceneObject, bowl: SceneObject) -> bool:
    dxy = math.dist(block.position[:2], bowl.position[:2])
    floor = bowl.position[2] + BOWL_FLOOR
    return dxy <= IN_RADIUS and block.bottom <= floor + BOWL_HEIGHT - BOWL_FLOOR


def _rests_on(upper: SceneObject, lower: SceneObject) -> bool:
    gap = upper.bottom - lower.top
    if abs(gap) > REST_TOL:
        return False
    if lower.type == "block":
        return math.dist(upper.position[:2], lower.position[:2]) <= ON_XY
    # The stand is a rotated box: test the block centre in its footprint.
    dx = upper.position[0] - lower.position[0]
    dy = upper.position[1] - lower.position[1]
    c, s = math.cos(-lower.yaw), math.sin(-lower.yaw)
    lx, ly = c * dx - s * dy, s * dx + c * dy
    return abs(lx) <= STAND_SIZE[0] / 2 + 0.01 and abs(ly) <= STAND_SIZE[1] / 2 + 0.01


def _directions(objects: list[SceneObject]) -> list[Relation]:
    """left/right (along +y) and front/behind (along +x) for every ordered pair."""
    rels = []
    for a in objects:
        for b in objects:
            if a is b:
                continue
            dy = a.position[1] - b.position[1]
            dx = a.position[0] - b.position[0]
            if dy < -DIRECTION_MARGIN:
                rels.append(Relation(a.name, "left", b.name))
            elif dy > DIRECTION_MARGIN:
                rels.append(Relation(a.name, "right", b.name))
            if dx > DIRECTION_MARGIN:
                rels.append(Relation(a.name, "front", b.name))
            elif dx < -DIRECTION_MARGIN:
                rels.append(Relation(a.name, "behind", b.name))
    return rels
