"""Shades of the held-out looks' tables (issue 27): one function per look, each a texture no
`random` table draws, so that a look's figure measures transfer to a table never trained on.
`textures.table_texture` multiplies the table's colour by the shade these return: `leather`
(a saturated dark hide with creases and worn patches: the library look), `lacquer` (near-black
gloss with faint streaks: piano), `brushed` (streaked metal: steel), `slate` (cleft layers:
slate), `linen` (a coarse woven cloth: linen), `bamboo` (slats with gaps: bamboo), `parquet`
(a basket-weave of oak slats: parquet), `concrete` (polished concrete with pores, aggregate
and hairline cracks: concrete), `carpet` (loop-pile carpet tiles, each laid a quarter turn
from its neighbours: carpet), `terracotta` (hexagonal fired-clay tiles in pale grout:
terracotta), `pebbles` (rounded river pebbles set in dark mortar: pebbles), `brick` (a
running bond of bricks in pale mortar: brick), `rubber` (a rubber mat studded with round
coins in staggered rows: rubber).
"""

from __future__ import annotations

import numpy as np

from datagen.drawn_textures import cells, smooth_noise


def _leather(rng: np.random.Generator, size: int) -> np.ndarray:
    """Shade of a hide: thin dark creases, fine grain and broad worn patches."""
    creases = np.abs(smooth_noise(rng, size, 48)) < 0.04
    return (1.0 + 0.06 * smooth_noise(rng, size, 96) + 0.18 * smooth_noise(rng, size, 5)
            - 0.25 * creases).astype(np.float32)


def _lacquer(rng: np.random.Generator, size: int) -> np.ndarray:
    """Shade of a polished top: faint streaks 16 texels wide along one axis."""
    rows = np.repeat(rng.uniform(-1.0, 1.0, (size // 16, 1)), 16, axis=0)[:size]
    return (1.0 + 0.08 * rows + 0.05 * smooth_noise(rng, size, 12)).astype(np.float32)


def _brushed(rng: np.random.Generator, size: int) -> np.ndarray:
    """Shade of brushed metal: a streak per texel row (along one axis), a broad sheen, and a
    few long scratches."""
    rows = rng.normal(0.0, 0.05, (size, 1))
    scratches = np.zeros((size, size), np.float32)
    for row in rng.integers(0, size, 12):
        scratches[row, :] = 0.15
    return (1.0 + rows + 0.1 * smooth_noise(rng, size, 3) + scratches).astype(np.float32)


def _slate(rng: np.random.Generator, size: int) -> np.ndarray:
    """Shade of cleft slate: layers about a block wide along one axis, gently warped, a
    fine grain, and pale mineral streaks along the layers."""
    profile = smooth_noise(rng, size, 40)[:, 0]  # one value per texel row
    warp = (size / 50 * smooth_noise(rng, size, 3)).astype(int)  # about 30 cm at most
    layers = profile[(np.arange(size)[:, None] + warp) % size]
    streaks = np.abs(layers - rng.uniform(-0.5, 0.5)) < 0.015
    return (1.0 + 0.1 * layers + 0.03 * smooth_noise(rng, size, 200)
            + 0.3 * streaks).astype(np.float32)


def _linen(rng: np.random.Generator, size: int) -> np.ndarray:
    """Shade of a coarse linen cloth: threads of uneven thickness along both axes (a shade per
    texel row and per column), a one-texel plain weave, and a few thick slubs."""
    rows = rng.normal(0.0, 0.04, (size, 1))
    cols = rng.normal(0.0, 0.04, (1, size))
    yy, xx = np.mgrid[0:size, 0:size]
    weave = np.where((xx + yy) % 2 == 0, 0.03, -0.03)
    slubs = np.zeros((size, size), np.float32)
    for row in rng.integers(0, size, 40):
        start = int(rng.integers(0, size))
        slubs[row, start:start + int(rng.integers(8, 40))] = 0.12
    return (1.0 + rows + cols + weave + slubs).astype(np.float32)


def _bamboo(rng: np.random.Generator, size: int) -> np.ndarray:
    """Shade of a bamboo slat top: slats two texels wide along one axis, each its own shade,
    dark one-texel gaps between them, and a pale node across each slat now and then."""
    slat = np.arange(size) // 3  # two texels of slat and one of gap per 3
    shade = np.repeat(rng.uniform(0.9, 1.1, size // 3 + 1)[slat][None, :], size, axis=0)
    shade[:, np.arange(size) % 3 == 2] = 0.55
    for col in range(0, size, 3):
        for row in rng.integers(0, size, 6):
            shade[row, col:col + 2] = 1.2
    return shade.astype(np.float32)


def _parquet(rng: np.random.Generator, size: int) -> np.ndarray:
    """Shade of a basket-weave oak parquet: squares of 20 texels (31 cm), each four slats 5
    texels (8 cm) wide, turned a quarter between neighbouring squares; each slat its own
    shade with a faint grain along it, and dark one-texel seams between slats and squares."""
    cell, slat = 20, 5
    yy, xx = np.mgrid[0:size, 0:size]
    turned = (yy // cell + xx // cell) % 2 == 1
    across = np.where(turned, xx % cell, yy % cell)  # the position across a square's slats
    along = np.where(turned, yy, xx)
    index = ((yy // cell) * (size // cell + 1) + xx // cell) * (cell // slat) + across // slat
    shades = rng.normal(0.0, 0.07, int(index.max()) + 1)
    phases = rng.uniform(0.0, 2 * np.pi, int(index.max()) + 1)
    seam = (across % slat == 0) | (along % cell == 0)
    return (1.0 + shades[index] + 0.04 * np.sin(0.9 * along + phases[index])
            - 0.25 * seam).astype(np.float32)


def _concrete(rng: np.random.Generator, size: int) -> np.ndarray:
    """Shade of polished concrete: broad cloudy mottling, dark pores of one texel (4%),
    aggregate flecks lighter and darker (3%), and a few hairline cracks that wander."""
    shade = 1.0 + 0.07 * smooth_noise(rng, size, 4) + 0.04 * smooth_noise(rng, size, 40)
    draw = rng.random((size, size))
    shade = shade - 0.3 * (draw < 0.04) + 0.15 * ((draw >= 0.04) & (draw < 0.055)) \
        - 0.15 * ((draw >= 0.055) & (draw < 0.07))
    for _ in range(6):
        row, col = (float(v) for v in rng.uniform(0, size, 2))
        heading = rng.uniform(0, 2 * np.pi)
        for _ in range(int(rng.integers(size // 8, size // 3))):
            heading += rng.normal(0.0, 0.25)
            row, col = (row + np.sin(heading)) % size, (col + np.cos(heading)) % size
            shade[int(row), int(col)] -= 0.25
    return shade.astype(np.float32)


def _carpet(rng: np.random.Generator, size: int) -> np.ndarray:
    """Shade of loop-pile carpet tiles 32 texels (50 cm) square: rows of loops one texel apart
    along the pile, each tile laid a quarter turn from its neighbours (so it reads a shade
    lighter or darker), a speckle of darker tufts, and a thin seam between tiles."""
    tile = 32
    yy, xx = np.mgrid[0:size, 0:size]
    turned = (yy // tile + xx // tile) % 2 == 1
    loops = np.where(turned, xx % 2, yy % 2) * 0.06
    shade = 1.0 + np.where(turned, 0.06, -0.06) + loops + rng.normal(0.0, 0.05, (size, size))
    shade -= 0.2 * (rng.random((size, size)) < 0.05)
    seam = (yy % tile == 0) | (xx % tile == 0)
    return (shade - 0.15 * seam).astype(np.float32)


def _terracotta(rng: np.random.Generator, size: int) -> np.ndarray:
    """Shade of hexagonal terracotta tiles 13 texels (20 cm) across: each tile fired a little
    lighter or darker than the next, clay mottled inside it, and grout about a texel wide that
    reads much lighter than the clay."""
    width, yy, xx = 13.0, *np.mgrid[0:size, 0:size].astype(np.float64)
    height = width * np.sqrt(3.0) / 2.0
    near = np.full((2, size, size), np.inf)  # distances to the nearest two tile centres
    tile = np.zeros((size, size), np.int64)
    for dj in (-1, 0, 1):
        row = np.round(yy / height) + dj
        shift = (row % 2) * width / 2.0
        for di in (-1, 0, 1):
            col = np.round((xx - shift) / width) + di
            dist = np.hypot(xx - (col * width + shift), yy - row * height)
            closer = dist < near[0]
            near[1] = np.where(closer, near[0], np.minimum(near[1], dist))
            tile = np.where(closer, (row * 4099 + col).astype(np.int64), tile)
            near[0] = np.where(closer, dist, near[0])
    fired = rng.normal(0.0, 0.07, 8192)[tile % 8192]
    shade = 1.0 + fired + 0.06 * smooth_noise(rng, size, 3) + rng.normal(0.0, 0.03, (size, size))
    grout = near[1] - near[0] < 1.1
    return np.where(grout, 1.3, shade).astype(np.float32)


def _pebbles(rng: np.random.Generator, size: int) -> np.ndarray:
    """Shade of river pebbles set in dark mortar: one stone per 4-texel (6 cm) cell, its centre
    anywhere in the cell (so stones 3-10 cm across, about a block's size), each its own shade,
    lit a little brighter at its middle, and the mortar showing where two stones meet."""
    cell = 4
    n = size // cell
    stone, nearest, second = cells(rng, size, cell)
    shade = rng.uniform(0.7, 1.3, n * n)[stone] * (1.1 - 0.05 * nearest)
    mortar = second - nearest < 0.45
    return np.where(mortar, 0.5, shade).astype(np.float32)


def _brick(rng: np.random.Generator, size: int) -> np.ndarray:
    """Shade of a running bond of bricks in pale mortar: bricks 14 x 4 texels (21 x 6 cm,
    a real brick's face) with a 1-texel joint, every other course shifted half a brick, each
    brick its own shade with a fine clay grain."""
    yy, xx = np.mgrid[0:size, 0:size]
    course = yy // 4
    along = xx + (course % 2) * 7
    brick = course * (size // 14 + 2) + along // 14
    shade = rng.uniform(0.8, 1.2, (size // 4 + 1) * (size // 14 + 2))[brick]
    shade = shade * rng.uniform(0.95, 1.05, (size, size))
    joint = (yy % 4 == 3) | (along % 14 == 13)
    return np.where(joint, 1.35, shade).astype(np.float32)


def _rubber(rng: np.random.Generator, size: int) -> np.ndarray:
    """Shade of a coin-pattern rubber mat: round raised coins 4 texels apart (6 cm), every
    other row shifted half a pitch, their tops catching the light and their rims in shadow,
    on a ground with a fine grain; where the grid falls is the mat's own (seeded)."""
    pitch = 4
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) + rng.uniform(0, pitch, 2)[:, None, None]
    row = np.floor(yy / pitch)
    dx = (xx + (row % 2) * pitch / 2) % pitch - pitch / 2
    dy = yy % pitch - pitch / 2
    r = np.hypot(dx, dy)
    shade = 1.0 + 0.05 * smooth_noise(rng, size, 48)
    shade = np.where(r < 1.6, 0.75, shade)  # the rim's shadow
    return np.where(r < 1.0, 1.4, shade).astype(np.float32)  # the lit top


HELD_OUT_SHADES = {"leather": _leather, "lacquer": _lacquer, "brushed": _brushed,
                   "slate": _slate, "linen": _linen, "bamboo": _bamboo,
                   "parquet": _parquet, "concrete": _concrete, "carpet": _carpet,
                   "terracotta": _terracotta, "pebbles": _pebbles, "brick": _brick,
                   "rubber": _rubber}
