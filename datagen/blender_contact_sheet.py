"""A contact sheet of the Blender renderer beside PyBullet's render of the same states.

Why: the two renderers must show the same scene (same objects, poses and colors) for the
Blender data to mean what the simulator's ground truth says; a sheet of pairs is the quickest
check a person can make, and `docs/images/blender_contact_sheet.png` is made by it:

    CODEPLAN_BLENDER_PYTHON=... python -m datagen.blender_contact_sheet \
        docs/images/blender_contact_sheet.png

Rows come in pairs: Blender (top) and PyBullet (below) of the same sampled states, 4 per row,
3 states from each of 4 families, with the images' own render streams (as datagen makes them).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from datagen.families import family, shard_seed
from datagen.render_blender import BlenderRenderer
from datagen.render_pybullet import render_state
from datagen.scenes import sample_state

FAMILIES = ("block_bowl", "block_stack", "unseen", "global_table")
PER_FAMILY = 3
COLUMNS = 4
CELL = (320, 240)  # px (width, height) of one image on the sheet


def render_pairs(renderer: BlenderRenderer, seed_offset: int = 0
                 ) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(label, Blender rgb, PyBullet rgb) for PER_FAMILY states of each of FAMILIES."""
    from ravens_env.env import TabletopEnv

    pairs = []
    with TabletopEnv() as env:
        for name in FAMILIES:
            fam = family(name)
            seed = shard_seed(fam, seed_offset, 0)
            for i in range(PER_FAMILY):
                state = sample_state(env, fam, seed, i)
                drawn = renderer.render(env, state, "default", np.random.default_rng([seed, i, 1]))
                bullet = render_state(env, state, "default", np.random.default_rng([seed, i, 1]))
                pairs.append((f"{name} {i}", drawn.rgb, bullet.rgb))
    return pairs


def compose(pairs: list[tuple[str, np.ndarray, np.ndarray]]) -> Image.Image:
    """The sheet: for each row of COLUMNS states, Blender images above PyBullet images."""
    rows = -(-len(pairs) // COLUMNS)
    sheet = Image.new("RGB", (COLUMNS * CELL[0], 2 * rows * CELL[1]), "white")
    draw = ImageDraw.Draw(sheet)
    for k, (label, blender, bullet) in enumerate(pairs):
        x, y = (k % COLUMNS) * CELL[0], (k // COLUMNS) * 2 * CELL[1]
        for dy, rgb, tag in ((0, blender, "blender"), (CELL[1], bullet, "pybullet")):
            sheet.paste(Image.fromarray(rgb).resize(CELL), (x, y + dy))
            draw.text((x + 4, y + dy + 3), f"{tag}: {label}", fill="white")
    return sheet


def main(argv: list[str] | None = None) -> int:
    """Write the sheet to the path given (default docs/images/blender_contact_sheet.png)."""
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0] if args else "docs/images/blender_contact_sheet.png")
    with BlenderRenderer() as renderer:
        sheet = compose(render_pairs(renderer))
    out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(out, optimize=True)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
