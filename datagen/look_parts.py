"""The parts of a `Look` (datagen/looks.py): light, table, block and bowl meshes, and the look
itself, as plain frozen dataclasses recorded in the scene JSON.

Why a module of their own: `looks.py` draws looks (ranges, palettes, the variants), this module
only says what a look is, so the renderer and the cards can read one without the other.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from ravens_env.colors import COLORS_255, DARK_FACTOR
from ravens_env.dimensions import BOWL_FLOOR, BOWL_FLOOR_RADIUS, BOWL_HEIGHT, BOWL_RADIUS


@dataclass(frozen=True)
class Light:
    """PyBullet TinyRenderer lighting (`getCameraImage`'s light* arguments and shadows)."""

    direction: tuple[float, float, float] = (0.4, -0.3, 1.0)
    color: tuple[float, float, float] = (1.0, 1.0, 1.0)
    ambient: float = 0.6
    diffuse: float = 0.35
    specular: float = 0.05
    shadow: bool = False


@dataclass(frozen=True)
class Table:
    """The table top: a texture kind, its base colour and the seed of its pattern."""

    kind: str = "plain"  # plain | wood | noise | tiles
    rgb: tuple[int, int, int] = (92, 89, 84)
    seed: int = 0
    # The `clutter` variant's (session 38; 0: none): flat block-coloured squares a block's
    # size or smaller, per square metre, and a mosaic of cells this many texels across
    # (a block is 2.6), each its own shade, laid over the pattern (textures.py).
    decals: float = 0.0
    mosaic: float = 0.0


@dataclass(frozen=True)
class BlockMesh:
    """The block's visual mesh: `bevel` cuts each edge by that fraction of the half size
    (a chamfer); `rounding` > 0 rounds edges and corners instead (the foreign look only)."""

    bevel: float = 0.0
    rounding: float = 0.0
    scale: float = 1.0


@dataclass(frozen=True)
class BowlMesh:
    """The bowl's visual mesh: rim radius and height (m), floor radius (m), facets, and
    whether the wall is a straight cone (`random`) or a curved, hemisphere-like one."""

    rim: float = BOWL_RADIUS
    height: float = BOWL_HEIGHT
    floor: float = BOWL_FLOOR_RADIUS
    segments: int = 32
    curved: bool = False

    def profile(self) -> tuple[tuple[float, float], ...]:
        """(radius, z) outside then inside, as `ravens_env.assets.lathe_mesh` revolves it."""
        wall = 0.005
        if not self.curved:
            return ((0.0, 0.0), (self.floor, 0.0), (self.rim, self.height),
                    (self.rim - wall, self.height), (self.floor - 0.004, BOWL_FLOOR),
                    (0.0, BOWL_FLOOR))
        t = np.linspace(0.0, np.pi / 2, 7)  # quarter ellipse from the floor's edge up to the rim
        outside = [(self.floor + (self.rim - self.floor) * (1 - np.cos(a)),
                    self.height * np.sin(a)) for a in t]
        inside = [(r - wall, max(z, BOWL_FLOOR)) for r, z in reversed(outside)]
        pts = [(0.0, 0.0), *outside, *inside, (0.0, BOWL_FLOOR)]
        return tuple((round(float(r), 5), round(float(z), 5)) for r, z in pts)


@dataclass(frozen=True)
class Look:
    """Everything the renderer varies for one image; recorded as the scene JSON's `look`."""

    variant: str
    colors: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # name -> sRGB
    stand_rgb: tuple[int, int, int] = (156, 117, 95)
    light: Light = Light()
    table: Table = Table()
    block: BlockMesh = BlockMesh()
    bowl: BowlMesh = BowlMesh()
    noise: float = 0.0  # Gaussian pixel noise, std in 0-255 units
    blur: float = 0.0  # Gaussian blur radius, px
    arm: bool = False  # the arm over the table
    exposure: float = 1.0  # the camera's gain on every channel, clipped at white

    def rgb(self, color: str, shade: str = "") -> tuple[int, int, int]:
        """The sRGB of an object of `color` (and shade) in this look."""
        base = self.colors.get(color, COLORS_255[color])
        factor = DARK_FACTOR if shade == "dark" else 1.0
        return tuple(round(c * factor) for c in base)

    def to_json(self) -> dict:
        return asdict(self)
