"""Color rules of the families: which colors blocks and bowls may take, and the recoloring.

Why recolor instead of sampling colors ourselves: the scenes come from ravens_env's own tasks
(layouts, goal states, oracle steps), and those tasks draw from CLIPort's "all" palette. A
family that must hold out colors (`unseen`) or shape-color combinations (CoGenT) maps each
original color onto its own palette *after* the episode has run — color never affects physics,
so the geometry (stacks, blocks in bowls, spills) is exactly what the task produced, and the
task's oracle can work with the names it knows while the episode runs.

A rule is `shared` when one mapping serves blocks and bowls alike: a red block in the red bowl
stays a same-color pair (the seed paper's failure case). CoGenT rules map blocks and bowls
through disjoint palettes, so no same-color pair can exist there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ravens_env.colors import ALL_COLORS, SEEN_COLORS, UNSEEN_COLORS
from ravens_env.scene_graph import Scene, SceneObject, compute_relations

RECOLORED = ("block", "bowl")  # the stand keeps its brown and its name "stand"
# A darker shade of these is another gray; the darker task excludes them for the same reason.
DARK_UNSAFE = ("white", "gray")
# CLIPort's unseen colors without the three it shares with the seen split.
UNSEEN_ONLY: tuple[str, ...] = tuple(c for c in UNSEEN_COLORS if c not in SEEN_COLORS)
# CoGenT halves of the 11-color palette (6 + 5); each half holds one dark-unsafe color.
COGENT_HALVES: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("blue", "green", "yellow", "purple", "pink", "gray"),
    ("red", "orange", "cyan", "brown", "white"),
)


@dataclass(frozen=True)
class ColorRule:
    """The colors each recolored type may take; `shared`: one mapping for both types."""

    name: str
    blocks: tuple[str, ...]
    bowls: tuple[str, ...]
    shared: bool

    def colors(self, kind: str) -> tuple[str, ...]:
        """The palette of one object type (the stand is never recolored)."""
        return {"block": self.blocks, "bowl": self.bowls}[kind]

    def combinations(self) -> set[tuple[str, str]]:
        """Every (type, color) an object of this rule can have."""
        return {(k, c) for k in RECOLORED for c in self.colors(k)}


SEEN_RULE = ColorRule("seen", SEEN_COLORS, SEEN_COLORS, shared=True)
ALL_RULE = ColorRule("all", ALL_COLORS, ALL_COLORS, shared=True)  # the tasks' own palette
UNSEEN_RULE = ColorRule("unseen", UNSEEN_ONLY, UNSEEN_ONLY, shared=True)
COGENT_A_RULE = ColorRule("cogent_a", COGENT_HALVES[0], COGENT_HALVES[1], shared=False)
COGENT_B_RULE = ColorRule("cogent_b", COGENT_HALVES[1], COGENT_HALVES[0], shared=False)

ColorKey = tuple[str, str]  # (type, original color)


def plan_colors(objects: Sequence[SceneObject], rule: ColorRule, rng: np.random.Generator
                ) -> dict[ColorKey, str] | None:
    """A new color for every (type, color) of the recolored objects, or None when the rule's
    palettes are too small for this scene (the caller then tries another episode).

    Constraints: names stay unique (colors distinct within a type), a shared rule maps a color
    the same way for blocks and bowls, and a dark-shaded object never gets white or gray.
    Greedy, most-constrained first: dark colors, then colors used by both types.
    """
    groups: dict[object, set[str]] = {}  # mapping key -> the types using it
    dark: set[object] = set()
    for o in objects:
        if o.type in RECOLORED:
            key = o.color if rule.shared else (o.type, o.color)
            groups.setdefault(key, set()).add(o.type)
            if o.shade == "dark":
                dark.add(key)
    order = sorted(groups, key=lambda k: (k not in dark, -len(groups[k])))  # stable otherwise
    used: dict[str, set[str]] = {k: set() for k in RECOLORED}
    chosen: dict[object, str] = {}
    for key in order:
        kinds = sorted(groups[key])
        pool = [c for c in rule.colors(kinds[0]) if all(c in rule.colors(k) for k in kinds)
                and not any(c in used[k] for k in kinds)
                and not (key in dark and c in DARK_UNSAFE)]
        if not pool:
            return None
        chosen[key] = pool[int(rng.integers(len(pool)))]
        for k in kinds:
            used[k].add(chosen[key])
    return {(o.type, o.color): chosen[o.color if rule.shared else (o.type, o.color)]
            for o in objects if o.type in RECOLORED}


def rename(name: str, mapping: dict[ColorKey, str]) -> str:
    """An object's name after recoloring ("red block" -> "pink block"); others unchanged."""
    color, _, kind = name.partition(" ")
    new = mapping.get((kind, color))
    return f"{new} {kind}" if new else name


def recolor_scene(scene: Scene, mapping: dict[ColorKey, str]) -> Scene:
    """The same scene with objects recolored and renamed; relations recomputed from poses (they
    depend on poses and types only, so only the names in them change)."""
    objects = []
    for o in scene.objects:
        new = mapping.get((o.type, o.color))
        objects.append(replace(o, color=new, name=f"{new} {o.type}") if new else o)
    return Scene(objects, compute_relations(objects))


_NAME = re.compile(r"\b([a-z]+) (block|bowl)\b")


def rename_text(text: str, mapping: dict[ColorKey, str]) -> str:
    """Every object name in `text` ("put the red block in the blue bowl") after recoloring."""
    return _NAME.sub(lambda m: rename(m.group(0), mapping), text)
