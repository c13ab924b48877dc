"""Table-top textures of the looks (datagen/looks.py): what `Table.kind` names, as pixels.

Why apart from the renderer: a texture is a pure function of its `Table` (kind, colour, seed),
tested and cached as a PNG on its own; `render_look` only pastes it on the table.
"""

from __future__ import annotations

import functools

import numpy as np

from datagen.drawn_textures import cells, planks, smooth_noise, structured, weave
from datagen.held_out_textures import HELD_OUT_SHADES
from datagen.look_parts import Table
from ravens_env.colors import DARK_FACTOR

TEXTURE_PX = 1024
# A texel's size on the table as PyBullet maps the texture onto the env's 4 m box: 15.6 mm
# (the texture spans 16 m; measured from above with lines every 16 texels, and tested in
# tests/datagen/test_looks.py). A block is 4 cm: about 2.6 texels.
TEXEL_M = 16.0 / TEXTURE_PX
DRAWN = {"planks": planks, "weave": weave,
         **{kind: functools.partial(structured, kind) for kind in ("grid", "checker", "stripes")}}


def table_texture(table: Table, size: int = TEXTURE_PX) -> np.ndarray:
    """(size, size, 3) uint8: the table's pattern (`_pattern`), then the `clutter`
    variant's mosaic and decals over it, if any, each from a stream of its own (so a table
    without them is drawn exactly as before they existed)."""
    img = _pattern(table, size)
    if table.mosaic > 0:
        img = _mosaic(np.random.default_rng([table.seed, 38]), img, table.mosaic)
    if table.decals > 0:
        _decals(np.random.default_rng([table.seed, 36]), img, table.decals)
    return img


def _mosaic(rng: np.random.Generator, img: np.ndarray, cell: float) -> np.ndarray:
    """`img` laid with irregular cells `cell` texels across (`drawn_textures.cells`), each
    its own shade (0.7-1.3 of the pattern), with dark or pale joints. Why (session 38): a
    table of block-sized stones or tiles, each lit its own way, was read as blocks — pebbles
    gave 721 false blocks on the bare table in 600 images (a dev look since), concrete's
    aggregate 411 of its 498 — and no `random` table is made of pieces a block's size."""
    index, nearest, second = cells(rng, img.shape[0], cell)
    shade = rng.uniform(0.7, 1.3, int(index.max()) + 1)[index]
    joint = 0.55 if rng.random() < 0.5 else 1.3
    shade = np.where(second - nearest < 0.45, joint, shade)
    return np.clip(img * shade[..., None], 0, 255).astype(np.uint8)


def _decals(rng: np.random.Generator, img: np.ndarray, per_m2: float) -> None:
    """Paints into `img` flat squares of a block's size or smaller (2-5 cm across, 0.6-1.6
    texels half-width), turned at random, `per_m2` per square metre, each in a colour drawn
    from a random name's range (looks.COLOR_RANGES), at the darker shade for 3 in 10. Why
    (session 36, stage 22): on the dev looks most false blocks stood on the bare table, where
    small flat spots of a block-like colour (concrete's grey aggregate, slats, chips) were
    read as blocks; `speckle`'s chips are drawn anywhere in RGB, rarely a block's colour.
    Stage 22 (decals on half of `random`'s tables) cut those false blocks by 9-36% on four
    dev looks and gained 0.95 points on terracotta, short of its rule."""
    from datagen.looks import COLOR_RANGES  # here: looks imports the held-out looks' tables

    size = img.shape[0]
    n = int(per_m2 * (size * TEXEL_M) ** 2)
    boxes = list(COLOR_RANGES.values())
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    for cy, cx, r, a in zip(rng.uniform(0, size, n), rng.uniform(0, size, n),
                            rng.uniform(0.6, 1.6, n), rng.uniform(0, np.pi / 2, n), strict=True):
        colour = np.array(boxes[int(rng.integers(len(boxes)))].draw(rng), np.float32)
        colour *= DARK_FACTOR if rng.random() < 0.3 else 1.0
        y0, y1 = max(int(cy - 1.5 * r) - 1, 0), int(cy + 1.5 * r) + 2
        x0, x1 = max(int(cx - 1.5 * r) - 1, 0), int(cx + 1.5 * r) + 2
        dy, dx = yy[y0:y1, x0:x1] - cy, xx[y0:y1, x0:x1] - cx
        u, v = dx * np.cos(a) + dy * np.sin(a), dy * np.cos(a) - dx * np.sin(a)
        img[y0:y1, x0:x1][(np.abs(u) <= r) & (np.abs(v) <= r)] = colour


def _pattern(table: Table, size: int) -> np.ndarray:
    """(size, size, 3) uint8: `plain` (faint mottling), `wood` (grain along one axis),
    `noise` (blotchy stone-like), `grid` / `checker` / `stripes` (regular high-contrast
    patterns of drawn period, width and contrast), `planks` / `weave` (boards, cloth: these
    three in drawn_textures.py), `speckle` (chips of 2-5 drawn colours, cover and size:
    `_speckle`), `tiles` (two-tone squares
    with grout: the foreign look), `felt` (a fine woven cross-hatch: the studio look),
    `granite` (pale, speckled dark, light and rust: the kitchen look), `cork` (warm granules:
    the workshop look), `marble` (pale veins through a dark stone: the gallery look),
    `terrazzo` (stone chips of four colours, 2-5 cm across, about a block's size at most, in
    a pale ground: the lobby look), and the later held-out looks' tables, `leather` (library)
    to `brick` (brick), in held_out_textures.py."""
    rng = np.random.default_rng(table.seed)
    base = np.asarray(table.rgb, np.float32)
    if table.kind == "plain":
        shade = 1.0 + 0.03 * smooth_noise(rng, size, 8)
    elif table.kind == "wood":
        rows = np.arange(size, dtype=np.float32)[:, None] * rng.uniform(0.15, 0.4)
        warp = 6.0 * smooth_noise(rng, size, 4)
        shade = 1.0 + 0.12 * np.sin(rows + warp) + 0.04 * smooth_noise(rng, size, 64)
    elif table.kind == "noise":
        shade = 1.0 + 0.18 * smooth_noise(rng, size, 16) + 0.06 * smooth_noise(rng, size, 96)
    elif table.kind in DRAWN:  # `random`'s patterns of drawn scale (drawn_textures.py)
        shade = DRAWN[table.kind](rng, size)
    elif table.kind == "felt":  # the studio look: a fine woven cross-hatch (held out)
        yy, xx = np.mgrid[0:size, 0:size]
        weave = np.sin((xx + yy) * 1.9) * np.sin((xx - yy) * 1.9)
        shade = (1.0 + 0.10 * weave + 0.05 * smooth_noise(rng, size, 32)).astype(np.float32)
    elif table.kind == "granite":  # the kitchen look: speckles of one texel, 1.6 cm (held out)
        return _granite(rng, base, size)
    elif table.kind == "cork":  # the workshop look: a granular board (held out)
        shade = (1.0 + 0.10 * smooth_noise(rng, size, 160) + 0.06 * smooth_noise(rng, size, 24)
                 - 0.22 * (rng.random((size, size)) < 0.06)).astype(np.float32)
    elif table.kind == "marble":  # the gallery look: pale winding veins (held out)
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
        t = 0.02 * xx + 0.012 * yy + 3.0 * smooth_noise(rng, size, 6)
        veins = np.abs(np.sin(3.0 * t)) < 0.07
        shade = (1.0 + 0.08 * smooth_noise(rng, size, 24) + 1.6 * veins).astype(np.float32)
    elif table.kind == "speckle":  # `random`: chips of drawn colours, cover and size
        return _speckle(rng, base, size)
    elif table.kind == "terrazzo":  # the lobby look: coloured chips (held out)
        return _terrazzo(rng, base, size)
    elif table.kind in HELD_OUT_SHADES:  # library ... brick, rubber (held out)
        shade = HELD_OUT_SHADES[table.kind](rng, size)
    elif table.kind == "tiles":
        cell = size // 40  # 10 cm tiles on the 4 m top
        yy, xx = np.mgrid[0:size, 0:size] // cell
        shade = np.where((yy + xx) % 2 == 0, 1.0, 0.78).astype(np.float32)
        grout = (np.mgrid[0:size, 0:size] % cell < 2).any(axis=0)
        shade[grout] = 1.25
    else:
        raise ValueError(f"unknown table texture {table.kind!r}; kinds: plain, wood, noise, "
                         f"grid, checker, stripes, speckle, planks, weave, tiles, felt, granite, "
                         f"cork, marble, terrazzo, leather, lacquer, brushed, slate, linen, "
                         f"bamboo, parquet, concrete, carpet, terracotta, pebbles, brick, rubber")
    img = base[None, None, :] * shade[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _granite(rng: np.random.Generator, base: np.ndarray, size: int) -> np.ndarray:
    """A pale stone: faint mottling, 5% of texels dark grey, 3% light, 1% rust."""
    img = base[None, None, :] * (1.0 + 0.04 * smooth_noise(rng, size, 24))[..., None]
    draw = rng.random((size, size))
    img[draw < 0.05] *= 0.6
    img[(draw >= 0.05) & (draw < 0.08)] *= 1.15
    img[(draw >= 0.08) & (draw < 0.09)] = (160, 110, 80)
    return np.clip(img, 0, 255).astype(np.uint8)


TERRAZZO_CHIPS = ((168, 84, 60), (96, 100, 104), (132, 150, 110), (240, 236, 226))


def _terrazzo(rng: np.random.Generator, base: np.ndarray, size: int) -> np.ndarray:
    """Irregular stone chips (terracotta, slate, sage, white marble) of radius 0.6-1.6 texels
    (2-5 cm across on the table, a block being 4 cm), about a quarter of the surface, in the
    ground colour `base`."""
    img = base[None, None, :] * (1.0 + 0.03 * smooth_noise(rng, size, 32))[..., None]
    n = int(0.25 * size * size / (np.pi * 1.2**2))  # ~25% cover at a mean radius of 1.2 texels
    _chips(rng, img, np.array(TERRAZZO_CHIPS, np.float32), n, (0.6, 1.6))
    return np.clip(img, 0, 255).astype(np.uint8)


def _speckle(rng: np.random.Generator, base: np.ndarray, size: int) -> np.ndarray:
    """The `random` look's granular tables (session 29): chips of 2-5 colours drawn anywhere
    in RGB, 3-30% of the surface, of drawn radii from 0.4 to 2.5 texels (1.2-8 cm across on
    the table), on the mottled ground `base`. Why: the dev looks' granular tables (kitchen's
    granite speckles, workshop's cork) were read as blocks (3.2 and 1.2 false blocks per image
    for stage 9), and no `random` table had small flat blobs of other colours."""
    img = base[None, None, :] * (1.0 + 0.05 * smooth_noise(rng, size, 32))[..., None]
    colours = rng.uniform(0, 255, (int(rng.integers(2, 6)), 3)).astype(np.float32)
    low, cover = rng.uniform(0.4, 1.0), rng.uniform(0.03, 0.3)
    high = rng.uniform(low + 0.3, 2.5)
    _chips(rng, img, colours, int(cover * size * size / (np.pi * ((low + high) / 2) ** 2)),
           (low, high))
    return np.clip(img, 0, 255).astype(np.uint8)


def _chips(rng: np.random.Generator, img: np.ndarray, colours: np.ndarray, n: int,
           radius: tuple[float, float]) -> None:
    """Paints into `img` (size, size, 3) `n` ellipses of random centre, angle and aspect
    (0.5-1), radius uniform in `radius` texels and colour from `colours`."""
    size = img.shape[0]
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    for cy, cx, r, k, a, e in zip(rng.uniform(0, size, n), rng.uniform(0, size, n),
                                  rng.uniform(*radius, n), rng.integers(len(colours), size=n),
                                  rng.uniform(0, np.pi, n), rng.uniform(0.5, 1.0, n),
                                  strict=True):
        y0, y1, x0, x1 = (max(int(cy - r) - 1, 0), int(cy + r) + 2,
                          max(int(cx - r) - 1, 0), int(cx + r) + 2)
        dy, dx = yy[y0:y1, x0:x1] - cy, xx[y0:y1, x0:x1] - cx
        u, v = dx * np.cos(a) + dy * np.sin(a), (dy * np.cos(a) - dx * np.sin(a)) / e
        img[y0:y1, x0:x1][u * u + v * v <= r * r] = colours[k]
