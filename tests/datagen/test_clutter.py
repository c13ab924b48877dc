"""The `clutter` variant (issue 27, session 38): `random`'s look with block-coloured decals and
a mosaic of block-sized cells over its table, drawn so that `random` at the same seed is its
control."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from datagen.look_parts import Table
from datagen.looks import COLOR_RANGES, LOOK_VARIANTS, draw_look
from datagen.textures import TEXEL_M, table_texture
from runtime.eval.held_out import HELD_OUT_LOOKS


def test_clutter_is_random_at_the_same_seed_but_for_its_table_clutter():
    for seed in range(40):
        plain = draw_look("random", np.random.default_rng(seed))
        cluttered = draw_look("clutter", np.random.default_rng(seed))
        assert cluttered.variant == "clutter" and plain.table.decals == plain.table.mosaic == 0
        assert replace(cluttered, variant="random",
                       table=replace(cluttered.table, decals=0.0, mosaic=0.0)) == plain


def test_clutter_puts_decals_on_every_table_and_a_mosaic_on_about_half():
    tables = [draw_look("clutter", np.random.default_rng(i)).table for i in range(200)]
    assert all(4.0 <= t.decals <= 30.0 for t in tables)
    mosaics = [t.mosaic for t in tables if t.mosaic > 0]
    assert 70 < len(mosaics) < 130 and set(mosaics) == {3.0, 4.0, 5.0, 6.0}


def test_clutter_is_a_training_look_not_a_held_out_one():
    assert "clutter" in LOOK_VARIANTS and "clutter" not in HELD_OUT_LOOKS


def test_decals_are_block_coloured_squares_on_a_seeded_stream_of_their_own():
    bare = Table(kind="plain", rgb=(90, 90, 90), seed=5)
    a = table_texture(bare, 256)
    b = table_texture(replace(bare, decals=30.0), 256)
    assert np.array_equal(b, table_texture(replace(bare, decals=30.0), 256))  # seeded
    changed = (a != b).any(axis=2)
    assert np.array_equal(a[~changed], b[~changed])  # the pattern itself is untouched
    area = (256 * TEXEL_M) ** 2  # about 30 per square metre of 1-3 texel squares
    assert 0.3 * 30 * area < changed.sum() < 8 * 30 * area
    painted = b[changed].astype(int)
    named = sum(any(box.contains(tuple(p)) for box in COLOR_RANGES.values()) for p in painted)
    assert named > 0.5 * len(painted)  # the rest: the darker shade, outside the ranges


def test_a_mosaic_lays_cells_of_their_own_shade_with_joints_over_the_pattern():
    bare = Table(kind="plain", rgb=(120, 110, 100), seed=9)
    a = table_texture(bare, 240).astype(float)
    b = table_texture(replace(bare, mosaic=4.0), 240).astype(float)
    assert np.array_equal(b, table_texture(replace(bare, mosaic=4.0), 240))  # seeded
    ratio = b[..., 0] / a[..., 0]
    joint = np.isclose(ratio, 0.55, atol=0.02) | np.isclose(ratio, 1.3, atol=0.02)
    assert 0.1 < joint.mean() < 0.4  # thin joints around cells 4 texels (6 cm) across
    cells = ratio[~joint]
    assert cells.min() >= 0.69 and cells.max() <= 1.31 and cells.std() > 0.1
    # neither the mosaic nor the decals touch a table that has none (drawn as before them)
    assert np.array_equal(a, table_texture(replace(bare, mosaic=0.0, decals=0.0), 240))


@pytest.mark.parametrize("cell", [2.5, 500.0])
def test_a_mosaic_of_a_cell_size_it_cannot_lay_is_refused_by_name(cell):
    with pytest.raises(ValueError, match="cell size"):
        table_texture(Table(kind="plain", seed=1, mosaic=cell), 256)
