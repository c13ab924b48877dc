"""Physical support for the parsed scene: every block rests on the table, in a bowl, or on
other blocks.

Why: a single image cannot tell a block on another from one just behind it on the table, and
cast at the wrong height a stacked block's centre lands 4-5 cm behind the block under it, so
"on" is lost. The detector says *whether* a block is raised — its support-level class when it
has a level head, else its height regression (`RAISED`; that head under-predicts stacks:
median error -0.9 cm one block up, -4.4 cm two up, on the validation scenes) — and geometry
says *onto what*, as NS-VQA-style parsers use scene priors.

Blocks are settled from the bottom of the image up (a block on another projects above it in
this camera, which looks down at ~47 degrees). A raised block goes onto the settled block
whose top its pixel ray passes closest to, one level higher; a block whose cast at its own
height would sit inside a settled block at the same level is lifted onto it as well; a raised
block with nothing under it keeps its level's height.
"""

from __future__ import annotations

import math

import numpy as np

from ravens_env.dimensions import BLOCK_SIZE
from vrs.detector.camera import PinholeCamera
from vrs.detector.config import LEVEL0_Z

RAISED = 0.038  # metres: a predicted centre above this is on something (table: 0.02)
ON_TOLERANCE = 0.03  # metres: max xy offset from a supporting block (scene_graph.ON_XY)
OVERLAP = BLOCK_SIZE  # metres: closer centres (xy) at one level would interpenetrate
SAME_LEVEL = 0.03  # metres: centre heights closer than this are one level
# A pair of blocks an upper block can straddle: centres this far apart (xy, metres; touching
# is 4 cm, and a 4 cm block on two rests on both only while they are under 8 cm apart), and
# the upper block's cast this close to their middle; such a pair is set a pyramid slot apart.
NEIGHBOURS = (BLOCK_SIZE * 0.9, 2 * BLOCK_SIZE)
STRADDLE_TOLERANCE = 0.025
SLOT_GAP = 0.05  # metres between neighbouring slots (stack_block_pyramid.SLOT_SPACING)
# A raised block with no support within ON_TOLERANCE rests on the nearest within this
# (a straddler's half slot, 2.5 cm, plus "on"'s 3 cm of cast error).
LEAN_REACH = SLOT_GAP / 2 + ON_TOLERANCE


def resolve_stacks(uv: np.ndarray, z: np.ndarray, is_block: np.ndarray,
                   camera: PinholeCamera, levels: np.ndarray | None = None) -> np.ndarray:
    """World centres (N, 3) metres from pixels (N, 2), predicted heights (N,) metres and, from
    a detector with a level head, support levels (N,)."""
    z = np.asarray(z, float).copy()
    raised = z > RAISED if levels is None else np.asarray(levels) > 0
    if levels is not None:  # a raised block's height is its level's until a support is found
        z = np.where(raised, LEVEL0_Z + BLOCK_SIZE * np.asarray(levels), z)
    xyz = camera.unproject_to_height(uv, z)
    settled: list[int] = []
    supports: dict[int, int] = {}
    for a in sorted((i for i in range(len(z)) if is_block[i]), key=lambda i: -uv[i, 1]):
        support = _support(a, bool(raised[a]), uv, z, xyz, settled, camera)
        if support is not None:
            z[a] = z[support] + BLOCK_SIZE
            xyz[a] = camera.unproject_to_height(uv[a:a + 1], z[a:a + 1])[0]
            supports[a] = support
            _straddle(a, support, z, xyz, settled)
        settled.append(a)
    for a, support in supports.items():  # settling order: a pair is set before what is on it
        _straddle(a, support, z, xyz, [c for c in settled if c != a])
        _lean(a, support, xyz)
    return xyz


def _lean(a: int, support: int, xyz: np.ndarray) -> None:
    """Pull `a` to a straddler's offset from `support` when it is past "on"'s reach of it
    (in place). Why: a raised block found resting only on a support beyond ON_TOLERANCE
    (`_support`'s second chance) rests on it and on a block hidden under it, half a slot
    away; at its cast it read as resting on nothing (dev pyramids: a middle-row block
    whose other support it hides)."""
    d = xyz[a, :2] - xyz[support, :2]
    gap = float(np.linalg.norm(d))
    if gap > ON_TOLERANCE:
        xyz[a, :2] = xyz[support, :2] + d / gap * SLOT_GAP / 2


def _straddle(a: int, support: int, z: np.ndarray, xyz: np.ndarray, blocks: list[int]) -> None:
    """Set `a` at the middle of `support` and the neighbour it straddles with it among
    `blocks`, if any (in place). Run twice: as blocks settle, and again once all have, since
    closing a later block's pair moves a support an earlier block was set on — a pyramid's
    two middle-row blocks share the middle base block, and the second one's pair moved it
    from under the first (dev pyramids: a block on two read on one of them, then redone;
    36 to 26 of 240 such reads wrong with detector-pyramid)."""
    pair = _straddled(a, support, z, xyz, blocks)
    if pair is not None:
        _close_pair(xyz, support, pair)
        xyz[a, :2] = (xyz[support, :2] + xyz[pair, :2]) / 2


def _close_pair(xyz: np.ndarray, p: int, q: int) -> None:
    """Move two straddled blocks symmetrically to at most a pyramid slot apart (in place).
    Why: the casts of a pyramid's base row spread outwards (dev pyramids: 6-7 cm apart for
    5 cm), and at their middle the block on them is then past "on"'s 3 cm from both."""
    d = xyz[q, :2] - xyz[p, :2]
    gap = float(np.linalg.norm(d))
    if gap > SLOT_GAP:
        mid = (xyz[p, :2] + xyz[q, :2]) / 2
        xyz[p, :2], xyz[q, :2] = mid - d / gap * SLOT_GAP / 2, mid + d / gap * SLOT_GAP / 2


def _straddled(a: int, support: int, z: np.ndarray, xyz: np.ndarray, settled: list[int]
               ) -> int | None:
    """The second block `a` straddles with `support`, or None. Why: a pyramid's upper block
    rests on two blocks 5 cm apart, 2.5 cm from each centre, and a cast a centimetre off puts
    one of them past "on"'s 3 cm (measured on dev pyramids: 22 of 120 straddling blocks read
    on both supports); a block whose cast lies near the middle of its support and a neighbour
    at the same level can only rest on both, so it is set at their middle."""
    best, best_dist = None, STRADDLE_TOLERANCE
    for c in settled:
        if c == support or abs(z[c] - z[support]) >= SAME_LEVEL:
            continue
        gap = math.dist(xyz[c, :2], xyz[support, :2])
        mid = (xyz[c, :2] + xyz[support, :2]) / 2
        dist = math.dist(xyz[a, :2], mid)
        if NEIGHBOURS[0] <= gap <= NEIGHBOURS[1] and dist < best_dist:
            best, best_dist = c, dist
    return best


def _support(a: int, raised: bool, uv: np.ndarray, z: np.ndarray, xyz: np.ndarray,
             settled: list[int], camera: PinholeCamera) -> int | None:
    """The settled block `a` rests on, or None (table, bowl, or nothing found under it). A
    raised block with none within ON_TOLERANCE gets a second chance within LEAN_REACH: it
    rests on something, and a block it hides may be its other support (`_lean`)."""
    best, best_dist = None, ON_TOLERANCE
    near, near_dist = None, LEAN_REACH
    for b in settled:
        if uv[b, 1] <= uv[a, 1]:
            continue
        lifted = camera.unproject_to_height(uv[a:a + 1], [z[b] + BLOCK_SIZE])[0]
        dist = math.dist(lifted[:2], xyz[b, :2])
        inside = abs(z[a] - z[b]) < SAME_LEVEL and math.dist(xyz[a, :2], xyz[b, :2]) < OVERLAP
        if (raised or inside) and dist < best_dist:
            best, best_dist = b, dist
        if raised and dist < near_dist:
            near, near_dist = b, dist
    return best if best is not None else near
