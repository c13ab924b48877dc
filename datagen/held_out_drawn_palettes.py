"""Palettes of the held-out looks whose light and meshes are one draw of `random`
(held_out_drawn_looks.py): each a different hand's choice inside every colour name's range
(looks.COLOR_RANGES), written before any model saw its look.
"""

from __future__ import annotations

# The bamboo look's palette (session 32): gouache paints, a fourteenth hand's choice inside
# each name's range, written before any model saw the look.
BAMBOO_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (225, 55, 50),
    "orange": (245, 130, 35),
    "yellow": (245, 215, 40),
    "green": (50, 150, 75),
    "cyan": (40, 185, 210),
    "blue": (35, 75, 190),
    "purple": (125, 60, 160),
    "pink": (240, 125, 170),
    "brown": (125, 80, 50),
    "white": (246, 244, 240),
    "gray": (150, 152, 150),
}

# The parquet look's palette (session 33): coloured pencils, a fifteenth hand's choice inside
# each name's range, written before any model saw the look.
PARQUET_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (212, 48, 62),
    "orange": (238, 118, 42),
    "yellow": (236, 202, 58),
    "green": (62, 158, 92),
    "cyan": (62, 188, 202),
    "blue": (48, 92, 186),
    "purple": (136, 72, 166),
    "pink": (236, 142, 176),
    "brown": (116, 74, 46),
    "white": (242, 241, 236),
    "gray": (146, 146, 150),
}

# The concrete look's palette (session 35): enamel paints, a sixteenth hand's choice inside
# each name's range, written before any model saw the look.
CONCRETE_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (205, 30, 40),
    "orange": (240, 140, 30),
    "yellow": (235, 205, 35),
    "green": (40, 140, 70),
    "cyan": (50, 175, 195),
    "blue": (40, 70, 160),
    "purple": (118, 58, 145),
    "pink": (245, 150, 180),
    "brown": (130, 85, 55),
    "white": (244, 243, 238),
    "gray": (160, 160, 156),
}

# The carpet look's palette (session 35): acrylic paints, a seventeenth hand's choice inside
# each name's range, written before any model saw the look.
CARPET_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (220, 40, 45),
    "orange": (250, 125, 20),
    "yellow": (240, 215, 30),
    "green": (70, 160, 60),
    "cyan": (45, 195, 215),
    "blue": (25, 60, 200),
    "purple": (150, 80, 170),
    "pink": (250, 160, 190),
    "brown": (140, 90, 60),
    "white": (248, 248, 245),
    "gray": (175, 175, 170),
}

# The terracotta look's palette (session 36): oil pastels, an eighteenth hand's choice inside
# each name's range, written before any model saw the look.
TERRACOTTA_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (200, 35, 55),
    "orange": (245, 150, 40),
    "yellow": (250, 225, 60),
    "green": (60, 170, 90),
    "cyan": (60, 200, 200),
    "blue": (30, 80, 180),
    "purple": (140, 65, 150),
    "pink": (245, 140, 165),
    "brown": (112, 74, 44),
    "white": (250, 246, 238),
    "gray": (140, 142, 146),
}

# The pebbles look's palette (session 36): screen-printing inks, a nineteenth hand's choice
# inside each name's range, written before any model saw the look.
PEBBLES_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (215, 25, 35),
    "orange": (250, 135, 25),
    "yellow": (252, 220, 20),
    "green": (35, 150, 60),
    "cyan": (30, 180, 205),
    "blue": (20, 65, 175),
    "purple": (130, 50, 150),
    "pink": (250, 150, 180),
    "brown": (135, 88, 52),
    "white": (245, 245, 242),
    "gray": (155, 155, 160),
}

# The brick look's palette (session 37): gouache paints, a twentieth hand's choice inside each
# name's range, written before any model saw the look.
BRICK_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (200, 30, 45),
    "orange": (245, 120, 30),
    "yellow": (245, 205, 40),
    "green": (60, 140, 70),
    "cyan": (40, 170, 190),
    "blue": (35, 75, 160),
    "purple": (125, 55, 150),
    "pink": (240, 140, 170),
    "brown": (120, 80, 50),
    "white": (240, 238, 232),
    "gray": (150, 150, 152),
}

# The rubber look's palette (session 40): alcohol-marker inks, a twenty-first hand's choice
# inside each name's range, written before any model saw the look.
RUBBER_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (225, 35, 50),
    "orange": (245, 120, 30),
    "yellow": (250, 210, 45),
    "green": (50, 160, 70),
    "cyan": (35, 175, 200),
    "blue": (40, 90, 185),
    "purple": (135, 65, 165),
    "pink": (245, 135, 175),
    "brown": (125, 85, 55),
    "white": (243, 243, 240),
    "gray": (145, 148, 150),
}
