"""The held-out looks' palettes (issue 27): one designer's choice per look, each colour inside
its name's range (`looks.COLOR_RANGES`) and written down before any model saw the look.

Why a module of their own: the palettes are data (RGB per name) that tests read without the
look functions, and they kept `held_out_looks` within the size every datagen module keeps.
"""

from __future__ import annotations

# The palettes of the looks drawn from one `random` seed (held_out_drawn_looks.py) live in
# their own module; re-exported here, where every held-out palette is looked up.
from datagen.held_out_drawn_palettes import (  # noqa: F401
    BAMBOO_PALETTE,
    BRICK_PALETTE,
    CARPET_PALETTE,
    CONCRETE_PALETTE,
    PARQUET_PALETTE,
    PEBBLES_PALETTE,
    RUBBER_PALETTE,
    TERRACOTTA_PALETTE,
)

# The foreign look's palette: the colour most often given each name in the xkcd colour survey
# (Munroe, 2010: the published "most common names" RGB values), one designer's choice unlike
# CLIPort's muted Tableau one. Written down before any model saw it; the colour ranges
# (`looks.COLOR_RANGES`) were widened once after it (to hold the sRGB primaries and
# secondaries, pure yellow and cyan among them, which are also here), and pink and brown stay
# outside theirs on purpose.
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

# The baize look's palette (session 31): board-game pieces in the middle of each name's range,
# an eleventh hand's choice, written before any model saw the look.
BAIZE_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (200, 40, 50),
    "orange": (235, 120, 40),
    "yellow": (250, 210, 60),
    "green": (70, 170, 80),
    "cyan": (60, 190, 200),
    "blue": (40, 90, 190),
    "purple": (140, 80, 170),
    "pink": (240, 130, 160),
    "brown": (130, 85, 55),
    "white": (238, 236, 230),
    "gray": (141, 144, 147),
}

# The slate look's palette (session 31): wax crayons, a twelfth hand's choice inside each
# name's range, written before any model saw the look.
SLATE_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (215, 45, 60),
    "orange": (250, 140, 60),
    "yellow": (250, 225, 90),
    "green": (60, 160, 90),
    "cyan": (50, 200, 220),
    "blue": (50, 100, 200),
    "purple": (150, 90, 180),
    "pink": (245, 150, 185),
    "brown": (140, 90, 60),
    "white": (245, 245, 245),
    "gray": (150, 150, 155),
}

# The steel look's palette (session 30): vivid signal colours on the saturated, bright side of
# each name's range, a tenth hand's choice, written before any model saw the look.
STEEL_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (235, 20, 30),
    "orange": (255, 150, 0),
    "yellow": (255, 235, 0),
    "green": (0, 200, 60),
    "cyan": (0, 215, 235),
    "blue": (20, 60, 240),
    "purple": (150, 40, 190),
    "pink": (255, 150, 185),
    "brown": (150, 100, 60),
    "white": (250, 250, 250),
    "gray": (180, 182, 185),
}

# The linen look's palette (session 32): poster paints, a thirteenth hand's choice inside each
# name's range, written before any model saw the look.
LINEN_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (200, 35, 45),
    "orange": (235, 120, 45),
    "yellow": (240, 205, 60),
    "green": (75, 145, 70),
    "cyan": (70, 180, 195),
    "blue": (55, 85, 175),
    "purple": (125, 75, 150),
    "pink": (230, 135, 165),
    "brown": (120, 80, 50),
    "white": (240, 238, 232),
    "gray": (138, 140, 143),
}
