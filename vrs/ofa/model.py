"""The OFA-style VQA network: a ResNet stem, one transformer encoder, an answer decoder.

Why this shape (OFA, Wang et al. 2022, "unifying architectures, tasks and modalities"): VQA as
sequence-to-sequence. A ResNet stem turns the image into patch tokens, the question's tokens are
embedded, ONE transformer encoder reads both together (so question words attend to image
patches from the first layer), and an autoregressive decoder with cross-attention writes the
answer's tokens; `vrs.ofa.trie` keeps its output inside the answer vocabulary.

Choices for this project's images: two coordinate channels (x, y in [-1, 1]) join the RGB input
(CoordConv), because left/right/front/behind and in/on depend on where things are; patch tokens
get factorized 2-D learned position embeddings (row + column); a type embedding tells image from
text tokens. Blocks are pre-LayerNorm (nanoGPT-like). The stem runs once per image and its
tokens are shared by all questions about that image (`image_index`), since a batch holds
several questions per image; the encoder then runs per (image, question) pair. With
`prune_below` set, the encoder reads only the image tokens the patch head says hold an object
(and those around them), packed to the front and padded per batch (`select_tokens`): the
encoder's cost is most of a CPU answer and grows with its token count.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image
from torch import nn

from vrs.ofa.config import DETECTOR_STAGES, OfaConfig


class Attention(nn.Module):
    """Multi-head attention of `x` over `context` (self-attention when context is x)."""

    def __init__(self, config: OfaConfig) -> None:
        super().__init__()
        d = config.d_model
        self.heads, self.dropout = config.heads, config.dropout
        self.query = nn.Linear(d, d)
        self.key_value = nn.Linear(d, 2 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x: torch.Tensor, context: torch.Tensor, mask: torch.Tensor | None = None,
                causal: bool = False) -> torch.Tensor:
        """x (B, T, d), context (B, S, d), mask (B, 1, 1, S) bool True = may attend."""
        b, t, d = x.shape
        s, h = context.shape[1], self.heads
        q = self.query(x).view(b, t, h, d // h).transpose(1, 2)  # (B, h, T, d/h)
        k, v = self.key_value(context).view(b, s, 2, h, d // h).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal,
                                           dropout_p=self.dropout if self.training else 0.0)
        return self.out(y.transpose(1, 2).reshape(b, t, d))  # (B, T, d)


class MLP(nn.Module):
    """The feed-forward half of a block: d -> ffn_mult * d -> d with GELU."""

    def __init__(self, config: OfaConfig) -> None:
        super().__init__()
        d = config.d_model
        self.net = nn.Sequential(nn.Linear(d, config.ffn_mult * d), nn.GELU(),
                                 nn.Linear(config.ffn_mult * d, d), nn.Dropout(config.dropout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class EncoderBlock(nn.Module):
    """Pre-LN self-attention + MLP over image and question tokens together."""

    def __init__(self, config: OfaConfig) -> None:
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(config.d_model), nn.LayerNorm(config.d_model)
        self.attn, self.mlp = Attention(config), MLP(config)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h = self.norm1(x)  # (B, N + L, d)
        x = x + self.attn(h, h, mask)
        return x + self.mlp(self.norm2(x))


class DecoderBlock(nn.Module):
    """Pre-LN causal self-attention, cross-attention to the encoder's output, MLP."""

    def __init__(self, config: OfaConfig) -> None:
        super().__init__()
        d = config.d_model
        self.norm1, self.norm2, self.norm3 = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
        self.self_attn, self.cross_attn, self.mlp = (Attention(config), Attention(config),
                                                     MLP(config))

    def forward(self, x: torch.Tensor, memory: torch.Tensor, memory_mask: torch.Tensor
                ) -> torch.Tensor:
        h = self.norm1(x)  # (B, T, d); answers are right-padded, so causal needs no pad mask
        x = x + self.self_attn(h, h, causal=True)
        x = x + self.cross_attn(self.norm2(x), memory, memory_mask)
        return x + self.mlp(self.norm3(x))


class ResBlock(nn.Module):
    """Two 3x3 convolutions with GroupNorm and a skip connection (ResNet's basic block)."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        groups = math.gcd(8, channels)
        self.body = nn.Sequential(
            nn.Conv2d(channels, channels, 3, padding=1, bias=False),
            nn.GroupNorm(groups, channels), nn.GELU(),
            nn.Conv2d(channels, channels, 3, padding=1, bias=False),
            nn.GroupNorm(groups, channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x + self.body(x))


class ImageStem(nn.Module):
    """(B, 3, H, W) uint8-range image -> (B, rows * cols, d) patch tokens with 2-D positions."""

    def __init__(self, config: OfaConfig) -> None:
        super().__init__()
        self.config = config
        stages, cin = [], 3 + 2 * config.coord_channels
        for width, stride in zip(config.stem_channels, config.stage_strides, strict=True):
            stages += [nn.Conv2d(cin, width, 3, stride=stride, padding=1, bias=False),
                       nn.GroupNorm(math.gcd(8, width), width), nn.GELU(), ResBlock(width)]
            cin = width
        self.stages = nn.Sequential(*stages)
        self.project = nn.Conv2d(cin, config.d_model, 1)
        rows, cols = config.grid
        self.row_embed = nn.Parameter(torch.zeros(rows, 1, config.d_model))  # (rows, 1, d)
        self.col_embed = nn.Parameter(torch.zeros(1, cols, config.d_model))  # (1, cols, d)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        b, _, h, w = image.shape
        x = image.float() / 127.5 - 1.0  # (B, 3, H, W) in [-1, 1]
        if self.config.coord_channels:
            ys = torch.linspace(-1, 1, h, device=x.device).view(1, 1, h, 1).expand(b, 1, h, w)
            xs = torch.linspace(-1, 1, w, device=x.device).view(1, 1, 1, w).expand(b, 1, h, w)
            x = torch.cat([x, xs, ys], dim=1)  # (B, 5, H, W)
        x = self.project(self.stages(x))  # (B, d, rows, cols)
        x = x.permute(0, 2, 3, 1) + self.row_embed + self.col_embed  # (B, rows, cols, d)
        return x.flatten(1, 2)  # (B, rows * cols, d)


class DetectorStem(nn.Module):
    """The `detector` stem: the detector's encoder stages (same modules and state-dict keys,
    so `load_detector_stem` copies its weights), then plain stride-2 stages, then the same
    projection and 2-D positions as `ImageStem`. Its BatchNorm statistics stay frozen, as
    OFA keeps its ResNet's: the detector's statistics are the ones its weights expect."""

    def __init__(self, config: OfaConfig) -> None:
        super().__init__()
        from vrs.detector.model import _conv, encoder_stages

        c = config.stem_channels
        if len(c) < DETECTOR_STAGES:
            raise ValueError(f"a detector stem needs >= {DETECTOR_STAGES} stem_channels")
        self.stages = encoder_stages(c[:DETECTOR_STAGES], 2)
        strides = config.stage_strides[DETECTOR_STAGES:]
        for cin, width, stride in zip(c[DETECTOR_STAGES - 1:], c[DETECTOR_STAGES:], strides,
                                      strict=False):
            self.stages.append(nn.Sequential(_conv(cin, width, stride), _conv(width, width)))
        self.project = nn.Conv2d(c[-1], config.d_model, 1)
        self.pixels = (nn.Conv2d(3 * config.patch_pixels ** 2, config.d_model, 1)
                       if config.patch_pixels else None)
        rows, cols = config.grid
        self.row_embed = nn.Parameter(torch.zeros(rows, 1, config.d_model))  # (rows, 1, d)
        self.col_embed = nn.Parameter(torch.zeros(1, cols, config.d_model))  # (1, cols, d)
        self.config = config

    def patch_pixels(self, x: torch.Tensor) -> torch.Tensor:
        """(B, 3, H, W) in [-1, 1] -> (B, d, rows, cols): each patch's pixels, average-pooled
        to patch_pixels^2 and embedded linearly (the image is zero-padded to whole patches)."""
        config = self.config
        rows, cols = config.grid
        stride, side = config.patch_stride, config.patch_pixels
        h, w = x.shape[-2:]
        x = F.pad(x, (0, cols * stride - w, 0, rows * stride - h))
        x = F.avg_pool2d(x, stride // side)  # (B, 3, rows * side, cols * side)
        return self.pixels(F.pixel_unshuffle(x, side))  # (B, 3 side^2, rows, cols) -> d

    def train(self, mode: bool = True) -> DetectorStem:
        super().train(mode)
        for m in self.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.eval()
        return self

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        b, _, h, w = image.shape
        x = image.float() / 127.5 - 1.0
        ys = torch.linspace(-1, 1, h, device=x.device).view(1, 1, h, 1).expand(b, 1, h, w)
        xs = torch.linspace(-1, 1, w, device=x.device).view(1, 1, 1, w).expand(b, 1, h, w)
        rgb = x
        x = torch.cat([x, xs, ys], dim=1)  # (B, 5, H, W), as the detector reads it
        for stage in self.stages:
            x = stage(x)
        x = self.project(x)  # (B, d, rows, cols)
        if self.pixels is not None:
            x = x + self.patch_pixels(rgb)
        x = x.permute(0, 2, 3, 1) + self.row_embed + self.col_embed
        return x.flatten(1, 2)  # (B, rows * cols, d)


def load_detector_stem(model: OfaVqa, detector_dir: str | Path) -> int:
    """Copy a detector checkpoint's encoder weights into `model`'s detector stem; returns how
    many tensors were copied. The detector's stage widths must be the stem's first four."""
    from safetensors.torch import load_file

    if not isinstance(model.stem, DetectorStem):
        raise ValueError(f"model has a {model.config.stem!r} stem; --stem-init needs 'detector'")
    weights = Path(detector_dir) / "model.safetensors"
    if not weights.is_file():
        raise FileNotFoundError(f"no detector weights at {weights}")
    state = {k.removeprefix("stages."): v for k, v in load_file(str(weights)).items()
             if k.startswith("stages.")}
    own = model.stem.stages.state_dict()
    wanted = {k: v for k, v in own.items() if int(k.split(".")[0]) < DETECTOR_STAGES}
    bad = [k for k in wanted if k not in state or state[k].shape != wanted[k].shape]
    if bad:
        raise ValueError(f"{detector_dir}: detector encoder does not fit the stem "
                         f"(missing or other shape: {bad[:4]})")
    model.stem.stages.load_state_dict({**own, **{k: state[k] for k in wanted}})
    return len(wanted)


class OfaVqa(nn.Module):
    """The whole network; see the module docstring. Token id 0 is padding."""

    def __init__(self, config: OfaConfig) -> None:
        super().__init__()
        if config.vocab_size < 4:
            raise ValueError("config.vocab_size is unset; take it from the tokenizer")
        self.config = config
        d, vocab = config.d_model, config.vocab_size
        self.stem = DetectorStem(config) if config.stem == "detector" else ImageStem(config)
        self.text_embed = nn.Embedding(vocab, d)
        self.text_pos = nn.Parameter(torch.zeros(config.max_question_tokens, d))  # (L, d)
        self.type_embed = nn.Embedding(2, d)  # 0 image patch, 1 question token
        self.encoder = nn.ModuleList(EncoderBlock(config) for _ in range(config.encoder_layers))
        self.encoder_norm = nn.LayerNorm(d)
        self.answer_embed = nn.Embedding(vocab, d)
        self.answer_pos = nn.Parameter(torch.zeros(config.max_answer_tokens, d))  # (T, d)
        self.decoder = nn.ModuleList(DecoderBlock(config) for _ in range(config.decoder_layers))
        self.decoder_norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        # training only: which objects each patch holds (`vrs.ofa.patches`, `--patch-loss`)
        self.patch_head = nn.Linear(d, config.patch_labels) if config.patch_labels else None
        self.apply(init_weights)
        for p in (self.stem.row_embed, self.stem.col_embed, self.text_pos, self.answer_pos):
            nn.init.normal_(p, std=0.02)

    def encoder_modules(self) -> list[nn.Module]:
        """Everything that reads image and question (frozen by `--freeze-encoder`)."""
        return [self.stem, self.text_embed, self.type_embed, self.encoder, self.encoder_norm]

    def encoder_parameters(self) -> list[nn.Parameter]:
        """Parameters of `encoder_modules` plus the question position embeddings."""
        return [*(p for m in self.encoder_modules() for p in m.parameters()), self.text_pos]

    def encode_images(self, images: torch.Tensor) -> torch.Tensor:
        """(I, 3, H, W) uint8-range images -> (I, N, d) patch tokens (once per image)."""
        return self.stem(images) + self.type_embed.weight[0]

    def image_keep(self, image_tokens: torch.Tensor) -> torch.Tensor | None:
        """(I, N) True for the image tokens the encoder reads, or None for all of them: a
        token some object (colour x type) is likelier than `prune_below` in, by the patch
        head, and the tokens within `prune_grow` of one. A decision, not a learned path: no
        gradient flows through it."""
        c = self.config
        if not c.prune_below:
            return None
        with torch.no_grad():
            p = torch.sigmoid(self.patch_head(image_tokens).float()).amax(-1)  # (I, N)
            keep = p > c.prune_below
            if c.prune_grow:
                rows, cols = c.grid
                grid = keep.view(-1, 1, rows, cols).float()
                grid = F.max_pool2d(grid, 2 * c.prune_grow + 1, stride=1, padding=c.prune_grow)
                keep = grid.view(keep.shape) > 0
        return keep

    def select_tokens(self, image_tokens: torch.Tensor
                      ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(tokens (I, K, d), valid (I, K) or None): the kept tokens of each image first, in
        grid order (their position embeddings came with them), padded to the batch's largest
        count K with `valid` False; everything and None when nothing is pruned."""
        keep = self.image_keep(image_tokens)
        if keep is None:
            return image_tokens, None
        order = torch.argsort((~keep).to(torch.int8), dim=1, stable=True)  # kept first
        k = max(int(keep.sum(dim=1).max()), 1)
        index = order[:, :k]  # (I, K)
        tokens = torch.gather(image_tokens, 1,
                              index[..., None].expand(-1, -1, image_tokens.shape[-1]))
        return tokens, torch.gather(keep, 1, index)

    def encode(self, image_tokens: torch.Tensor, image_index: torch.Tensor,
               questions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Encoder over (image, question) pairs: image_tokens (I, N, d), image_index (B,) the
        image of each question, questions (B, L) ids, 0-padded -> memory (B, K + L, d) and its
        mask (B, 1, 1, K + L), True where a key may be attended; K = N unless pruning."""
        length = questions.shape[1]
        if length > self.config.max_question_tokens:
            raise ValueError(f"question of {length} tokens; the model takes at most "
                             f"{self.config.max_question_tokens}")
        text = self.text_embed(questions) + self.text_pos[:length] + self.type_embed.weight[1]
        image_tokens, valid = self.select_tokens(image_tokens)
        x = torch.cat([image_tokens[image_index], text], dim=1)  # (B, K + L, d)
        seen = (valid[image_index] if valid is not None else
                torch.ones(len(questions), image_tokens.shape[1], dtype=torch.bool,
                           device=questions.device))
        keep = torch.cat([seen, questions != 0], dim=1)
        mask = keep[:, None, None, :]  # (B, 1, 1, K + L)
        for block in self.encoder:
            x = block(x, mask)
        return self.encoder_norm(x), mask

    def decode(self, memory: torch.Tensor, memory_mask: torch.Tensor, answer_in: torch.Tensor
               ) -> torch.Tensor:
        """answer_in (B, T) ids starting with BOS -> next-token logits (B, T, V)."""
        length = answer_in.shape[1]
        if length > self.config.max_answer_tokens:
            raise ValueError(f"answer prefix of {length} tokens; the model takes at most "
                             f"{self.config.max_answer_tokens}")
        x = self.answer_embed(answer_in) + self.answer_pos[:length]  # (B, T, d)
        for block in self.decoder:
            x = block(x, memory, memory_mask)
        return self.head(self.decoder_norm(x))

    def forward(self, images: torch.Tensor, image_index: torch.Tensor, questions: torch.Tensor,
                answer_in: torch.Tensor, with_patches: bool = False
                ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        """Teacher-forced logits (B, T, V) for questions (B, L) about images (I, 3, H, W);
        with_patches: also the patch head's logits (I, N, patch_labels) on the image tokens
        (one forward, so mixed precision wraps both)."""
        tokens = self.encode_images(images)
        memory, mask = self.encode(tokens, image_index, questions)
        logits = self.decode(memory, mask, answer_in)
        if not with_patches:
            return logits
        if self.patch_head is None:
            raise ValueError("this model has no patch head (config.patch_labels is 0)")
        return logits, self.patch_head(tokens)


def init_weights(module: nn.Module) -> None:
    """GPT-2 style: normal(0, 0.02) linear and embedding weights, zero biases."""
    if isinstance(module, (nn.Linear, nn.Embedding)):
        nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)


def count_parameters(model: nn.Module) -> dict[str, int]:
    """{'total', 'trainable', 'stem', 'encoder', 'decoder'} parameter counts (a shared tensor
    counted once)."""
    def count(params: object) -> int:
        return sum(p.numel() for p in {id(p): p for p in params}.values())

    return {"total": count(model.parameters()),
            "trainable": count(p for p in model.parameters() if p.requires_grad),
            "stem": count(model.stem.parameters()),
            "encoder": count(model.encoder.parameters()),
            "decoder": count(model.decoder.parameters())}


def images_to_tensor(images: list[np.ndarray | Image.Image], config: OfaConfig) -> torch.Tensor:
    """Images of any size, (H, W, 3|4) uint8 arrays or PIL images -> (I, 3, h, w) uint8 at the
    model's input size (PIL bilinear resize, which averages when shrinking)."""
    size = (config.image_width, config.image_height)
    out = []
    for image in images:
        if not isinstance(image, Image.Image):
            arr = np.asarray(image)
            if arr.ndim != 3 or arr.shape[2] not in (3, 4) or arr.dtype != np.uint8:
                raise ValueError(f"expected an (H, W, 3) uint8 image, got {arr.shape} "
                                 f"{arr.dtype}")
            image = Image.fromarray(np.ascontiguousarray(arr[..., :3]))
        image = image.convert("RGB")
        if image.size != size:
            image = image.resize(size, Image.BILINEAR)
        out.append(torch.from_numpy(np.asarray(image).copy()).permute(2, 0, 1))
    return torch.stack(out)  # (I, 3, h, w)
