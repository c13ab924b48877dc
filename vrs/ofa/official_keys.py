"""Every key and shape of an official OFA state dict, enumerated from the official modules.

Why a list written out rather than read off `OfficialOfa`: it is the second, independent
derivation of the official layout (from `modeling_ofa.py` and `resnet.py` on OFA-Sys/OFA's
feature/add_transformers branch), so the tests can build an official-looking checkpoint with
exactly these names and shapes, nothing downloaded, and check that `vrs.ofa.official`
converts it into `OfficialOfa` key for key. The keys are those of the official
`OFAModel.state_dict()`: parameters, its persistent buffers (the relative-position bucket
tables, BatchNorm statistics) and the shared token embedding under all three of its names.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch

from vrs.ofa.official_config import OfficialOfaConfig, size_config
from vrs.ofa.official_layers import IMAGE_CHANNELS, RESNET_BLOCKS

SHARED = "encoder.embed_tokens.weight"
TIED = ("decoder.embed_tokens.weight", "decoder.output_projection.weight")  # = SHARED
RECOMPUTED = ("token_rp_bucket", "image_rp_bucket", "image_position_idx", "num_batches_tracked",
              "version")  # last key component of buffers the network recomputes (or ignores)
INTEGER_KEYS = RECOMPUTED[:-1]  # stored as int64 in an official state dict


def official_key_shapes(size: str | OfficialOfaConfig) -> dict[str, tuple[int, ...]]:
    """Every key of an official checkpoint of `size` (a name of `SIZES` or a config) and its
    shape, as the official `OFAModel.state_dict()` has them: parameters, persistent buffers
    (`INTEGER_KEYS`) and the tied embedding under all three names."""
    c = size_config(size) if isinstance(size, str) else size
    shapes: dict[str, tuple[int, ...]] = {SHARED: (c.vocab_size, c.d_model)}
    _encoder_shapes(shapes, c)
    shapes["decoder.embed_tokens.weight"] = (c.vocab_size, c.d_model)
    _decoder_shapes(shapes, c)
    shapes["decoder.output_projection.weight"] = (c.vocab_size, c.d_model)
    return shapes


def _linear(out: dict, name: str, fan_in: int, fan_out: int) -> None:
    out[f"{name}.weight"], out[f"{name}.bias"] = (fan_out, fan_in), (fan_out,)


def _norm(out: dict, name: str, n: int) -> None:
    out[f"{name}.weight"], out[f"{name}.bias"] = (n,), (n,)


def _batch_norm(out: dict, name: str, n: int) -> None:
    for part in ("weight", "bias", "running_mean", "running_var"):
        out[f"{name}.{part}"] = (n,)
    out[f"{name}.num_batches_tracked"] = ()


def _attention(out: dict, name: str, d: int, heads: int) -> None:
    for proj in ("k_proj", "v_proj", "q_proj", "out_proj"):
        _linear(out, f"{name}.{proj}", d, d)
    out[f"{name}.c_attn"] = (heads,)


def _resnet_shapes(out: dict, prefix: str, blocks: tuple[int, ...]) -> None:
    """torchvision-style ResNet stem + three bottleneck stages (resnet.py)."""
    out[f"{prefix}.conv1.weight"] = (64, 3, 7, 7)
    _batch_norm(out, f"{prefix}.bn1", 64)
    cin = 64
    for stage, (width, count) in enumerate(zip((64, 128, 256), blocks, strict=True), 1):
        for i in range(count):
            b = f"{prefix}.layer{stage}.{i}"
            shapes = [(width, cin, 1, 1), (width, width, 3, 3), (4 * width, width, 1, 1)]
            for j, shape in enumerate(shapes, 1):
                out[f"{b}.conv{j}.weight"] = shape
                _batch_norm(out, f"{b}.bn{j}", shape[0])
            if i == 0:  # the first block of every stage changes width (and stride)
                out[f"{b}.downsample.0.weight"] = (4 * width, cin, 1, 1)
                _batch_norm(out, f"{b}.downsample.1", 4 * width)
            cin = 4 * width


def _layer_shapes(out: dict, name: str, c: OfficialOfaConfig, heads: int, ffn: int,
                  cross: bool) -> None:
    d = c.d_model
    _attention(out, f"{name}.self_attn", d, heads)
    _norm(out, f"{name}.self_attn_layer_norm", d)
    _norm(out, f"{name}.self_attn_mid_layer_norm", d)
    if cross:
        _attention(out, f"{name}.cross_attn", d, heads)
        _norm(out, f"{name}.cross_attn_layer_norm", d)
        _norm(out, f"{name}.cross_attn_mid_layer_norm", d)
    _linear(out, f"{name}.fc1", d, ffn)
    _linear(out, f"{name}.fc2", ffn, d)
    _norm(out, f"{name}.ffn_layer_norm", ffn)
    _norm(out, f"{name}.final_layer_norm", d)


def _position_shapes(out: dict, prefix: str, c: OfficialOfaConfig, layers: int,
                     heads: int) -> None:
    """Position tables both halves have, and the relative-bias buffers."""
    d, image = c.d_model, c.image_bucket_size ** 2 + 1
    out[f"{prefix}.embed_positions.weight"] = (c.max_position_embeddings + 2, d)
    out[f"{prefix}.embed_image_positions.weight"] = (image, d)
    _norm(out, f"{prefix}.pos_ln", d)
    _norm(out, f"{prefix}.image_pos_ln", d)
    for i in range(layers):
        out[f"{prefix}.token_rel_pos_table_list.{i}.weight"] = (2 * c.token_bucket_size - 1,
                                                                heads)
        out[f"{prefix}.image_rel_pos_table_list.{i}.weight"] = (
            (2 * c.image_bucket_size - 1) ** 2 + 3, heads)
    out[f"{prefix}.token_rp_bucket"] = (c.max_position_embeddings,) * 2
    out[f"{prefix}.image_rp_bucket"] = (image, image)


def _encoder_shapes(out: dict, c: OfficialOfaConfig) -> None:
    d, heads = c.d_model, c.encoder_attention_heads
    _norm(out, "encoder.layernorm_embedding", d)
    out["encoder.type_embedding.weight"] = (2, d)
    _resnet_shapes(out, "encoder.embed_images", RESNET_BLOCKS[c.resnet_type])
    _linear(out, "encoder.image_proj", IMAGE_CHANNELS, d)
    _norm(out, "encoder.patch_layernorm_embedding", d)
    _position_shapes(out, "encoder", c, c.encoder_layers, heads)
    _linear(out, "encoder.pos_q_linear", d, d)
    _linear(out, "encoder.pos_k_linear", d, d)
    for i in range(c.encoder_layers):
        _layer_shapes(out, f"encoder.layers.{i}", c, heads, c.encoder_ffn_dim, cross=False)
    _norm(out, "encoder.layer_norm", d)


def _decoder_shapes(out: dict, c: OfficialOfaConfig) -> None:
    d, heads = c.d_model, c.decoder_attention_heads
    for i in range(c.decoder_layers):
        _layer_shapes(out, f"decoder.layers.{i}", c, heads, c.decoder_ffn_dim, cross=True)
    _norm(out, "decoder.layernorm_embedding", d)
    _position_shapes(out, "decoder", c, c.decoder_layers, heads)
    for name in ("self_pos_q_linear", "self_pos_k_linear", "cross_pos_q_linear",
                 "cross_pos_k_linear"):
        _linear(out, f"decoder.{name}", d, d)
    _norm(out, "decoder.code_layernorm_embedding", d)
    _norm(out, "decoder.layer_norm", d)
    window = c.code_image_size // 8  # [0] + a window x window code grid + 768 fillers
    out["decoder.image_position_idx"] = (1 + window * window + 768,)


def parameter_count(shapes: Mapping[str, tuple[int, ...]]) -> int:
    """Learnable numbers in an official state dict: buffers and tied copies left out."""
    return sum(int(torch.Size(s).numel()) for k, s in shapes.items()
               if k.rsplit(".", 1)[-1] not in RECOMPUTED and k not in TIED
               and not k.endswith(("running_mean", "running_var")))
