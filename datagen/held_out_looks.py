"""The looks kept out of every training mixture (issue 27): each is one fixed look, written
down before any model was trained or measured for it, to measure transfer to what the `random`
variant (datagen/looks.py) does not draw.

Why apart from `random`: these are evaluation sets, added one per round — once a look's
failures have been read and `random` changed for them, it is a dev look and a new one is
written first — so they grow while `random` stays one function; each is tested to be nothing
`random` draws (tests/datagen/test_looks.py).
"""

from __future__ import annotations

import numpy as np

from datagen.look_parts import BlockMesh, BowlMesh, Light, Look, Table

# The foreign look's palette: the colour most often given each name in the xkcd colour survey
# (Munroe, 2010: the published "most common names" RGB values), one designer's choice unlike
# CLIPort's muted Tableau one. Written down before any model saw it; the ranges above were
# widened once after it (to hold the sRGB primaries and secondaries, pure yellow and cyan
# among them, which are also here), and pink and brown stay outside theirs on purpose.
FOREIGN_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (229, 0, 0),
    "orange": (249, 115, 6),
    "yellow": (255, 255, 20),
    "green": (21, 176, 26),
    "cyan": (0, 255, 255),
    "blue": (3, 67, 223),
    "purple": (126, 30, 156),
    "pink": (255, 129, 192),
    "brown": (101, 55, 0),
    "white": (255, 255, 255),
    "gray": (146, 149, 145),
}
# The stand is "brown" in every scene but is a wooden plank: its own, narrower range.

def _foreign_look(rng: np.random.Generator) -> Look:
    """One look, held out: the survey palette, a warm low light from the left with shadows, a
    tiled table, rounded blocks and curved bowls (none of which `random` draws). Only the
    arm and the tiles' seed vary per image; the camera is jittered as in `jitter`."""
    light = Light(direction=(-0.6, 0.7, 0.55), color=(1.0, 0.9, 0.75), ambient=0.55,
                  diffuse=0.5, specular=0.3, shadow=True)
    table = Table(kind="tiles", rgb=(150, 140, 120), seed=int(rng.integers(2**31)))
    return Look("foreign", dict(FOREIGN_PALETTE), (120, 85, 50), light, table,
                BlockMesh(rounding=0.3, scale=0.95),
                BowlMesh(rim=0.066, height=0.036, floor=0.03, segments=40, curved=True),
                noise=2.0, blur=0.6, arm=bool(rng.random() < 0.3))


# The studio look's palette: a third designer's choice (hand-picked paint-chip values, none of
# CLIPort's or the xkcd survey's), each inside its name's range. Written down, with the rest of
# the look, before any model was measured on it (session 22).
STUDIO_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (214, 28, 40),
    "orange": (240, 128, 30),
    "yellow": (238, 214, 58),
    "green": (52, 150, 74),
    "cyan": (64, 196, 214),
    "blue": (44, 92, 204),
    "purple": (140, 70, 168),
    "pink": (246, 156, 190),
    "brown": (138, 92, 56),
    "white": (240, 240, 236),
    "gray": (150, 150, 156),
}


def _studio_look(rng: np.random.Generator) -> Look:
    """The second held-out look (issue 27), kept out of every training mixture: the studio
    palette, a cool bright light from the right front without shadows (white balance and
    ambient beyond `random`'s ranges), a dark blue-green felt table (woven texture; more
    chroma than `random`'s tables), blocks chamfered by 45% and 12% larger, shallow wide bowls
    of 10 facets. Only the arm and the felt's seed vary per image; the jitter camera."""
    light = Light(direction=(0.5, 0.6, 0.62), color=(0.82, 0.9, 1.0), ambient=0.8,
                  diffuse=0.3, specular=0.1, shadow=False)
    table = Table(kind="felt", rgb=(34, 62, 74), seed=int(rng.integers(2**31)))
    return Look("studio", dict(STUDIO_PALETTE), (150, 108, 70), light, table,
                BlockMesh(bevel=0.45, scale=1.12),
                BowlMesh(rim=0.072, height=0.025, floor=0.05, segments=10),
                noise=4.0, blur=0.0, arm=bool(rng.random() < 0.3))


# The kitchen look's palette: glossy toy plastic, a fourth hand's choice (session 24), each
# inside its name's range; written down with the rest of the look before anything was
# trained or measured for it.
KITCHEN_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (222, 24, 32),
    "orange": (255, 140, 26),
    "yellow": (250, 222, 40),
    "green": (40, 168, 60),
    "cyan": (30, 180, 200),
    "blue": (30, 70, 190),
    "purple": (150, 70, 180),
    "pink": (250, 170, 200),
    "brown": (125, 85, 55),
    "white": (248, 246, 240),
    "gray": (150, 150, 146),
}


def _kitchen_look(rng: np.random.Generator) -> Look:
    """The third held-out look (issue 27, session 24), written before `random` was widened
    that session and kept out of every training mixture: the kitchen palette, a warm-white
    overhead light from behind-left with shadows and glossy highlights (specular beyond
    `random`'s), a PALE speckled granite worktop (lighter than any `random` table), slightly
    bevelled blocks 10% smaller, deep narrow bowls of 28 facets (deeper than `random`'s).
    Only the arm and the granite's seed vary per image; the jitter camera."""
    light = Light(direction=(-0.3, -0.4, 0.87), color=(1.0, 0.96, 0.88), ambient=0.5,
                  diffuse=0.45, specular=0.45, shadow=True)
    table = Table(kind="granite", rgb=(196, 188, 176), seed=int(rng.integers(2**31)))
    return Look("kitchen", dict(KITCHEN_PALETTE), (140, 100, 64), light, table,
                BlockMesh(bevel=0.08, scale=0.9),
                BowlMesh(rim=0.06, height=0.058, floor=0.026, segments=28),
                noise=1.5, blur=0.5, arm=bool(rng.random() < 0.3))


# The workshop look's palette: matte hobby paint, a fifth hand's choice (session 24, after the
# kitchen look was measured and before any change was made for it), inside each name's range.
WORKSHOP_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (205, 40, 45),
    "orange": (235, 120, 40),
    "yellow": (232, 200, 60),
    "green": (70, 140, 80),
    "cyan": (80, 190, 200),
    "blue": (60, 90, 180),
    "purple": (135, 80, 165),
    "pink": (240, 160, 185),
    "brown": (110, 75, 50),
    "white": (238, 238, 232),
    "gray": (160, 160, 160),
}


def _workshop_look(rng: np.random.Generator) -> Look:
    """The fourth held-out look (issue 27, session 24), written before the next change to
    `random` and kept out of every training mixture: the workshop palette, a low evening sun
    from the front right (27 degrees up, lower than any `random` light) with long shadows, a
    cork-board table (warm, granular, lighter than `random`'s tables), blocks bevelled by 20%,
    hexagonal bowls. Only the arm and the cork's seed vary per image; the jitter camera."""
    light = Light(direction=(0.55, -0.62, 0.42), color=(1.0, 0.95, 0.88), ambient=0.42,
                  diffuse=0.6, specular=0.05, shadow=True)
    table = Table(kind="cork", rgb=(176, 128, 84), seed=int(rng.integers(2**31)))
    return Look("workshop", dict(WORKSHOP_PALETTE), (130, 92, 58), light, table,
                BlockMesh(bevel=0.2, scale=1.0),
                BowlMesh(rim=0.065, height=0.04, floor=0.04, segments=6),
                noise=3.0, blur=0.8, arm=bool(rng.random() < 0.3))


# The gallery look's palette (session 25): soft gallery-print colours, each inside its name's
# range, chosen before any model saw the look.
GALLERY_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (214, 72, 64),
    "orange": (237, 145, 52),
    "yellow": (235, 214, 80),
    "green": (74, 148, 84),
    "cyan": (119, 191, 199),
    "blue": (80, 97, 178),
    "purple": (168, 101, 168),
    "pink": (245, 171, 190),
    "brown": (122, 89, 67),
    "white": (242, 239, 233),
    "gray": (168, 175, 178),
}


def _gallery_look(rng: np.random.Generator) -> Look:
    """The fifth held-out look (issue 27, session 25), written after workshop was measured and
    before the next change to `random`: the gallery palette, a green-tinted fluorescent light
    from overhead (a tint off `random`'s warm-cool axis) with no shadows and ambient 0.9, a
    dark green veined marble table (more saturated than any `random` table), blocks 20% larger
    than `random`'s largest, wide shallow bowls of 20 facets, heavier noise and blur. Only the
    arm and the marble's seed vary per image; the jitter camera."""
    light = Light(direction=(0.1, 0.15, 0.98), color=(0.9, 1.0, 0.88), ambient=0.9,
                  diffuse=0.25, specular=0.1, shadow=False)
    table = Table(kind="marble", rgb=(31, 76, 54), seed=int(rng.integers(2**31)))
    return Look("gallery", dict(GALLERY_PALETTE), (126, 90, 60), light, table,
                BlockMesh(bevel=0.1, scale=1.2),
                BowlMesh(rim=0.08, height=0.03, floor=0.05, segments=20),
                noise=8.0, blur=1.5, arm=bool(rng.random() < 0.3))


# The lobby look's palette (session 29): enamel-sign colours, a seventh hand's choice inside each
# name's range, written before any model saw the look.
LOBBY_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (205, 32, 40),
    "orange": (240, 130, 20),
    "yellow": (245, 205, 30),
    "green": (50, 150, 70),
    "cyan": (40, 185, 210),
    "blue": (30, 80, 160),
    "purple": (130, 65, 160),
    "pink": (235, 140, 170),
    "brown": (125, 80, 52),
    "white": (245, 245, 240),
    "gray": (140, 143, 147),
}


def _lobby_look(rng: np.random.Generator) -> Look:
    """The sixth held-out look (issue 27, session 29), written before stage 10 of the detector
    was measured and before any change made after it: the lobby palette, a daylight from the
    left 50 degrees up with shadows, a terrazzo floor (chips of terracotta, slate, sage and
    white marble, 2-5 cm across, in a cream ground paler than any `random` table), blocks
    bevelled by 30%, curved bowls of 18 facets. Only the arm and the terrazzo's seed vary per
    image; the jitter camera."""
    light = Light(direction=(-0.6, 0.2, 0.77), color=(0.95, 0.97, 1.0), ambient=0.55,
                  diffuse=0.45, specular=0.2, shadow=True)
    table = Table(kind="terrazzo", rgb=(222, 214, 196), seed=int(rng.integers(2**31)))
    return Look("lobby", dict(LOBBY_PALETTE), (134, 96, 62), light, table,
                BlockMesh(bevel=0.3, scale=0.95),
                BowlMesh(rim=0.068, height=0.04, floor=0.04, segments=18, curved=True),
                noise=2.5, blur=0.6, arm=bool(rng.random() < 0.3))


# The library look's palette (session 30): book-cloth colours, an eighth hand's choice inside
# each name's range, written before any model saw the look.
LIBRARY_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (206, 34, 40),
    "orange": (226, 118, 34),
    "yellow": (240, 196, 48),
    "green": (44, 134, 60),
    "cyan": (56, 170, 190),
    "blue": (36, 64, 150),
    "purple": (124, 60, 150),
    "pink": (236, 150, 176),
    "brown": (112, 70, 44),
    "white": (240, 238, 232),
    "gray": (144, 144, 148),
}


def _library_look(rng: np.random.Generator) -> Look:
    """The seventh held-out look (issue 27, session 30), written before the widened detector
    (stage 12) was trained or measured: the library palette, a warm desk-lamp light from the
    front left 45 degrees up with shadows (warmer than `random`'s warmest white balance), an
    oxblood leather desk top (more saturated than any `random` table, and red), blocks
    bevelled by 5% and 12% smaller, curved bowls of 14 facets. Only the arm and the leather's
    seed vary per image; the jitter camera."""
    light = Light(direction=(0.5, 0.5, 0.71), color=(1.0, 0.82, 0.6), ambient=0.5,
                  diffuse=0.55, specular=0.25, shadow=True)
    table = Table(kind="leather", rgb=(92, 30, 34), seed=int(rng.integers(2**31)))
    return Look("library", dict(LIBRARY_PALETTE), (128, 90, 58), light, table,
                BlockMesh(bevel=0.05, scale=0.88),
                BowlMesh(rim=0.066, height=0.042, floor=0.036, segments=14, curved=True),
                noise=2.0, blur=0.4, arm=bool(rng.random() < 0.3))


# The piano look's palette (session 30): macaron pastels, a ninth hand's choice near the pale
# side of each name's range, written before any model saw the look.
PIANO_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (230, 78, 91),
    "orange": (245, 146, 59),
    "yellow": (242, 221, 87),
    "green": (96, 184, 110),
    "cyan": (119, 209, 217),
    "blue": (108, 135, 217),
    "purple": (178, 115, 191),
    "pink": (247, 161, 182),
    "brown": (140, 98, 70),
    "white": (242, 242, 240),
    "gray": (160, 160, 164),
}


def _piano_look(rng: np.random.Generator) -> Look:
    """The eighth held-out look (issue 27, session 30), written after library was measured and
    before the next change to `random`: the piano palette (pastels), a cool white light from
    the front right 60 degrees up with shadows and strong gloss (specular beyond `random`'s),
    a near-black lacquered table (darker than any `random` table), blocks bevelled by 25%,
    heptagonal bowls. Only the arm and the lacquer's seed vary per image; the jitter camera."""
    light = Light(direction=(0.35, -0.35, 0.87), color=(0.92, 0.96, 1.0), ambient=0.45,
                  diffuse=0.5, specular=0.6, shadow=True)
    table = Table(kind="lacquer", rgb=(14, 13, 15), seed=int(rng.integers(2**31)))
    return Look("piano", dict(PIANO_PALETTE), (120, 84, 56), light, table,
                BlockMesh(bevel=0.25, scale=1.0),
                BowlMesh(rim=0.06, height=0.035, floor=0.04, segments=7),
                noise=1.0, blur=0.3, arm=bool(rng.random() < 0.3))


HELD_OUT_DRAWS = {"foreign": _foreign_look, "studio": _studio_look, "kitchen": _kitchen_look,
                  "workshop": _workshop_look, "gallery": _gallery_look,
                  "lobby": _lobby_look, "library": _library_look,
                  "piano": _piano_look}
