"""A claim that held still holds while the image around its block has not changed.

Why: the reasoner reads each image afresh, and a reading of an unchanged block can flip when
its surroundings change. On the pyramid, a base block whose row runs away from the camera is
read as stacked on the block in front of it once the block behind it is placed (the same
pixel ray meets the stand's next slot and the top of the nearer block): of the 458 false
"no" to "X on the stand" in a dev run (seeds 5500-5599, oracle actor, detector-tiny), 268
parsed the block raised, and 661 of the learned stack's 1,480 redos of stand claims on the
same seeds (round 10's code) redid a block that was in place (docs/RESULTS.md, round 12). A
block cannot leave its place without its pixels changing, so change detection (the image
window at the block's centre, compared with the image of the last check at which the claim
held) keeps such a claim; a knocked, dropped or covered block changes its window, and the
reasoner's "no" stands. Only a "no" is overruled, never an unseen part
(`controller._believed`'s rules), and only with a detector at hand (the tools' parse gives
the block's pixel).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Protocol

import numpy as np

from ravens_env.scene_graph import Scene

WINDOW = 4  # pixels each side of the block's centre: inside a block's image at the stand
CHANGED_LEVEL = 24  # 0-255: a pixel whose largest channel change exceeds this has changed
CHANGED_SHARE = 0.15  # a window with at most this share of changed pixels is unchanged


class HasPick(Hashable, Protocol):
    pick: str


def unchanged(before: np.ndarray, after: np.ndarray, uv: tuple[float, float]) -> bool:
    """Whether the (2 WINDOW + 1)^2 window at pixel `uv` (u right, v down) is the same in
    `before` and `after` (H, W, 3|4 uint8 images of one camera): at most CHANGED_SHARE of its
    pixels moved by more than CHANGED_LEVEL in any channel. A window cut by the border or
    images of different sizes count as changed."""
    a, b = np.asarray(before)[..., :3], np.asarray(after)[..., :3]
    if a.shape != b.shape:
        return False
    u, v = round(uv[0]), round(uv[1])
    h, w = a.shape[:2]
    if not (WINDOW <= u < w - WINDOW and WINDOW <= v < h - WINDOW):
        return False
    rows, cols = slice(v - WINDOW, v + WINDOW + 1), slice(u - WINDOW, u + WINDOW + 1)
    moved = np.abs(a[rows, cols].astype(np.int16) - b[rows, cols].astype(np.int16)).max(-1)
    return float((moved > CHANGED_LEVEL).mean()) <= CHANGED_SHARE


class HeldClaims:
    """Per claim, the image of the last check at which it held and its block's pixel there.

    `parse` reads an image into a Scene with pixel coordinates (the tools' detector);
    `on_look` is told of every parse (a reasoner call, counted by the controller)."""

    def __init__(self, parse: Callable[[np.ndarray], Scene], on_look: Callable[[], None]
                 ) -> None:
        self.parse, self.on_look = parse, on_look
        # claim -> (image, block pixel (u, v), block z metres) at the last check it held
        self._held: dict[Hashable, tuple[np.ndarray, tuple[float, float], float]] = {}

    def keep(self, claims: Sequence[HasPick], votes: Sequence[Sequence[bool | None]],
             believed: Sequence[bool], image: np.ndarray) -> tuple[list[bool], list[str]]:
        """`believed` with each claim that a "no" failed turned back to holding when its
        block's window is unchanged since the claim last held; and the claims so kept."""
        out, kept = list(believed), []
        for i, (claim, vote) in enumerate(zip(claims, votes, strict=True)):
            ref = self._held.get(claim)
            if not out[i] and False in vote and ref is not None \
                    and unchanged(ref[0], image, ref[1]):
                out[i] = True
                kept.append(str(claim))
        self._remember(claims, out, kept, image, None)
        return out, kept

    def _look(self, image: np.ndarray) -> Scene:
        self.on_look()
        return self.parse(image)

    def _remember(self, claims: Sequence[HasPick], holds: list[bool], kept: list[str],
                  image: np.ndarray, scene: Scene | None) -> None:
        frozen = np.array(image, copy=True)  # one copy for every claim
        for claim, ok in zip(claims, holds, strict=True):
            if not ok:
                self._held.pop(claim, None)
            elif str(claim) not in kept:  # a kept claim keeps the reading it held with
                scene = scene if scene is not None else self._look(image)
                where = _where(scene, claim.pick)
                if where is None:
                    self._held.pop(claim, None)
                else:
                    self._held[claim] = (frozen, *where)


def _where(scene: Scene, name: str) -> tuple[tuple[float, float], float] | None:
    """((u, v) pixel, z metres) of `name` in a parse, or None when it is not there."""
    for obj in scene.objects:
        if obj.name == name and obj.pixel_coords is not None:
            return (float(obj.pixel_coords[0]), float(obj.pixel_coords[1])), obj.position[2]
    return None
