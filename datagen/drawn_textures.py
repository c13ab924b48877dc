"""Table textures of the `random` look whose scale and contrast are drawn from the table's
seed: regular patterns (`structured`: grid, checker, stripes; session 22), boards (`planks`)
and woven cloth (`weave`; both session 33, issue 27); and `cells`, the irregular cells of
the pebbles look and of `clutter`'s mosaic (session 38).

Why apart from textures.py: that module holds every look's fixed texture; these are
families `random` draws from, each a pure function of its generator. Why boards and cloth: on the
bamboo look (a dev look since session 32) stage 18 read 156 blocks on the bare table, most on
its slats, 4.7 cm apart; `random`'s finest regular lines (`stripes`) are 5 texels (7.8 cm)
apart, and no `random` table was woven, which linen's cloth (dev) is. Sizes are in texels,
15.6 mm each (`textures.TEXEL_M`).
"""

from __future__ import annotations

import numpy as np
from PIL import Image


def structured(kind: str, rng: np.random.Generator, size: int) -> np.ndarray:
    """(size, size) shade of a regular pattern (issue 27: the foreign look's tiled table was
    read as blocks at its grout crossings, and no randomised table had a regular, high-contrast
    pattern): lines of 1-4 texels, light or dark (`grid`), two-tone squares with or without
    lines (`checker`), or bands along one axis (`stripes`). The sizes below are drawn in "cm"
    of a 4 m top, but the texture spans 16 m (`textures.TEXEL_M`, measured later), so on the
    table they are four times larger: lines every 20-120 cm, squares of 16-100 cm, bands of
    8-60 cm; kept so, since every `random` set was made with them."""
    px_per_cm = size / 400.0  # as if the texture spanned 4 m (it spans 16 m: see above)
    yy, xx = np.mgrid[0:size, 0:size]
    shade = 1.0 + 0.03 * smooth_noise(rng, size, 8)
    sign = 1.0 if rng.random() < 0.5 else -1.0  # light or dark lines / second tone
    if kind == "stripes":
        period = max(2, int(rng.uniform(2.0, 15.0) * px_per_cm))
        along = xx if rng.random() < 0.5 else yy
        band = (along // period) % 2 == 1
        return np.where(band, shade * (1.0 + sign * rng.uniform(0.12, 0.35)), shade)
    low, high = (4.0, 25.0) if kind == "checker" else (5.0, 30.0)
    cell = max(3, int(rng.uniform(low, high) * px_per_cm))
    if kind == "checker":
        second = (yy // cell + xx // cell) % 2 == 1
        shade = np.where(second, shade * (1.0 + sign * rng.uniform(0.1, 0.3)), shade)
        if rng.random() < 0.5:
            return shade.astype(np.float32)
    width = int(rng.integers(1, 5))
    lines = (yy % cell < width) | (xx % cell < width)
    return np.where(lines, shade * (1.0 + (1.0 if rng.random() < 0.5 else -1.0)
                                    * rng.uniform(0.2, 0.5)), shade).astype(np.float32)


def planks(rng: np.random.Generator, size: int) -> np.ndarray:
    """(size, size) shade of boards along one axis (drawn): 2-10 texels (3-16 cm) wide, 8-64
    long with staggered end joints, each board its own shade, a faint grain along it, and
    one-texel seams 10-50% darker."""
    width, length = int(rng.integers(2, 11)), int(rng.integers(8, 65))
    rows = np.arange(size) // width  # the board row of each texel row
    shift = rng.integers(0, length, size // width + 1)[rows][:, None]
    along = np.arange(size)[None, :] + shift  # position along the row, joints staggered
    board = rows[:, None] * (size // length + 2) + along // length
    count = int(board.max()) + 1
    shades = rng.normal(0.0, rng.uniform(0.03, 0.12), count)
    grain = rng.uniform(0.0, 0.05) * np.sin(rng.uniform(0.3, 1.5) * along
                                            + rng.uniform(0.0, 2 * np.pi, count)[board])
    seam = (np.arange(size) % width == 0)[:, None] | (along % length == 0)
    shade = 1.0 + shades[board] + grain - rng.uniform(0.1, 0.5) * seam
    return (shade if rng.random() < 0.5 else shade.T).astype(np.float32)


def weave(rng: np.random.Generator, size: int) -> np.ndarray:
    """(size, size) shade of a woven cloth: threads of uneven shade along both axes (one per
    texel row and column), and a plain weave of squares of 1-3 texels of drawn contrast."""
    spread = rng.uniform(0.01, 0.06)
    rows, cols = rng.normal(0.0, spread, (size, 1)), rng.normal(0.0, spread, (1, size))
    step = int(rng.integers(1, 4))
    yy, xx = np.mgrid[0:size, 0:size] // step
    pattern = np.where((xx + yy) % 2 == 0, 1.0, -1.0) * rng.uniform(0.02, 0.1)
    return (1.0 + rows + cols + pattern).astype(np.float32)


def smooth_noise(rng: np.random.Generator, size: int, cells: int) -> np.ndarray:
    """(size, size) value noise in about [-1, 1]: `cells` x `cells` random values, bilinearly
    upsampled."""
    coarse = rng.uniform(-1.0, 1.0, (cells + 1, cells + 1)).astype(np.float32)
    img = Image.fromarray(coarse, mode="F").resize((size, size), Image.BILINEAR)
    return np.asarray(img, np.float32)


def cells(rng: np.random.Generator, size: int, cell: float
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Irregular cells, one per `cell`-texel square of a jittered grid (its centre drawn in
    the middle 70% of the square), wrapping at the edges: (the cell index of every texel,
    its distance to that cell's centre, its distance to the next nearest centre). Where the
    two distances meet is the joint between two cells (pebbles, a mosaic). ValueError for a
    cell size that is not a whole number of texels from 1 to `size`."""
    if cell != int(cell) or not 1 <= cell <= size:
        raise ValueError(f"cells: cell size {cell!r} must be a whole number of texels from 1 "
                         f"to the texture's {size}")
    cell = int(cell)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    n = size // cell
    centres = (np.mgrid[0:n, 0:n].transpose(1, 2, 0) + rng.uniform(0.15, 0.85, (n, n, 2))) * cell
    near = np.full((2, size, size), np.inf)
    index = np.zeros((size, size), np.int64)
    for dj in (-1, 0, 1):
        for di in (-1, 0, 1):
            j, i = (yy // cell + dj).astype(int) % n, (xx // cell + di).astype(int) % n
            cy, cx = centres[j, i, 0], centres[j, i, 1]
            dist = np.hypot((yy - cy + size / 2) % size - size / 2,
                            (xx - cx + size / 2) % size - size / 2)
            closer = dist < near[0]
            near[1] = np.where(closer, near[0], np.minimum(near[1], dist))
            index = np.where(closer, j * n + i, index)
            near[0] = np.where(closer, dist, near[0])
    return index, near[0], near[1]
