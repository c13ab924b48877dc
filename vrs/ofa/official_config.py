"""Sizes of the official OFA checkpoints and the config of a converted one.

Why apart from the network: a converted checkpoint's config.json must rebuild exactly the
network that holds its weights (the `common.model_family` contract), and the converter reads
the official config.json, whose defaults are not ours. Facts and where they come from:

- The four sizes (OFA-Sys/OFA README.md "Model Card", and the `ofa_tiny/medium/base/large`
  architectures in models/ofa/ofa.py): d_model / FFN / heads / encoder + decoder layers /
  image backbone: tiny 256 / 1024 / 4 / 4+4 / ResNet50 (~33M parameters), medium 512 / 2048 /
  8 / 4+4 / ResNet101 (~93M), base 768 / 3072 / 12 / 6+6 / ResNet101 (~180M), large 1024 /
  4096 / 16 / 12+12 / ResNet152 (~470M).
- Every other field and the defaults of an official config.json: `OFAConfig.__init__` in
  transformers/src/transformers/models/ofa/configuration_ofa.py (branch
  feature/add_transformers): vocab 59457 (BART's 50265 + 8192 image codes + 1000 location
  bins), 1024 positions, token buckets 256, image buckets 42, attn_scale_factor 2, pad 1,
  bos 0, eos 2, NormFormer on, pre-LN, shared input/output embedding.

The input image size is ours to choose (the image bucket grid allows up to 42x42 patches, 672
px): OFA pretrained at 384x384 (run_scripts/pretraining/*.sh) and fine-tuned VQA at 480; the
default here is this project's 240x320 camera frame, 15x20 patches.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import ClassVar, NamedTuple

from common.model_family import FamilyConfig
from vrs.ofa.official_layers import RESNET_BLOCKS

KIND = "ofa-official"
FORMAT = 1


class OfficialSize(NamedTuple):
    """One official checkpoint size (README Model Card; `published_params` is its "~N M")."""

    name: str
    d_model: int
    layers: int  # encoder layers (= decoder layers for these four)
    heads: int
    ffn_dim: int
    resnet_type: str
    published_params: int


SIZES: dict[str, OfficialSize] = {s.name: s for s in (
    OfficialSize("ofa-tiny", 256, 4, 4, 1024, "resnet50", 33_000_000),
    OfficialSize("ofa-medium", 512, 4, 8, 2048, "resnet101", 93_000_000),
    OfficialSize("ofa-base", 768, 6, 12, 3072, "resnet101", 180_000_000),
    OfficialSize("ofa-large", 1024, 12, 16, 4096, "resnet152", 470_000_000),
)}

# The official OFAConfig's defaults, for fields an official config.json leaves out.
OFFICIAL_DEFAULTS = {
    "vocab_size": 59457, "max_position_embeddings": 1024, "encoder_layers": 4,
    "encoder_ffn_dim": 2048, "encoder_attention_heads": 8, "decoder_layers": 4,
    "decoder_ffn_dim": 2048, "decoder_attention_heads": 8, "activation_function": "gelu",
    "d_model": 512, "dropout": 0.1, "attention_dropout": 0.0, "activation_dropout": 0.0,
    "scale_embedding": False, "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2,
    "encoder_normalize_before": True, "decoder_normalize_before": True, "normformer": True,
    "layernorm_embedding": True, "patch_layernorm_embedding": True, "resnet_type": "resnet101",
    "token_bucket_size": 256, "image_bucket_size": 42, "add_type_embedding": True,
    "share_decoder_input_output_embed": True, "attn_scale_factor": 2.0,
    "code_layernorm_embedding": True, "code_image_size": 128,
    "entangle_position_embedding": False,
}
# Switches of the official architecture this rebuild implements in one position only.
REQUIRED = {"activation_function": "gelu", "scale_embedding": False,
            "encoder_normalize_before": True, "decoder_normalize_before": True,
            "normformer": True, "layernorm_embedding": True, "patch_layernorm_embedding": True,
            "add_type_embedding": True, "share_decoder_input_output_embed": True,
            "code_layernorm_embedding": True, "entangle_position_embedding": False}
# Official fields copied into OfficialOfaConfig under the same name.
COPIED = ("d_model", "encoder_layers", "decoder_layers", "encoder_attention_heads",
          "decoder_attention_heads", "encoder_ffn_dim", "decoder_ffn_dim", "resnet_type",
          "vocab_size", "pad_token_id", "max_position_embeddings", "token_bucket_size",
          "image_bucket_size", "code_image_size", "attn_scale_factor", "dropout",
          "attention_dropout", "activation_dropout")


@dataclass(frozen=True)
class OfficialOfaConfig(FamilyConfig):
    """The converted network's sizes (the official names) plus what this project adds: the
    model's input image size and the longest question / answer the VQA code feeds it."""

    FAMILY: ClassVar[str] = "ofa-official"
    TAGS: ClassVar[dict] = {"kind": KIND, "format": FORMAT}

    preset: str = "ofa-tiny"  # the official size it matches, "custom" when none
    d_model: int = 256
    encoder_layers: int = 4
    decoder_layers: int = 4
    encoder_attention_heads: int = 4
    decoder_attention_heads: int = 4
    encoder_ffn_dim: int = 1024
    decoder_ffn_dim: int = 1024
    resnet_type: str = "resnet50"
    vocab_size: int = 59457
    pad_token_id: int = 1
    max_position_embeddings: int = 1024
    token_bucket_size: int = 256
    image_bucket_size: int = 42
    code_image_size: int = 128
    attn_scale_factor: float = 2.0
    dropout: float = 0.1
    attention_dropout: float = 0.0
    activation_dropout: float = 0.0
    image_height: int = 240  # model input, px; images are resized to it
    image_width: int = 320
    max_question_tokens: int = 64  # BOS + question + EOS, tokens
    max_answer_tokens: int = 80  # BOS + answer (or answer + EOS), tokens

    def __post_init__(self) -> None:
        problems = []
        for kind in ("encoder", "decoder"):
            heads = getattr(self, f"{kind}_attention_heads")
            if self.d_model % heads:
                problems.append(f"d_model {self.d_model} is not divisible by {kind} heads {heads}")
        if self.resnet_type not in RESNET_BLOCKS:
            problems.append(f"unknown resnet_type {self.resnet_type!r}; known: "
                            f"{', '.join(RESNET_BLOCKS)}")
        if max(self.grid) > self.image_bucket_size:
            problems.append(f"a {self.image_height}x{self.image_width} image makes a "
                            f"{self.grid[0]}x{self.grid[1]} patch grid; the image position "
                            f"table covers at most {self.image_bucket_size} per side")
        longest = max(self.max_question_tokens, self.max_answer_tokens)
        if longest > self.max_position_embeddings:
            problems.append(f"{longest} tokens exceed the {self.max_position_embeddings} "
                            "position embeddings")
        if problems:
            raise ValueError("; ".join(problems))

    @property
    def grid(self) -> tuple[int, int]:
        """(rows, cols) of image patches: four stride-2 steps (conv, pool, two stages), each
        rounding up."""
        h, w = self.image_height, self.image_width
        for _ in range(4):
            h, w = (h + 1) // 2, (w + 1) // 2
        return h, w

    @property
    def image_tokens(self) -> int:
        """How many patch tokens one image becomes."""
        rows, cols = self.grid
        return rows * cols


def size_config(name: str, **overrides: object) -> OfficialOfaConfig:
    """The config of an official size by name ('ofa-tiny', ...), fields overridden."""
    if name not in SIZES:
        raise ValueError(f"unknown official OFA size {name!r}; sizes: {', '.join(SIZES)}")
    _check_fields(overrides)
    s = SIZES[name]
    base = OfficialOfaConfig(preset=name, d_model=s.d_model, encoder_layers=s.layers,
                             decoder_layers=s.layers, encoder_attention_heads=s.heads,
                             decoder_attention_heads=s.heads, encoder_ffn_dim=s.ffn_dim,
                             decoder_ffn_dim=s.ffn_dim, resnet_type=s.resnet_type)
    return replace(base, **overrides)


def _check_fields(values: dict) -> None:
    unknown = sorted(set(values) - {f.name for f in fields(OfficialOfaConfig)})
    if unknown:
        raise ValueError(f"unknown OfficialOfaConfig fields: {', '.join(unknown)}")


def matching_size(config: OfficialOfaConfig) -> str:
    """The official size whose sizes `config` has, or 'custom'."""
    for name in SIZES:
        if replace(size_config(name), preset=config.preset, **_ours(config)) == config:
            return name
    return "custom"


def _ours(config: OfficialOfaConfig) -> dict:
    """The fields that are this project's choices, not the checkpoint's sizes."""
    keep = ("image_height", "image_width", "max_question_tokens", "max_answer_tokens",
            "dropout", "attention_dropout", "activation_dropout", "pad_token_id")
    return {k: getattr(config, k) for k in keep}


def config_from_official(data: dict, **ours: object) -> OfficialOfaConfig:
    """OfficialOfaConfig from an official config.json's content (absent fields take the
    official defaults; a model_type other than "ofa" is refused); a switch this rebuild does
    not implement is a ValueError naming it.
    `ours`: this project's fields (image size, token limits)."""
    if data.get("model_type", "ofa") != "ofa":
        raise ValueError(f"config.json has model_type {data['model_type']!r}, not 'ofa'")
    merged = {**OFFICIAL_DEFAULTS, **data}
    bad = [f"{k}={merged[k]!r} (supported: {v!r})" for k, v in REQUIRED.items()
           if merged[k] != v]
    if bad:
        raise ValueError(f"official OFA config with unsupported settings: {', '.join(bad)}")
    _check_fields(ours)
    config = OfficialOfaConfig(**{"preset": "custom", **{k: merged[k] for k in COPIED}, **ours})
    return replace(config, preset=matching_size(config))
