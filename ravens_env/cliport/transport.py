"""Pick attention and place transport, the two halves of a Transporter/CLIPort policy.

Pick: one two-stream FCN gives a logit per heightmap pixel — where to put the suction cup.
Place: a 64x64 query crop centred on the pick pixel, rotated `n_rotations` ways, is
cross-correlated with key features of the whole observation, giving a logit per
(rotation, pixel). A high logit at (k, row, col) says "the neighbourhood of the pick, turned by
theta_k, fits here", so the object is placed at (row, col) turned by theta_k about world z.

Rotation convention (shared by demos, training and the actor): theta_k = 2 pi k / n_rotations;
crop pixel u (offset from the crop centre, (col, row) = (x, y) order) samples the input at
pick + R(-theta_k) u, so content at offset v from the pick appears at R(theta_k) v in the crop.
The image frame (col, row) is the world frame (x, y) scaled, so image and world angles agree.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ravens_env.cliport.config import CliportConfig
from ravens_env.cliport.streams import TwoStream


def rotation_angles(n_rotations: int) -> torch.Tensor:
    """(n_rotations,) radians: theta_k = 2 pi k / n."""
    return torch.arange(n_rotations, dtype=torch.float32) * (2.0 * math.pi / n_rotations)


def rotated_crops(x: torch.Tensor, pivots: torch.Tensor, angles: torch.Tensor,
                  size: int) -> torch.Tensor:
    """Crops of `x` centred on `pivots`, one per angle, by a single `grid_sample`.

    x (B, C, H, W); pivots (B, 2) pixel (row, col); angles (R,) radians -> (B, R, C, size, size).
    Crop pixel (i, j) samples x at pivot + R(-theta) (j - size/2, i - size/2) (col, row order),
    bilinearly, with zeros outside the image (as CLIPort's padded input). All rotations of a
    sample share one grid stacked along the rows, so the input is never copied R times.
    """
    b, c, h, w = x.shape
    r = angles.shape[0]
    half = size // 2
    offs = torch.arange(size, dtype=x.dtype, device=x.device) - half
    urow, ucol = torch.meshgrid(offs, offs, indexing="ij")  # (size, size) pixels
    cos = torch.cos(angles).to(x)[:, None, None]  # (R, 1, 1)
    sin = torch.sin(angles).to(x)[:, None, None]
    col = cos * ucol + sin * urow  # (R, size, size): R(-theta) u, col component
    row = -sin * ucol + cos * urow
    piv = pivots.to(x.dtype)
    col = col[None] + piv[:, 1, None, None, None]  # (B, R, size, size)
    row = row[None] + piv[:, 0, None, None, None]
    grid = torch.stack([2.0 * col / (w - 1) - 1.0, 2.0 * row / (h - 1) - 1.0], dim=-1)
    grid = grid.reshape(b, r * size, size, 2)  # rotations stacked along the rows
    out = F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True)
    return out.reshape(b, c, r, size, size).transpose(1, 2)


def correlate(key: torch.Tensor, kernels: torch.Tensor, method: str = "fft") -> torch.Tensor:
    """Cross-correlate each sample's key features with its R query kernels.

    key (B, D, H, W); kernels (B, R, D, k, k) with k even -> (B, R, H, W), where
    out[b, r, y, x] = sum_{d,i,j} key[b, d, y + i - k/2, x + j - k/2] * kernels[b, r, d, i, j]
    (zeros outside the image), so the kernel centre (k/2, k/2) lands on (y, x).
    `conv` is a grouped conv2d (what CLIPort runs); `fft` gives the same numbers with
    O(log) cost per pixel instead of k^2, which is what makes CPU training possible.
    """
    if method == "conv":
        return _correlate_conv(key, kernels)
    if method == "fft":
        return _correlate_fft(key, kernels)
    raise ValueError(f"unknown correlation {method!r}; use fft or conv")


def _correlate_conv(key: torch.Tensor, kernels: torch.Tensor) -> torch.Tensor:
    b, d, h, w = key.shape
    r, k = kernels.shape[1], kernels.shape[-1]
    out = F.conv2d(key.reshape(1, b * d, h, w), kernels.reshape(b * r, d, k, k),
                   padding=k // 2, groups=b)  # (1, B*R, H+1, W+1)
    return out[0, :, :h, :w].reshape(b, r, h, w)


def _correlate_fft(key: torch.Tensor, kernels: torch.Tensor) -> torch.Tensor:
    h, w = key.shape[-2:]
    k = kernels.shape[-1]
    size = (h + k, w + k)  # zero padding >= k/2 on each side: no circular wrap-around
    fk = torch.fft.rfft2(key, s=size)  # (B, D, H+k, (W+k)//2+1)
    fq = torch.fft.rfft2(kernels, s=size)  # (B, R, D, H+k, (W+k)//2+1)
    circ = torch.fft.irfft2((fk[:, None] * fq.conj()).sum(dim=2), s=size)  # (B, R, H+k, W+k)
    # circ[y] = sum_m key[y + m] q[m]; the wanted out[y] = circ[y - k/2].
    return torch.roll(circ, shifts=(k // 2, k // 2), dims=(-2, -1))[..., :h, :w]


def downsample(x: torch.Tensor, stride: int) -> torch.Tensor:
    """(B, C, H, W) -> (B, C, H/stride, W/stride) by average pooling (identity for stride 1)."""
    return x if stride == 1 else F.avg_pool2d(x, stride)


def upsample(logits: torch.Tensor, stride: int) -> torch.Tensor:
    """(B, C, h, w) -> (B, C, h*stride, w*stride) bilinearly; low-res cell i is centred on
    full-res coordinate stride * i + (stride - 1) / 2, the inverse of `downsample`."""
    if stride == 1:
        return logits
    return F.interpolate(logits, scale_factor=stride, mode="bilinear", align_corners=False)


def to_low_res(pixels: torch.Tensor, stride: int) -> torch.Tensor:
    """Full-res pixel coordinates (B, 2) -> fractional coordinates at the network resolution."""
    return (pixels.to(torch.float32) - (stride - 1) / 2.0) / stride


def _prior_gain(config: CliportConfig) -> nn.Parameter | None:
    """The learned weight of the colour prior (`color_prior`), 1 at start; None without it."""
    return nn.Parameter(torch.ones(1)) if config.color_prior else None


class PickNet(nn.Module):
    """Attention: one logit per pixel for where to pick (one rotation, as in CLIPort).

    With `color_prior`, prior_gain x the log colour-match map of the first named colour is
    added to the logits. Why: as input channels the maps compete with the raw RGB the semantic
    stream also reads, and from 100 demos of seven colours it learned those colours' pixels
    rather than the maps (unseen colours: 28% of attempts held); added to the logits, "the named
    colour is here" reaches the argmax whatever the hourglass learned.
    """

    def __init__(self, config: CliportConfig) -> None:
        super().__init__()
        self.stride = config.stride
        self.net = TwoStream(config, out_dim=1)
        self.prior_gain = _prior_gain(config)

    def forward(self, x: torch.Tensor, lang: torch.Tensor) -> torch.Tensor:
        # x (B, 4, H, W), lang (B, lang_dim) -> logits (B, 1, H, W)
        low = downsample(x, self.stride)  # (B, 4, H/s, W/s)
        logits = self.net(low, lang)
        if self.prior_gain is not None:
            logits = logits + self.prior_gain * self.net.semantic.match.prior(low[:, :3], lang, 0)
        return upsample(logits, self.stride)


class PlaceNet(nn.Module):
    """Transport: key features of the scene x rotated query crops at the pick -> (R, H, W)."""

    def __init__(self, config: CliportConfig) -> None:
        super().__init__()
        self.config = config
        self.key = TwoStream(config, out_dim=config.kernel_dim)
        self.query = TwoStream(config, out_dim=config.kernel_dim)
        self.register_buffer("angles", rotation_angles(config.n_rotations), persistent=False)
        self.prior_gain = _prior_gain(config)  # of the second named colour's map, as PickNet's
        # Sums over k*k*D products: scale so initial logits are O(1) and softmax is not flat.
        k = config.crop_size // config.stride
        self.scale = 1.0 / math.sqrt(config.kernel_dim * k * k)

    def forward(self, x: torch.Tensor, lang: torch.Tensor, pick: torch.Tensor) -> torch.Tensor:
        # x (B, 4, H, W), lang (B, lang_dim), pick (B, 2) pixel (row, col) -> (B, R, H, W)
        s = self.config.stride
        low = downsample(x, s)  # (B, 4, H/s, W/s)
        key = self.key(low, lang)  # (B, D, H/s, W/s)
        logits = correlate(key, self.kernels(low, lang, pick), self.config.correlation)
        logits = logits * self.scale  # (B, R, H/s, W/s)
        if self.prior_gain is not None:  # the same for every rotation: broadcast over R
            logits = logits + self.prior_gain * self.key.semantic.match.prior(low[:, :3], lang, 1)
        return upsample(logits, s)

    def kernels(self, low: torch.Tensor, lang: torch.Tensor, pick: torch.Tensor) -> torch.Tensor:
        """Query kernels (B, R, D, k, k), k = crop_size / stride, for full-res pick pixels;
        `low` is the input at the network's resolution."""
        cfg, r, s = self.config, self.config.n_rotations, self.config.stride
        pivots, k = to_low_res(pick, s), cfg.crop_size // s
        if cfg.query_mode == "features":  # Transporter: one query pass, rotate its features
            return rotated_crops(self.query(low, lang), pivots, self.angles, k)
        crops = rotated_crops(low, pivots, self.angles, k)  # CLIPort: (B, R, 4, k, k)
        q = self.query(crops.flatten(0, 1), lang.repeat_interleave(r, dim=0))  # (B*R, D, k, k)
        return q.reshape(crops.shape[0], r, *q.shape[1:])
