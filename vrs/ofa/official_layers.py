"""Building blocks of the official OFA network (`vrs.ofa.official_model` assembles them).

Why separate: each block mirrors one official module (the ResNet's bottleneck, NormFormer's
attention and layers, OFA's relative-position buckets), with attribute names equal to the
official state-dict keys, so the blocks can be checked against the official code one by one.
Sources: `modeling_ofa.py` and `resnet.py` under `transformers/src/transformers/models/ofa/`
on OFA-Sys/OFA's `feature/add_transformers` branch (commit 134ad29), read, not copied.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

# Bottleneck blocks per stage (layer1..layer3) by `resnet_type`; the official code builds
# resnet18/34 from bottleneck blocks too.
RESNET_BLOCKS = {"resnet18": (2, 2, 2), "resnet34": (3, 4, 6), "resnet50": (3, 4, 6),
                 "resnet101": (3, 4, 23), "resnet152": (3, 8, 36)}
IMAGE_CHANNELS = 1024  # the third stage's output width, what `image_proj` reads


class FrozenBatchNorm2d(nn.Module):
    """BatchNorm2d that always normalizes with its stored statistics; `weight` and `bias`
    remain parameters. Keys weight, bias, running_mean, running_var as in nn.BatchNorm2d."""

    def __init__(self, channels: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(channels))
        self.bias = nn.Parameter(torch.zeros(channels))
        self.register_buffer("running_mean", torch.zeros(channels))
        self.register_buffer("running_var", torch.ones(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                            training=False, eps=self.eps)


def _conv(cin: int, cout: int, kernel: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(cin, cout, kernel, stride=stride, padding=kernel // 2, bias=False)


class Bottleneck(nn.Module):
    """1x1 -> 3x3 (carries the stride) -> 1x1 at 4x width, with a projection shortcut when
    the shape changes (torchvision's ResNet v1.5 block)."""

    def __init__(self, cin: int, width: int, stride: int) -> None:
        super().__init__()
        self.conv1, self.bn1 = _conv(cin, width, 1), FrozenBatchNorm2d(width)
        self.conv2, self.bn2 = _conv(width, width, 3, stride), FrozenBatchNorm2d(width)
        self.conv3, self.bn3 = _conv(width, 4 * width, 1), FrozenBatchNorm2d(4 * width)
        self.downsample = None
        if stride != 1 or cin != 4 * width:
            self.downsample = nn.Sequential(_conv(cin, 4 * width, 1, stride),
                                            FrozenBatchNorm2d(4 * width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = F.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        skip = x if self.downsample is None else self.downsample(x)
        return F.relu(out + skip)


class ResNetStages(nn.Module):
    """Stem (7x7 stride-2 conv, BN, ReLU, 3x3 stride-2 max pool) and three bottleneck
    stages of widths 64, 128, 256 (outputs 256, 512, 1024): (B, 3, H, W) -> (B, 1024, H/16,
    W/16), rounding up at each stride."""

    def __init__(self, blocks: tuple[int, int, int]) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = FrozenBatchNorm2d(64)
        cin = 64
        for stage, (width, count) in enumerate(zip((64, 128, 256), blocks, strict=True)):
            layers = []
            for i in range(count):
                layers.append(Bottleneck(cin, width, 2 if stage and not i else 1))
                cin = 4 * width
            setattr(self, f"layer{stage + 1}", nn.Sequential(*layers))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 3, stride=2, padding=1)
        return self.layer3(self.layer2(self.layer1(x)))


class Attention(nn.Module):
    """Multi-head attention with separate q/k/v projections, an additive bias (positions and
    masks, -inf where a key may not be seen) and NormFormer's learned head scale `c_attn`."""

    def __init__(self, d: int, heads: int, dropout: float) -> None:
        super().__init__()
        self.heads, self.dropout = heads, dropout
        self.scale = (2 * (d // heads)) ** -0.5  # the official scale_factor of 2
        self.k_proj, self.v_proj = nn.Linear(d, d), nn.Linear(d, d)
        self.q_proj, self.out_proj = nn.Linear(d, d), nn.Linear(d, d)
        self.c_attn = nn.Parameter(torch.ones(heads))

    def forward(self, x: torch.Tensor, context: torch.Tensor, bias: torch.Tensor
                ) -> torch.Tensor:
        """x (B, T, d), context (B, S, d), bias broadcastable to (B, h, T, S)."""
        b, t, d = x.shape
        s, h = context.shape[1], self.heads
        q = self.q_proj(x).view(b, t, h, d // h).transpose(1, 2)  # (B, h, T, d/h)
        k = self.k_proj(context).view(b, s, h, d // h).transpose(1, 2)  # (B, h, S, d/h)
        v = self.v_proj(context).view(b, s, h, d // h).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=bias.to(q.dtype), scale=self.scale,
                                           dropout_p=self.dropout if self.training else 0.0)
        y = y * self.c_attn.view(1, h, 1, 1)  # (B, h, T, d/h)
        return self.out_proj(y.transpose(1, 2).reshape(b, t, d))


class _Block(nn.Module):
    """What every layer has: the FFN half, fc1 -> GELU -> ffn_layer_norm -> fc2, pre-normed
    by `final_layer_norm`, and the dropouts (the official keys are `layers.N.fc1`, ...)."""

    def __init__(self, d: int, ffn: int, dropout: float, act_dropout: float) -> None:
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.ffn_layer_norm, self.final_layer_norm = nn.LayerNorm(ffn), nn.LayerNorm(d)
        self.dropout, self.activation_dropout = nn.Dropout(dropout), nn.Dropout(act_dropout)

    def ffn(self, x: torch.Tensor) -> torch.Tensor:
        """The FFN's residual branch for the stream x."""
        h = self.activation_dropout(F.gelu(self.fc1(self.final_layer_norm(x))))
        return self.dropout(self.fc2(self.ffn_layer_norm(h)))


class EncoderLayer(_Block):
    """Pre-LN self-attention (+ mid LayerNorm) and FFN, each added back to the stream."""

    def __init__(self, d: int, heads: int, ffn: int, dropout: float, attn_dropout: float,
                 act_dropout: float) -> None:
        super().__init__(d, ffn, dropout, act_dropout)
        self.self_attn = Attention(d, heads, attn_dropout)
        self.self_attn_layer_norm, self.self_attn_mid_layer_norm = nn.LayerNorm(d), nn.LayerNorm(d)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        h = self.self_attn_layer_norm(x)
        x = x + self.dropout(self.self_attn_mid_layer_norm(self.self_attn(h, h, bias)))
        return x + self.ffn(x)


class DecoderLayer(_Block):
    """Pre-LN causal self-attention, cross-attention to the encoder, FFN; NormFormer norms."""

    def __init__(self, d: int, heads: int, ffn: int, dropout: float, attn_dropout: float,
                 act_dropout: float) -> None:
        super().__init__(d, ffn, dropout, act_dropout)
        self.self_attn = Attention(d, heads, attn_dropout)
        self.self_attn_layer_norm, self.self_attn_mid_layer_norm = nn.LayerNorm(d), nn.LayerNorm(d)
        self.cross_attn = Attention(d, heads, attn_dropout)
        self.cross_attn_layer_norm = nn.LayerNorm(d)
        self.cross_attn_mid_layer_norm = nn.LayerNorm(d)

    def forward(self, x: torch.Tensor, memory: torch.Tensor, self_bias: torch.Tensor,
                cross_bias: torch.Tensor) -> torch.Tensor:
        h = self.self_attn_layer_norm(x)
        x = x + self.dropout(self.self_attn_mid_layer_norm(self.self_attn(h, h, self_bias)))
        h = self.cross_attn(self.cross_attn_layer_norm(x), memory, cross_bias)
        x = x + self.dropout(self.cross_attn_mid_layer_norm(h))
        return x + self.ffn(x)


def token_buckets(bucket_size: int, max_positions: int) -> torch.Tensor:
    """(max_positions, max_positions) long: the relative-distance bucket of text positions
    (i, j) as OFA defines it: exact within +-bucket_size/2, log-spaced beyond, shifted to
    start at 0 (2 * bucket_size - 1 buckets)."""
    pos = torch.arange(max_positions)
    rel = pos[:, None] - pos[None, :]
    mid = bucket_size // 2
    near = (rel < mid) & (rel > -mid)
    dist = torch.where(near, torch.full_like(rel, mid - 1), rel.abs())
    log = torch.ceil(torch.log(dist / mid) / math.log((max_positions - 1) / mid) * (mid - 1))
    far = (log.int() + mid) * torch.sign(rel)
    return torch.where(dist <= mid, rel, far).long() + bucket_size - 1


def image_buckets(rows: int, cols: int, bucket_size: int) -> torch.Tensor:
    """(N, N) long, N = rows * cols patches in row-major order: the 2-D offset bucket of two
    patches, (dr + b - 1) * (2b - 1) + (dc + b - 1) for the bucket grid size b."""
    r = torch.arange(rows).repeat_interleave(cols)
    c = torch.arange(cols).repeat(rows)
    dr = r[:, None] - r[None, :] + bucket_size - 1
    dc = c[:, None] - c[None, :] + bucket_size - 1
    return dr * (2 * bucket_size - 1) + dc


def image_position_ids(rows: int, cols: int, bucket_size: int) -> torch.Tensor:
    """(N,) ids into `embed_image_positions` of a rows x cols patch grid: row * b + col + 1."""
    return (torch.arange(rows)[:, None] * bucket_size + torch.arange(cols)[None, :] + 1).flatten()


def relative_tables(layers: int, heads: int, token_buckets_: int, image_buckets_: int
                    ) -> tuple[nn.ModuleList, nn.ModuleList]:
    """Per-layer relative-position bias tables (zero-initialized, as OFA does)."""
    def table(n: int) -> nn.Embedding:
        e = nn.Embedding(n, heads)
        nn.init.zeros_(e.weight)
        return e

    return (nn.ModuleList(table(token_buckets_) for _ in range(layers)),
            nn.ModuleList(table(image_buckets_) for _ in range(layers)))


def abs_position_bias(q_linear: nn.Linear, k_linear: nn.Linear, query_pos: torch.Tensor,
                      key_pos: torch.Tensor, heads: int, scaling: float) -> torch.Tensor:
    """(h, T, S): per-head dot products of projected position embeddings (T, d) and (S, d)."""
    t, s, d = query_pos.shape[0], key_pos.shape[0], query_pos.shape[1]
    q = q_linear(query_pos).view(t, heads, d // heads).transpose(0, 1) * scaling
    k = k_linear(key_pos).view(s, heads, d // heads).transpose(0, 1)
    return q @ k.transpose(1, 2)
