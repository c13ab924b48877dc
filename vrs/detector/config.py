"""Configuration of the neuro-symbolic reasoner's object detector (kept apart from the model).

The detector is CenterNet-like: one heatmap per object type at 1/`stride` resolution, and per
type the sub-cell offset of the object's projected centre, its height and its color. Sizes are
chosen for this project's images: a 4 cm block is ~15 px wide at 320x240, and a block stacked
on another is only ~6 px higher in the image (the camera looks down at ~47 degrees). At a
4 px cell the two centres often fall in neighbouring cells and the 3x3 peak search keeps one
of them (measured: 29% of stacked blocks missed), so the output is at 2 px cells.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from common.model_family import FamilyConfig
from ravens_env.colors import ALL_COLORS
from vrs.detector.camera import PinholeCamera

KIND = "ns-vqa"
LEVEL0_Z = 0.02  # metres: centre of a block on the table
ON_STAND_Z = 0.0225  # metres: default `stand_z` (table block centre 0.02, on the stand 0.03)
DECODING = ("threshold", "hidden_threshold", "stand_z")  # fields `tune detector` chooses
LEVEL_STEP = 0.04  # metres: one block (ravens_env.dimensions.BLOCK_SIZE)
TYPES: tuple[str, ...] = ("block", "bowl", "stand")
BACKBONES = ("mobilenet_v2-half",)  # MobileNetV2 on the image at half size


@dataclass(frozen=True)
class DetectorConfig(FamilyConfig):
    """Everything needed to rebuild the detector and decode its output. `to_dict`/`from_dict`/
    `save`/`load` come from `FamilyConfig` (config.json's `kind`, the camera as a nested dict)."""

    FAMILY: ClassVar[str] = "detector"
    TAGS: ClassVar[dict] = {"kind": KIND}
    NESTED: ClassVar[dict] = {"camera": PinholeCamera}

    width: int = 320  # input image size, px; other sizes are resized to it
    height: int = 240
    stride: int = 2  # output cell size, px
    channels: tuple[int, ...] = (16, 32, 48, 64)  # encoder widths at strides 2, 4, 8, 16
    head_channels: int = 32
    types: tuple[str, ...] = TYPES
    colors: tuple[str, ...] = ALL_COLORS
    sigma_cells: tuple[float, ...] = (1.5, 2.5, 2.5)  # heatmap spread per type, in cells
    threshold: float = 0.3  # detection score to keep a peak
    z_scale: float = 10.0  # the z head predicts height (m) times this
    levels: int = 0  # support-level classes per type (0: no level head; see `level_of`)
    level_heat: bool = False  # blocks get one heatmap per level instead of level logits
    hidden_threshold: float | None = 0.05  # heat for a block hidden under a raised one
    # (`vrs/detector/hidden.py`; None: off)
    stand_z: float = ON_STAND_Z  # metres: a table-level block predicted above this sits on
    # the stand (`vrs/detector/stand.py`)
    backbone: str | None = None  # an ImageNet context stem added to the encoder
    # (`vrs/detector/backbone.py`; BACKBONES); None: none, the network of stages 1-19
    camera: PinholeCamera = field(default_factory=PinholeCamera)

    def __post_init__(self) -> None:
        # Detections are in input pixels and are cast through the camera: the two must agree.
        if (self.camera.width, self.camera.height) != (self.width, self.height):
            raise ValueError(f"the camera is {self.camera.width}x{self.camera.height} px but the "
                             f"detector's input is {self.width}x{self.height}; they must match")
        if not LEVEL0_Z - 0.01 < self.stand_z < LEVEL0_Z + 0.01:
            raise ValueError(f"stand_z must be within 1 cm of a table block's centre "
                             f"({LEVEL0_Z} m), got {self.stand_z}")
        if not 0 < self.threshold < 1:
            raise ValueError(f"threshold must be in (0, 1), got {self.threshold}")
        if self.hidden_threshold is not None and not 0 < self.hidden_threshold < 1:
            raise ValueError(f"hidden_threshold must be in (0, 1) or null, got "
                             f"{self.hidden_threshold}")
        if self.backbone is not None and self.backbone not in BACKBONES:
            raise ValueError(f"unknown backbone {self.backbone!r}; known: {', '.join(BACKBONES)}")
        if self.levels < 0:
            raise ValueError(f"levels must be >= 0, got {self.levels}")
        if self.level_heat and self.levels < 2:
            raise ValueError(f"level_heat needs levels >= 2, got {self.levels}")

    @property
    def grid(self) -> tuple[int, int]:
        """(rows, cols) of the output maps."""
        return self.height // self.stride, self.width // self.stride

    def head_layout(self) -> dict[str, slice]:
        """Channel slices of the output: heat (T), offset (2T), z (T), color (C*T), then
        either level logits (L*T) or, with `level_heat`, the heatmaps of blocks raised 1..L-1
        levels ("stack_heat"); new parts come last, so a model without them is a prefix."""
        t, c, n = len(self.types), len(self.colors), self.levels
        end = 4 * t + c * t
        logits = 0 if self.level_heat else n * t
        extra = n - 1 if self.level_heat else 0
        return {"heat": slice(0, t), "offset": slice(t, 3 * t), "z": slice(3 * t, 4 * t),
                "color": slice(4 * t, end), "level": slice(end, end + logits),
                "stack_heat": slice(end + logits, end + logits + extra)}

    @property
    def out_channels(self) -> int:
        return self.head_layout()["stack_heat"].stop

    def heat_channels(self) -> list[tuple[int, int]]:
        """(type index, support level) of each heatmap, in the order `heatmaps` stacks them:
        one per type (level 0 for blocks when `level_heat`), then blocks raised 1..L-1.

        Why per-level block heatmaps: a block on another projects ~6 px above it, and with one
        block heatmap the upper peak swallows the lower (measured: most missed blocks of the
        validation scenes had a strong response at their centre but no peak). In separate
        channels the two peaks do not compete, and the channel is the support level."""
        out = [(i, 0) for i in range(len(self.types))]
        if self.level_heat:
            block = self.types.index("block")
            out += [(block, k) for k in range(1, self.levels)]
        return out

    def heat_channel(self, type_index: int, level: int) -> int:
        """Index of the heatmap an object of this type and support level peaks on (level 0's
        when its type has no map per level)."""
        channels = self.heat_channels()
        key = (type_index, level)
        return channels.index(key) if key in channels else type_index

    @property
    def has_level_logits(self) -> bool:
        """Whether the head classifies support levels (levels > 0 without `level_heat`)."""
        return self.levels > 0 and not self.level_heat

    def level_of(self, z: float) -> int:
        """Support level of an object whose centre is `z` metres high: 0 on the table, in a
        bowl or on the stand, k when k blocks lie under it (centres 4 cm apart)."""
        return int(min(max(round((z - LEVEL0_Z) / LEVEL_STEP), 0), max(self.levels - 1, 0)))
