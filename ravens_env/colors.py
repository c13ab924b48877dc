"""Color names and RGB values shared by the simulator, the data generator and the VQA model.

The names, RGB values and the seen/unseen split follow CLIPort's conventions (Shridhar et al.,
2021, `cliport/utils/utils.py`), which take the Tableau 10 palette; they are facts, restated here
so that a CLIPort-trained policy and our data mean the same thing by "red".
"""

from __future__ import annotations

# 0-255 sRGB, CLIPort's values.
COLORS_255: dict[str, tuple[int, int, int]] = {
    "blue": (78, 121, 167),
    "red": (255, 87, 89),
    "green": (89, 169, 79),
    "orange": (242, 142, 43),
    "yellow": (237, 201, 72),
    "purple": (176, 122, 161),
    "pink": (255, 157, 167),
    "cyan": (118, 183, 178),
    "brown": (156, 117, 95),
    "white": (255, 255, 255),
    "gray": (186, 176, 172),
}
ALL_COLORS: tuple[str, ...] = tuple(COLORS_255)
# CLIPort's split: train ("seen") and eval ("unseen") colors overlap in blue, red and green.
SEEN_COLORS: tuple[str, ...] = ("blue", "red", "green", "yellow", "brown", "gray", "cyan")
UNSEEN_COLORS: tuple[str, ...] = ("blue", "red", "green", "orange", "purple", "pink", "white")
COLOR_SPLITS: dict[str, tuple[str, ...]] = {
    "seen": SEEN_COLORS,
    "unseen": UNSEEN_COLORS,
    "all": ALL_COLORS,
}

# A "darker" block keeps its color name but is rendered at this fraction of the base RGB: the
# seed paper's harder variant, where a block must be matched to a bowl of a lighter shade.
DARK_FACTOR = 0.55


def rgba(color: str, shade: str = "", alpha: float = 1.0) -> tuple[float, float, float, float]:
    """RGBA in 0-1 for PyBullet; `shade="dark"` scales RGB by DARK_FACTOR."""
    if color not in COLORS_255:
        raise ValueError(f"unknown color {color!r}; known colors: {', '.join(ALL_COLORS)}")
    if shade not in ("", "dark"):
        raise ValueError(f"unknown shade {shade!r}; use '' or 'dark'")
    factor = DARK_FACTOR if shade == "dark" else 1.0
    r, g, b = (c / 255.0 * factor for c in COLORS_255[color])
    return (r, g, b, alpha)


def colors_for_split(split: str) -> tuple[str, ...]:
    """Colors of a named split ('seen', 'unseen' or 'all')."""
    if split not in COLOR_SPLITS:
        raise ValueError(f"unknown color split {split!r}; use one of {', '.join(COLOR_SPLITS)}")
    return COLOR_SPLITS[split]


# World knowledge about colour names, one source for the tasks that ask for it and the planner
# that reads it (issue 21). Borderline names are left out on purpose: pink, brown, white and
# gray are neither clearly warm nor cool; green is primary for light (RGB), not for paint (RYB).
WARM: tuple[str, ...] = ("red", "orange", "yellow")
COOL: tuple[str, ...] = ("blue", "green", "purple", "cyan")
PRIMARY: tuple[str, ...] = ("red", "yellow", "blue")  # the painter's primaries
RAINBOW: tuple[str, ...] = ("red", "orange", "yellow", "green", "blue", "purple")  # ROYGBV
# country -> (adjective, the flag's stripe colours). Only flags whose every stripe colour is
# one of ours: India's saffron reads as orange, and its navy wheel is an emblem, not a stripe.
FLAGS: dict[str, tuple[str, tuple[str, ...]]] = {
    "France": ("French", ("blue", "white", "red")),
    "Italy": ("Italian", ("green", "white", "red")),
    "Ireland": ("Irish", ("green", "white", "orange")),
    "India": ("Indian", ("orange", "white", "green")),
    "Romania": ("Romanian", ("blue", "yellow", "red")),
    "Netherlands": ("Dutch", ("red", "white", "blue")),
    "Ukraine": ("Ukrainian", ("blue", "yellow")),
    "Poland": ("Polish", ("white", "red")),
}
