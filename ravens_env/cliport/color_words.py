"""Color words in an instruction, as RGB from a public lexicon: a grounding prior for the actor.

Why: CLIPort generalises to unseen colors through CLIP, whose text and image towers were
aligned on web data. Our sentence encoder (MiniLM) knows words, not pixels, so a policy trained
on seven colors has no way to know what "orange" looks like. Appending the RGB values that the
CSS color lexicon (148 names, from matplotlib) gives for the colors an instruction names lets
the language-gated semantic stream learn *one* map from lexicon RGB to pixels, which extends to
colors it never saw. The lexicon is generic (CSS "blue" is (0, 0, 255), not the simulator's
(78, 121, 167)), so this is prior knowledge, not the test palette leaking in.

"dark X" uses CSS's "darkX" when it exists, else X at DARK_SCALE brightness; "grey" = "gray".
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

MENTIONS = 2  # colors encoded per instruction: the picked object's, then the target's
RGB_DIM = 3 * MENTIONS
DARK_SCALE = 0.55  # brightness of "dark X" when the lexicon has no darkX


@lru_cache(maxsize=1)
def lexicon() -> dict[str, tuple[float, float, float]]:
    """CSS4 color name -> RGB in 0-1 (matplotlib's table)."""
    from matplotlib.colors import CSS4_COLORS, to_rgb

    return {name: tuple(to_rgb(hex_)) for name, hex_ in CSS4_COLORS.items()}


def color_mentions(text: str) -> list[tuple[float, float, float]]:
    """RGB (0-1) of every color word in `text`, in order: 'put the dark red block in the
    pink bowl' -> [CSS darkred, CSS pink]. Words that are not colors are skipped."""
    table = lexicon()
    words = [w.replace("grey", "gray") for w in re.findall(r"[a-z]+", text.lower())]
    out, i = [], 0
    while i < len(words):
        dark = words[i] == "dark" and i + 1 < len(words) and words[i + 1] in table
        if dark:
            name = "dark" + words[i + 1]
            rgb = table.get(name) or tuple(DARK_SCALE * c for c in table[words[i + 1]])
            out.append(rgb)
            i += 2
            continue
        if words[i] in table:
            out.append(table[words[i]])
        i += 1
    return out


def rgb_features(text: str) -> np.ndarray:
    """(RGB_DIM,) float32: the first MENTIONS colors of `text`, each RGB scaled to [-1, 1];
    zeros for a mention that is absent (a step naming no color)."""
    feats = np.zeros(RGB_DIM, np.float32)
    for k, rgb in enumerate(color_mentions(text)[:MENTIONS]):
        feats[3 * k:3 * k + 3] = 2.0 * np.asarray(rgb, np.float32) - 1.0
    return feats
