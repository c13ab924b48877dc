"""Configuration of the OFA-style VQA model, kept apart from the model so it can be saved alone.

Why a frozen dataclass with presets: a checkpoint must rebuild exactly the network that wrote
it, so every size lives here and goes into config.json; the presets name the two sizes we use.

  tiny  2.8 M parameters, trainable on this 2-core CPU: the image is resized to 120x160 and a
        4-stage ResNet stem (stride 16) turns it into an 8x10 grid of patch tokens; d_model
        160, 4 encoder + 2 decoder layers. 80 patch tokens, not 300 (15x20 at stride 8): the
        encoder's cost grows with the token count and was measured 3-4x slower at 300.
  detector  the multi-task model (`codeplan train vqa --tasks pretrain` then VQA): the image
        stem is the project's detector encoder (`vrs.detector.model.encoder_stages`: a 2x2
        patchify stem and stride-2 stages of widths 16, 32, 48, 64 on the full 240x320 image,
        initialised from checkpoints/detector-tiny, as OFA starts from a pretrained ResNet)
        plus one new stride-2 stage of 128, so 8x10 = 80 patch tokens (the CPU latency
        budget), each also given its own pixels pooled to 8x8 (`patch_pixels`: a first run
        without them, 1.1 M multi-task samples on a GPU, counted perfectly but named colours
        at chance -- the detector's deep features keep little colour); d_model 192,
        4 encoder + 3 decoder layers, 6 heads. The shipped `ofa-custom` is this preset with
        `token_stride` 16 (15x20 = 300 tokens; `codeplan ofa regrid`): +15.6 points on
        Table 1 for ~1.6x the CPU time per question (docs/RESULTS.md).
  base  OFA-base's transformer (Wang et al., 2022): d_model 768, 6 encoder + 6 decoder layers,
        12 heads, FFN 3072, over 15x20 patch tokens from the full 240x320 image (stride 16);
        ~110 M parameters, for a GPU.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import ClassVar

from common.model_family import FamilyConfig

KIND = "ofa-vqa"
FORMAT = 1
STEMS = ("resnet", "detector")
DETECTOR_STAGES = 4  # the detector encoder's stages a "detector" stem takes over


@dataclass(frozen=True)
class OfaConfig(FamilyConfig):
    """Every size of the network; `vocab_size` is the tokenizer's (set when the model is made).
    `to_dict`/`from_dict`/`save`/`load` come from `FamilyConfig`: config.json's `kind` (what
    `vrs.loading` dispatches on) and `format` tags, then the fields."""

    FAMILY: ClassVar[str] = "ofa-vqa"
    TAGS: ClassVar[dict] = {"kind": KIND, "format": FORMAT}

    preset: str = "tiny"
    image_height: int = 120  # model input, px; other images are resized to it
    image_width: int = 160
    stem: str = "resnet"  # "resnet": conv + residual block per stage, GroupNorm; "detector":
    # the detector's encoder stages (BatchNorm, kept frozen) then plain stride-2 stages
    stem_channels: tuple[int, ...] = (16, 32, 64, 128)  # one stage each, stride 2 ...
    token_stride: int = 0  # ... until the tokens are this many input pixels apart; the stages
    # after that keep the resolution (stride 1). 0: every stage halves. 16 on the `detector`
    # stem gives 15x20 = 300 tokens on 240x320 instead of 80: at stride 32 a block and the
    # bowl it sits in share one token, and "what colour is the block in the X bowl?" cannot
    # be read from one token that holds both
    coord_channels: bool = True  # append x, y in [-1, 1] to the RGB input (CoordConv)
    patch_pixels: int = 0  # > 0: each patch token also gets a linear embedding of its own
    # pixels, average-pooled to patch_pixels x patch_pixels (ViT's patch embedding beside the
    # CNN, as in ViT-hybrid): colour reaches the encoder directly, not through a deep stem
    patch_labels: int = 0  # > 0: a linear head on the image tokens names which objects (colour x
    # type, `vrs.ofa.patches.PATCH_CLASSES`) each patch holds -- an auxiliary training loss
    # (`--patch-loss`) that ties colour to place in the tokens; unused when answering
    prune_below: float = 0.0  # > 0: the encoder reads only the image tokens the patch head
    # gives some object a probability above this (grown by `prune_grow` tokens around each),
    # fewer tokens for a CPU answer; 0 reads them all. The encoder must be trained with it: a
    # dev probe dropping tokens from a model trained on all of them lost 20 points
    prune_grow: int = 1
    d_model: int = 160
    encoder_layers: int = 4
    decoder_layers: int = 2
    heads: int = 4
    ffn_mult: int = 4  # FFN width = ffn_mult * d_model
    dropout: float = 0.0
    vocab_size: int = 0
    max_question_tokens: int = 32  # longest question the encoder accepts, tokens
    max_answer_tokens: int = 80  # longest answer (+ BOS / EOS) the decoder accepts, tokens

    def __post_init__(self) -> None:
        if self.d_model % self.heads:
            raise ValueError(f"d_model {self.d_model} is not divisible by heads {self.heads}")
        if self.patch_pixels < 0 or (self.patch_pixels and self.patch_stride % self.patch_pixels):
            raise ValueError(f"patch_pixels {self.patch_pixels} must divide the patch stride "
                             f"{self.patch_stride}")
        if self.patch_labels < 0:
            raise ValueError(f"patch_labels must be >= 0, got {self.patch_labels}")
        if not 0.0 <= self.prune_below < 1.0:
            raise ValueError(f"prune_below {self.prune_below} must be in [0, 1)")
        if self.prune_grow < 0:
            raise ValueError(f"prune_grow {self.prune_grow} must be >= 0")
        if self.prune_below and not self.patch_labels:
            raise ValueError("prune_below needs the patch head (patch_labels > 0): it is what "
                             "says which image tokens hold an object")
        full = 2 ** len(self.stem_channels)
        if self.token_stride and (self.token_stride & (self.token_stride - 1)
                                  or not 2 <= self.token_stride <= full):
            raise ValueError(f"token_stride {self.token_stride} must be a power of two "
                             f"between 2 and {full} (one halving per stem stage)")
        if self.stem == "detector" and 0 < self.token_stride < 2 ** DETECTOR_STAGES:
            raise ValueError(f"token_stride {self.token_stride}: the detector stem's first "
                             f"{DETECTOR_STAGES} stages already reach stride "
                             f"{2 ** DETECTOR_STAGES}")
        if self.stem not in STEMS:
            raise ValueError(f"unknown stem {self.stem!r}; stems: {', '.join(STEMS)}")

    @property
    def grid(self) -> tuple[int, int]:
        """(rows, cols) of image patch tokens: each stride-2 conv (pad 1) rounds up."""
        h, w = self.image_height, self.image_width
        for stride in self.stage_strides:
            if stride == 2:
                h, w = (h + 1) // 2, (w + 1) // 2
        return h, w

    @property
    def stage_strides(self) -> tuple[int, ...]:
        """Each stem stage's stride: 2 until `token_stride` is reached, then 1."""
        limit = self.token_stride or 2 ** len(self.stem_channels)
        return tuple(2 if 2 ** (i + 1) <= limit else 1 for i in range(len(self.stem_channels)))

    @property
    def patch_stride(self) -> int:
        """Input pixels per patch token along each side (the stride-2 stages' product)."""
        return 2 ** self.stage_strides.count(2)

    @property
    def image_tokens(self) -> int:
        """How many patch tokens one image becomes."""
        rows, cols = self.grid
        return rows * cols


PRESETS: dict[str, OfaConfig] = {
    "tiny": OfaConfig(),
    "detector": OfaConfig(preset="detector", stem="detector", image_height=240, image_width=320,
                          stem_channels=(16, 32, 48, 64, 128), d_model=192, encoder_layers=4,
                          decoder_layers=3, heads=6, patch_pixels=8),
    "base": OfaConfig(preset="base", image_height=240, image_width=320,
                      stem_channels=(64, 128, 256, 512), d_model=768, encoder_layers=6,
                      decoder_layers=6, heads=12, ffn_mult=4, dropout=0.1),
}


def preset(name: str, **overrides: object) -> OfaConfig:
    """A preset by name, with any fields overridden; an unknown name or field is a ValueError."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}")
    known = {f.name for f in fields(OfaConfig)}
    bad = sorted(set(overrides) - known)
    if bad:
        raise ValueError(f"unknown ofa-vqa config fields: {bad}")
    return replace(PRESETS[name], **overrides)
