"""`CliportConfig`: every size and constant of the CLIPort-style actor, apart from its code.

Kept separate from the modules (LeRobot style) so that a checkpoint's `config.json` alone says
how to rebuild the network, and presets can be compared without reading any model code.
Presets: `cpu` is small enough to train on two CPU cores (narrow widths, networks at half
resolution with upsampled logits, query features rotated instead of 36 query-network passes,
correlation by FFT: ~5x cheaper per step than the same widths at full resolution); `gpu` is
CLIPort-like (full resolution, wider, one more scale, the query network run on each rotated
input crop, as CLIPort does). Both correlate by FFT: the same numbers as CLIPort's conv2d with
64x64 kernels (tested), which on this CPU is ~600x slower (6.5 s vs 0.01 s for 4 rotations).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from common.model_family import FamilyConfig

CONFIG_FORMAT = "codeplan-cliport/1"
LANGUAGES = ("minilm", "hash", "clip", "minilm+rgb", "hash+rgb")
QUERY_MODES = ("input", "features")
CORRELATIONS = ("fft", "conv")


@dataclass
class CliportConfig(FamilyConfig):
    """Sizes and constants of the two-stream pick (attention) and place (transport) networks.

    Shapes follow the simulator: a (320, 160) heightmap, row = y, col = x, 3.125 mm/px.
    `to_dict`/`from_dict`/`save`/`load` come from `FamilyConfig` (config.json's "format" tag).
    """

    FAMILY: ClassVar[str] = "CLIPort"
    TAGS: ClassVar[dict] = {"format": CONFIG_FORMAT}

    height: int = 320  # image rows (along world y)
    width: int = 160  # image cols (along world x)
    in_channels: int = 4  # normalised RGB + height
    widths: tuple[int, ...] = (16, 32, 64)  # encoder channels per scale (each halves H, W)
    blocks_per_stage: int = 1  # residual blocks per scale, encoder and decoder alike
    stem_width: int = 16  # channels of the stem (at the network's resolution)
    stride: int = 1  # 1: networks at full resolution (CLIPort); 2: at H/2 x W/2, logits upsampled
    kernel_dim: int = 3  # channels of key/query features that are cross-correlated
    n_rotations: int = 36  # place rotation bins (10 degrees each)
    crop_size: int = 64  # query crop side in pixels, centred on the pick pixel
    min_place_distance_px: float = 8.0  # acting never places within this of the pick (2.5 cm)
    lang_dim: int = 384  # sentence embedding size (all-MiniLM-L6-v2)
    language: str = "minilm"  # minilm | hash (unit tests only) | clip (local weights); "+rgb":
    # lexicon RGB of the named colors appended (lang_dim + 6), see models/color_words.py
    language_path: str = ""  # clip: a local directory with CLIP text weights
    color_match_dim: int = 0  # >0: colour-match maps of this embedding size feed the semantic
    # stream (models/color_match.py; needs a "+rgb" language); 0: CLIPort's language fusion only
    color_prior: bool = False  # also add -gain * distance to the named colour to the pick
    # (first colour) and place (second colour) logits (models/transport.py; needs the maps)
    query_mode: str = "features"  # features: rotate query features | input: rotate input crops
    correlation: str = "fft"  # fft | conv (the same numbers; conv is what CLIPort runs)
    # Input normalisation measured on the simulator's heightmaps (table gray dominates).
    color_mean: tuple[float, float, float] = (0.34, 0.33, 0.32)
    color_std: float = 0.1
    height_std: float = 0.02  # metres -> unit scale
    preset: str = "custom"
    extra: dict = field(default_factory=dict)  # free-form notes carried into config.json

    def __post_init__(self) -> None:
        self.widths = tuple(int(w) for w in self.widths)
        self.color_mean = tuple(float(c) for c in self.color_mean)
        problems = self.problems()
        if problems:
            raise ValueError("bad CliportConfig: " + "; ".join(problems))

    def problems(self) -> list[str]:
        """Why these sizes cannot build a network (empty when they can)."""
        out = []
        if self.stride not in (1, 2):
            out.append(f"stride must be 1 or 2, got {self.stride}")
        scale = 2 ** len(self.widths) * self.stride
        for name, size in (("height", self.height), ("width", self.width),
                           ("crop_size", self.crop_size)):
            if size % scale:
                out.append(f"{name} {size} is not divisible by stride * 2**len(widths) = {scale}")
        if self.crop_size % 2 or self.crop_size < 2:
            out.append(f"crop_size must be even and positive, got {self.crop_size}")
        if not self.widths or min(self.widths) < 1:
            out.append(f"widths must be positive, got {self.widths}")
        if self.n_rotations < 1:
            out.append(f"n_rotations must be >= 1, got {self.n_rotations}")
        if self.color_match_dim < 0:
            out.append(f"color_match_dim must be >= 0, got {self.color_match_dim}")
        if self.color_match_dim and not self.language.endswith("+rgb"):
            out.append(f"color_match_dim needs a '+rgb' language (the named colours' RGB), "
                       f"got {self.language!r}")
        if self.color_prior and not self.color_match_dim:
            out.append("color_prior needs colour-match maps (color_match_dim > 0)")
        for name, value, allowed in (("language", self.language, LANGUAGES),
                                     ("query_mode", self.query_mode, QUERY_MODES),
                                     ("correlation", self.correlation, CORRELATIONS)):
            if value not in allowed:
                out.append(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
        return out

    @property
    def image_shape(self) -> tuple[int, int]:
        """(rows, cols) of the heightmap the network reads."""
        return (self.height, self.width)


PRESETS: dict[str, dict] = {
    "cpu": {"widths": (16, 32, 64), "stem_width": 16, "blocks_per_stage": 1, "stride": 2,
            "query_mode": "features", "correlation": "fft"},
    "gpu": {"widths": (64, 128, 256, 512), "stem_width": 32, "blocks_per_stage": 2, "stride": 1,
            "query_mode": "input", "correlation": "fft"},
}


def preset(name: str, **overrides: object) -> CliportConfig:
    """A named preset (`cpu`, `gpu`), with any field overridden (e.g. `language="hash"`)."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}")
    return CliportConfig(**{**PRESETS[name], "preset": name, **overrides})
