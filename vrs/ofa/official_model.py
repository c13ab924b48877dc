"""The official OFA network (OFA-Sys's Hugging Face layout), rebuilt so that its checkpoints'
weights mean what they meant, behind the interface this project's VQA code calls on `OfaVqa`.

Why a second network beside `vrs.ofa.model`: the official checkpoints were trained with an
architecture ours does not share, so their weights only work inside a faithful copy of it.
As `modeling_ofa.py` (OFA-Sys/OFA, branch feature/add_transformers) computes it:

- image: the first three ResNet stages (1024 channels, stride 16), `image_proj` to d_model,
  type embedding 1, `patch_layernorm_embedding`. Pixels are scaled to [-1, 1] (OFA's
  Normalize(mean 0.5, std 0.5)). BatchNorm statistics stay frozen (`FrozenBatchNorm2d`).
- text: the shared token embedding (unscaled), type embedding 0, `layernorm_embedding`;
  padded positions are zeroed. The encoder reads [image patches, question tokens].
- positions are never added to the tokens; every attention gets an additive bias instead:
  an absolute one (projected, layer-normed position embeddings multiplied query by key,
  computed once per pass; image patches take `embed_image_positions` at row * 42 + col + 1)
  and, per layer, a relative one (text-text from `token_rel_pos_table_list`, image-image from
  `image_rel_pos_table_list`). The decoder's cross-attention bias pairs its own positions
  with the encoder's (layer-normed) source positions.
- output: logits against the shared token embedding (tied).

Interface as `OfaVqa`'s (what `vrs.ofa.reasoner` and `training.ofa` call): `encode_images`,
`encode`, `decode`, `forward`, `encoder_parameters`, `config`, `stem`. The decoder recomputes
the source positions from the memory's length (image patches are fixed by the config's input
size, the rest is text), so `memory` stays a plain (B, S, d) tensor that can be indexed by row.
Weights the VQA path never uses (the decoder's image-code positions, for OFA's image
generation) are kept, so a converted checkpoint holds everything the official one did.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from vrs.ofa.official_config import OfficialOfaConfig
from vrs.ofa.official_layers import (
    IMAGE_CHANNELS,
    RESNET_BLOCKS,
    DecoderLayer,
    EncoderLayer,
    ResNetStages,
    abs_position_bias,
    image_buckets,
    image_position_ids,
    relative_tables,
    token_buckets,
)


def _bucket_counts(config: OfficialOfaConfig) -> tuple[int, int]:
    """(text, image) relative-position bucket counts: 2t - 1 and (2i - 1)^2 + 3."""
    return (2 * config.token_bucket_size - 1, (2 * config.image_bucket_size - 1) ** 2 + 3)


def _position_tables(module: nn.Module, config: OfficialOfaConfig, heads: int) -> None:
    """The position modules encoder and decoder share in kind (not in weights)."""
    d = config.d_model
    module.embed_positions = nn.Embedding(config.max_position_embeddings + 2, d)
    module.embed_image_positions = nn.Embedding(config.image_bucket_size ** 2 + 1, d)
    module.pos_ln, module.image_pos_ln = nn.LayerNorm(d), nn.LayerNorm(d)
    module.pos_scaling = (d / heads * config.attn_scale_factor) ** -0.5
    limit = max(config.max_question_tokens, config.max_answer_tokens)
    buckets = token_buckets(config.token_bucket_size, config.max_position_embeddings)
    module.register_buffer("token_rp_bucket", buckets[:limit, :limit].clone(), persistent=False)


def _mask_bias(keep: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """(B, S) bool, True = may be attended -> (B, 1, 1, S) additive bias, 0 or -inf."""
    bias = torch.zeros(keep.shape, dtype=dtype, device=keep.device)
    return bias.masked_fill(~keep, float("-inf"))[:, None, None, :]


class OfficialEncoder(nn.Module):
    """The official `encoder`: image embedding, text embedding, position biases, layers."""

    def __init__(self, config: OfficialOfaConfig, embed_tokens: nn.Embedding) -> None:
        super().__init__()
        d, self.heads = config.d_model, config.encoder_attention_heads
        self.pad_id = config.pad_token_id
        self.embed_tokens = embed_tokens
        self.layernorm_embedding = nn.LayerNorm(d)
        self.type_embedding = nn.Embedding(2, d)
        self.embed_images = ResNetStages(RESNET_BLOCKS[config.resnet_type])
        self.image_proj = nn.Linear(IMAGE_CHANNELS, d)
        self.patch_layernorm_embedding = nn.LayerNorm(d)
        _position_tables(self, config, self.heads)
        self.pos_q_linear, self.pos_k_linear = nn.Linear(d, d), nn.Linear(d, d)
        self.layers = nn.ModuleList(
            EncoderLayer(d, self.heads, config.encoder_ffn_dim, config.dropout,
                         config.attention_dropout, config.activation_dropout)
            for _ in range(config.encoder_layers))
        self.layer_norm = nn.LayerNorm(d)
        self.token_rel_pos_table_list, self.image_rel_pos_table_list = relative_tables(
            config.encoder_layers, self.heads, *_bucket_counts(config))
        self.dropout = nn.Dropout(config.dropout)
        rows, cols = self.grid = config.grid
        self.register_buffer("image_rp_bucket", image_buckets(rows, cols, config.image_bucket_size),
                             persistent=False)
        self.register_buffer("image_position_ids",
                             image_position_ids(rows, cols, config.image_bucket_size),
                             persistent=False)

    def embed_image(self, pixels: torch.Tensor) -> torch.Tensor:
        """(I, 3, H, W) in [-1, 1] -> (I, N, d) patch tokens, type 1, normed."""
        features = self.embed_images(pixels)  # (I, 1024, rows, cols)
        if tuple(features.shape[2:]) != self.grid:
            raise ValueError(f"images of {tuple(pixels.shape[2:])} px make a "
                             f"{tuple(features.shape[2:])} patch grid; the model was built "
                             f"for {self.grid} (resize with images_to_tensor)")
        x = self.image_proj(features.flatten(2).transpose(1, 2)) + self.type_embedding.weight[1]
        return self.dropout(self.patch_layernorm_embedding(x))

    def source_positions(self, text_length: int) -> torch.Tensor:
        """(N + L, d): the layer-normed position embeddings of [image patches, text]."""
        image = self.image_pos_ln(self.embed_image_positions(self.image_position_ids))
        text = self.pos_ln(self.embed_positions.weight[:text_length])
        return torch.cat([image, text])

    def forward(self, image_tokens: torch.Tensor, image_index: torch.Tensor,
                questions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """See `OfficialOfa.encode`."""
        n, length = image_tokens.shape[1], questions.shape[1]
        if n != len(self.image_position_ids):
            raise ValueError(f"{n} image tokens; the model was built for {self.grid}")
        text = self.embed_tokens(questions) + self.type_embedding.weight[0]
        text = self.dropout(self.layernorm_embedding(text))  # (B, L, d)
        keep = torch.cat([torch.ones(len(questions), n, dtype=torch.bool,
                                     device=questions.device), questions != self.pad_id], 1)
        x = torch.cat([image_tokens[image_index], text], dim=1) * keep[..., None]  # (B, S, d)
        pos = self.source_positions(length)  # (S, d)
        base = abs_position_bias(self.pos_q_linear, self.pos_k_linear, pos, pos, self.heads,
                                 self.pos_scaling)  # (h, S, S)
        padding = _mask_bias(keep, x.dtype)  # (B, 1, 1, S)
        text_rp, image_rp = self.token_rp_bucket[:length, :length], self.image_rp_bucket
        for layer, text_table, image_table in zip(
                self.layers, self.token_rel_pos_table_list, self.image_rel_pos_table_list,
                strict=True):
            bias = base.clone()
            bias[:, n:, n:] += text_table(text_rp).permute(2, 0, 1)
            bias[:, :n, :n] += image_table(image_rp).permute(2, 0, 1)
            x = layer(x, bias[None] + padding)  # bias (B, h, S, S)
        return self.layer_norm(x), keep[:, None, None, :]


class OfficialDecoder(nn.Module):
    """The official `decoder`: token embedding, position biases, layers, tied output."""

    def __init__(self, config: OfficialOfaConfig, embed_tokens: nn.Embedding) -> None:
        super().__init__()
        d, self.heads = config.d_model, config.decoder_attention_heads
        self.embed_tokens = embed_tokens
        self.layers = nn.ModuleList(
            DecoderLayer(d, self.heads, config.decoder_ffn_dim, config.dropout,
                         config.attention_dropout, config.activation_dropout)
            for _ in range(config.decoder_layers))
        self.layernorm_embedding = nn.LayerNorm(d)
        _position_tables(self, config, self.heads)
        self.self_pos_q_linear, self.self_pos_k_linear = nn.Linear(d, d), nn.Linear(d, d)
        self.cross_pos_q_linear, self.cross_pos_k_linear = nn.Linear(d, d), nn.Linear(d, d)
        self.code_layernorm_embedding = nn.LayerNorm(d)  # image-code generation only
        self.layer_norm = nn.LayerNorm(d)
        self.token_rel_pos_table_list, self.image_rel_pos_table_list = relative_tables(
            config.decoder_layers, self.heads, *_bucket_counts(config))
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, memory: torch.Tensor, memory_mask: torch.Tensor,
                source_positions: torch.Tensor, answer_in: torch.Tensor) -> torch.Tensor:
        """See `OfficialOfa.decode`; source_positions (S, d) from the encoder."""
        length = answer_in.shape[1]
        target = self.pos_ln(self.embed_positions.weight[:length])  # (T, d)
        self_base = abs_position_bias(self.self_pos_q_linear, self.self_pos_k_linear, target,
                                      target, self.heads, self.pos_scaling)  # (h, T, T)
        cross = abs_position_bias(self.cross_pos_q_linear, self.cross_pos_k_linear, target,
                                  source_positions, self.heads, self.pos_scaling)  # (h, T, S)
        cross_bias = cross[None] + _mask_bias(memory_mask[:, 0, 0], memory.dtype)  # (B, h, T, S)
        causal = torch.full((length, length), float("-inf"), device=answer_in.device).triu(1)
        x = self.dropout(self.layernorm_embedding(self.embed_tokens(answer_in)))  # (B, T, d)
        rp = self.token_rp_bucket[:length, :length]
        for layer, table in zip(self.layers, self.token_rel_pos_table_list, strict=True):
            self_bias = self_base + table(rp).permute(2, 0, 1) + causal  # (h, T, T)
            x = layer(x, memory, self_bias[None], cross_bias)
        return F.linear(self.layer_norm(x), self.embed_tokens.weight)  # (B, T, V)


class OfficialOfa(nn.Module):
    """The whole network; see the module docstring. State-dict keys are the official ones
    (the shared embedding appears as encoder.embed_tokens and decoder.embed_tokens)."""

    def __init__(self, config: OfficialOfaConfig) -> None:
        super().__init__()
        self.config = config
        shared = nn.Embedding(config.vocab_size, config.d_model, padding_idx=config.pad_token_id)
        self.encoder = OfficialEncoder(config, shared)
        self.decoder = OfficialDecoder(config, shared)

    @property
    def stem(self) -> nn.Module:
        """The image backbone (the ResNet stages), as `count_parameters` expects."""
        return self.encoder.embed_images

    def encoder_parameters(self) -> list[nn.Parameter]:
        """Everything the encoder holds (frozen by `--freeze-encoder`), the shared token
        embedding included, so freezing the encoder also freezes the decoder's input and
        output embedding, as OFA's own VQA fine-tuning does (--freeze-*-embedding)."""
        return list(self.encoder.parameters())

    def encode_images(self, images: torch.Tensor) -> torch.Tensor:
        """(I, 3, H, W) uint8-range images at the config's size -> (I, N, d) patch tokens."""
        return self.encoder.embed_image(images.float() / 127.5 - 1.0)

    def encode(self, image_tokens: torch.Tensor, image_index: torch.Tensor,
               questions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Encoder over (image, question) pairs: image_tokens (I, N, d), image_index (B,),
        questions (B, L) ids padded with the pad id -> memory (B, N + L, d) and its mask
        (B, 1, 1, N + L), True where a key may be attended."""
        length = questions.shape[1]
        if length > self.config.max_question_tokens:
            raise ValueError(f"question of {length} tokens; the model takes at most "
                             f"{self.config.max_question_tokens}")
        return self.encoder(image_tokens, image_index, questions)

    def decode(self, memory: torch.Tensor, memory_mask: torch.Tensor, answer_in: torch.Tensor
               ) -> torch.Tensor:
        """answer_in (B, T) ids starting with BOS -> next-token logits (B, T, V)."""
        length = answer_in.shape[1]
        if length > self.config.max_answer_tokens:
            raise ValueError(f"answer prefix of {length} tokens; the model takes at most "
                             f"{self.config.max_answer_tokens}")
        text_length = memory.shape[1] - self.config.image_tokens
        positions = self.encoder.source_positions(text_length)
        return self.decoder(memory, memory_mask, positions, answer_in)

    def forward(self, images: torch.Tensor, image_index: torch.Tensor, questions: torch.Tensor,
                answer_in: torch.Tensor) -> torch.Tensor:
        """Teacher-forced logits (B, T, V) for questions (B, L) about images (I, 3, H, W)."""
        memory, mask = self.encode(self.encode_images(images), image_index, questions)
        return self.decode(memory, mask, answer_in)
