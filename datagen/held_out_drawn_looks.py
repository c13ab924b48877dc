"""Held-out looks (issue 27) whose light and meshes are one draw of `random`, taken as they
are, so that nobody chose them with the next change in mind; only their palette and table
are their own. Registered with the others in `held_out_looks.HELD_OUT_DRAWS`.
"""

from __future__ import annotations

import numpy as np

from datagen.held_out_drawn_palettes import (
    BAMBOO_PALETTE,
    BRICK_PALETTE,
    CARPET_PALETTE,
    CONCRETE_PALETTE,
    PARQUET_PALETTE,
    PEBBLES_PALETTE,
    RUBBER_PALETTE,
    TERRACOTTA_PALETTE,
)
from datagen.look_parts import BlockMesh, BowlMesh, Light, Look, Table


def bamboo_look(rng: np.random.Generator) -> Look:
    """The thirteenth held-out look (issue 27, session 32), written after linen was measured and
    before the next change: the bamboo palette (gouache), a bamboo slat top (a texture no
    `random` table has), and a light and meshes taken as they are from one draw of `random`
    (seed 1313, so that nobody chose them with the next change in mind): cool light from the
    front left 33 degrees up with shadows, strongly bevelled blocks, curved bowls of 24 facets.
    Only the arm and the slats' seed vary per image; the jitter camera."""
    light = Light(direction=(0.615, -0.565, 0.551), color=(0.873, 0.936, 1.0), ambient=0.601,
                  diffuse=0.506, specular=0.098, shadow=True)
    table = Table(kind="bamboo", rgb=(205, 180, 120), seed=int(rng.integers(2**31)))
    return Look("bamboo", dict(BAMBOO_PALETTE), (126, 88, 56), light, table,
                BlockMesh(bevel=0.478, scale=0.931),
                BowlMesh(rim=0.0633, height=0.0491, floor=0.047, segments=24, curved=True),
                noise=1.654, blur=1.08, arm=bool(rng.random() < 0.3))


def parquet_look(rng: np.random.Generator) -> Look:
    """The fourteenth held-out look (issue 27, session 33), written after bamboo was measured
    (stage 18 shipped) and before the next change: the parquet palette (coloured pencils), a
    honey-oak basket-weave parquet (a texture no `random` table has), and a light, meshes,
    noise and blur taken as they are from one draw of `random` (seed 1414, so that nobody
    chose them with the next change in mind): slightly cool light from behind on the left 32
    degrees up with shadows, bevelled blocks, straight bowls of 24 facets, heavy sensor
    noise. Only the arm and the parquet's seed vary per image; the jitter camera."""
    light = Light(direction=(-0.789, -0.305, 0.533), color=(0.877, 0.939, 1.0), ambient=0.631,
                  diffuse=0.48, specular=0.023, shadow=True)
    table = Table(kind="parquet", rgb=(196, 154, 104), seed=int(rng.integers(2**31)))
    return Look("parquet", dict(PARQUET_PALETTE), (174, 125, 84), light, table,
                BlockMesh(bevel=0.355, scale=0.936),
                BowlMesh(rim=0.0637, height=0.0339, floor=0.0323, segments=24),
                noise=5.263, blur=0.027, arm=bool(rng.random() < 0.3))


def concrete_look(rng: np.random.Generator) -> Look:
    """The fifteenth held-out look (issue 27, session 35), written after parquet was measured
    (stage 19 shipped) and before the next change (an ImageNet-pretrained context stem): the
    concrete palette (enamel paints), a pale polished concrete floor with pores, aggregate and
    hairline cracks (a texture no `random` table has), and a light, meshes, noise, blur and
    stand taken as they are from one draw of `random` (seed 1515, so that nobody chose them
    with the next change in mind): a warm light from high above, no shadows, flat ambient;
    lightly bevelled blocks; wide curved bowls of 10 facets. Only the arm and the concrete's
    seed vary per image; the jitter camera."""
    light = Light(direction=(0.246, 0.307, 0.919), color=(1.0, 0.909, 0.817), ambient=0.77,
                  diffuse=0.159, specular=0.285, shadow=False)
    table = Table(kind="concrete", rgb=(172, 168, 160), seed=int(rng.integers(2**31)))
    return Look("concrete", dict(CONCRETE_PALETTE), (154, 114, 75), light, table,
                BlockMesh(bevel=0.208, scale=1.015),
                BowlMesh(rim=0.0751, height=0.0455, floor=0.0637, segments=10, curved=True),
                noise=0.922, blur=0.897, arm=bool(rng.random() < 0.3))


def carpet_look(rng: np.random.Generator) -> Look:
    """The sixteenth held-out look (issue 27, session 35), written while stage 20 trained and
    before anything was measured on it, for the change after stage 20: the carpet palette
    (acrylic paints), slate-blue carpet tiles of loop pile (a texture no `random` table has),
    and a light, meshes, noise, blur and stand taken as they are from one draw of `random`
    (seed 1616): cool light from the front 50 degrees up with shadows, dim ambient; lightly
    bevelled blocks 9% smaller; straight bowls of 24 facets. Only the arm and the carpet's
    seed vary per image; the jitter camera."""
    light = Light(direction=(-0.068, -0.647, 0.76), color=(0.815, 0.908, 1.0), ambient=0.463,
                  diffuse=0.324, specular=0.08, shadow=True)
    table = Table(kind="carpet", rgb=(88, 96, 112), seed=int(rng.integers(2**31)))
    return Look("carpet", dict(CARPET_PALETTE), (142, 98, 72), light, table,
                BlockMesh(bevel=0.072, scale=0.906),
                BowlMesh(rim=0.061, height=0.0372, floor=0.0364, segments=24),
                noise=3.065, blur=0.705, arm=bool(rng.random() < 0.3))


def terracotta_look(rng: np.random.Generator) -> Look:
    """The seventeenth held-out look (issue 27, session 36), written before the change after
    stage 20 (stage 22's decals) was measured anywhere: the terracotta palette (oil pastels),
    hexagonal fired-clay tiles in pale grout (a texture and a reddish table no `random` draw
    has), and a light, meshes, noise, blur and stand taken as they are from one draw of
    `random` (seed 1717): near-white light from high on the front right, no shadows; lightly
    bevelled blocks; wide straight bowls of 16 facets. Only the arm and the tiles' seed vary
    per image; the jitter camera."""
    light = Light(direction=(0.413, -0.368, 0.833), color=(0.946, 0.973, 1.0), ambient=0.525,
                  diffuse=0.292, specular=0.214, shadow=False)
    table = Table(kind="terracotta", rgb=(172, 112, 90), seed=int(rng.integers(2**31)))
    return Look("terracotta", dict(TERRACOTTA_PALETTE), (145, 115, 90), light, table,
                BlockMesh(bevel=0.249, scale=1.021),
                BowlMesh(rim=0.0786, height=0.0414, floor=0.0611, segments=16),
                noise=0.861, blur=1.134, arm=bool(rng.random() < 0.3))


def pebbles_look(rng: np.random.Generator) -> Look:
    """The eighteenth held-out look (issue 27, session 36), written after terracotta was
    measured, for the next change (not chosen when it was written): the pebbles palette
    (screen-printing inks), river pebbles about a block's size set in dark mortar (a texture
    no `random` table has), and a light, meshes, noise, blur and stand taken as they are from
    one draw of `random` (seed 1818): slightly warm light from high in front, no shadows;
    strongly bevelled blocks; curved bowls of 24 facets. Only the arm and the pebbles' seed
    vary per image; the jitter camera."""
    light = Light(direction=(0.06, -0.458, 0.887), color=(1.0, 0.948, 0.896), ambient=0.483,
                  diffuse=0.447, specular=0.153, shadow=False)
    table = Table(kind="pebbles", rgb=(150, 140, 125), seed=int(rng.integers(2**31)))
    return Look("pebbles", dict(PEBBLES_PALETTE), (145, 118, 93), light, table,
                BlockMesh(bevel=0.491, scale=1.038),
                BowlMesh(rim=0.0578, height=0.0322, floor=0.0358, segments=24, curved=True),
                noise=0.824, blur=0.609, arm=bool(rng.random() < 0.3))


def brick_look(rng: np.random.Generator) -> Look:
    """The nineteenth held-out look (issue 27, session 37), written after pebbles was read
    and before the next change is chosen: the brick palette (gouache paints), a running bond
    of red-brown bricks in pale mortar (a texture no `random` table has), and a light,
    meshes, noise, blur and stand taken as they are from one draw of `random` (seed 1919):
    warm light from overhead with shadows; lightly bevelled blocks; straight bowls of 32
    facets; heavy sensor noise. Only the arm and the bricks' seed vary per image; the jitter
    camera."""
    light = Light(direction=(-0.159, 0.021, 0.987), color=(1.0, 0.911, 0.822), ambient=0.426,
                  diffuse=0.398, specular=0.159, shadow=True)
    table = Table(kind="brick", rgb=(160, 100, 85), seed=int(rng.integers(2**31)))
    return Look("brick", dict(BRICK_PALETTE), (169, 131, 95), light, table,
                BlockMesh(bevel=0.287, scale=0.992),
                BowlMesh(rim=0.0567, height=0.0319, floor=0.0457, segments=32),
                noise=5.488, blur=0.95, arm=bool(rng.random() < 0.3))


def rubber_look(rng: np.random.Generator) -> Look:
    """The twentieth held-out look (issue 27, session 40), written after stage 24 was read and
    before the next change is chosen: the rubber palette (alcohol-marker inks), a dark gray
    rubber mat studded with round coins in staggered rows (a texture no `random` table has,
    and darker than most), and a light, meshes, noise, blur and stand taken as they are from
    one draw of `random` (seed 2020): slightly cool, mostly ambient light from the front
    right, 49 degrees up, with shadows; strongly bevelled blocks; wide curved bowls of 24
    facets. Only the arm and the mat's seed vary per image; the jitter camera."""
    light = Light(direction=(0.59, 0.274, 0.759), color=(0.966, 0.983, 1.0), ambient=0.622,
                  diffuse=0.211, specular=0.282, shadow=True)
    table = Table(kind="rubber", rgb=(62, 62, 66), seed=int(rng.integers(2**31)))
    return Look("rubber", dict(RUBBER_PALETTE), (145, 97, 67), light, table,
                BlockMesh(bevel=0.392, scale=1.035),
                BowlMesh(rim=0.0782, height=0.0496, floor=0.0321, segments=24, curved=True),
                noise=2.834, blur=1.155, arm=bool(rng.random() < 0.3))
