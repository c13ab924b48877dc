"""Demonstration steps as a torch Dataset for the CLIPort actor, with SE(2) augmentation.

Every (episode, step) of every demo file in a directory is one item, so a shuffled sampler
draws steps uniformly at random. Items are network-ready: the normalised (4, H, W) input, the
instruction's embedding (computed once per distinct instruction), pick and place pixels and the
rotation bin. Augmentation turns the whole scene about the image centre by a random angle and,
with `shift_sigma`, moves it by a random offset (Transporter's SE(2) augmentation: a normal
shift of about a sixth of the short side): pick and place pixels move with it, and the rotation
bin does not change, since it is the yaw *difference* between the pick and place
neighbourhoods, which a rigid motion of the whole scene preserves. Few demos need the shift
most: without it, 100 demos show each object at only ~100 places.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import Dataset

from datagen.cliport_demo_files import load_episode
from ravens_env.cliport.actions import yaw_to_bin
from ravens_env.cliport.config import CliportConfig
from ravens_env.cliport.language import CachedEncoder
from ravens_env.cliport.policy import to_input

AUGMENT_TRIES = 10  # angles drawn before giving up and keeping the sample unrotated
LABEL_MARGIN = 2  # pixels kept between a turned label and the image border


def rotate_pixels(pixels: np.ndarray, angle: float, shape: tuple[int, int],
                  shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """(N, 2) (row, col) turned by `angle` radians about the image centre, then moved by
    `shift` (rows, cols), rounded to pixels.

    The (col, row) frame is the world (x, y) frame scaled, so +angle turns the scene
    counter-clockwise as seen in world coordinates, like a positive yaw.
    """
    cr, cc = (shape[0] - 1) / 2.0, (shape[1] - 1) / 2.0
    dr, dc = pixels[:, 0] - cr, pixels[:, 1] - cc
    cos, sin = math.cos(angle), math.sin(angle)
    col = cc + cos * dc - sin * dr + shift[1]
    row = cr + sin * dc + cos * dr + shift[0]
    return np.rint(np.stack([row, col], axis=1)).astype(np.int64)


def rotate_image(image: torch.Tensor, angle: float,
                 shift: tuple[float, float] = (0.0, 0.0)) -> torch.Tensor:
    """(C, H, W) turned by `angle` about the centre and moved by `shift` (rows, cols) as
    `rotate_pixels` moves labels, nearest-neighbour (values are copied, not blended, so
    heights stay exact), zeros where the moved image does not reach."""
    h, w = image.shape[-2:]
    cr, cc = (h - 1) / 2.0, (w - 1) / 2.0
    rows, cols = torch.meshgrid(torch.arange(h, dtype=torch.float32),
                                torch.arange(w, dtype=torch.float32), indexing="ij")
    cos, sin = math.cos(angle), math.sin(angle)
    dc, dr = cols - cc - shift[1], rows - cr - shift[0]
    src_col = cc + cos * dc + sin * dr  # inverse motion: where each output pixel comes from
    src_row = cr - sin * dc + cos * dr
    grid = torch.stack([2 * src_col / (w - 1) - 1, 2 * src_row / (h - 1) - 1], dim=-1)
    out = F.grid_sample(image[None].float(), grid[None], mode="nearest",
                        padding_mode="zeros", align_corners=True)
    return out[0].to(image.dtype)


def random_rotation(rng: np.random.Generator, labels: np.ndarray, shape: tuple[int, int],
                    shift_sigma: float = 0.0) -> tuple[float, tuple[float, float], np.ndarray]:
    """A random angle and shift (normal, `shift_sigma` px per axis) whose moved labels (N, 2)
    stay inside the image; (0, (0, 0), labels) if none of AUGMENT_TRIES draws does (a label far
    from the centre of the long, thin image)."""
    for _ in range(AUGMENT_TRIES):
        angle = float(rng.uniform(-math.pi, math.pi))
        shift = tuple(float(x) for x in rng.normal(0.0, shift_sigma, 2)) if shift_sigma else \
            (0.0, 0.0)
        moved = rotate_pixels(labels, angle, shape, shift)
        inside = ((moved >= LABEL_MARGIN)
                  & (moved <= np.array(shape) - 1 - LABEL_MARGIN)).all()
        if inside:
            return angle, shift, moved
    return 0.0, (0.0, 0.0), labels.astype(np.int64)


class DemoDataset(Dataset):
    """Every step of every `*.npz` demo in `demo_dir` (or of its first `max_episodes` files in
    name order, i.e. the lowest seeds: "trained on 100 demos" is reproducible); items are dicts
    of tensors."""

    def __init__(self, demo_dir: str | Path, config: CliportConfig, encoder: CachedEncoder,
                 augment: bool = True, cache_episodes: int = 64,
                 max_episodes: int | None = None, shift_sigma: float = 0.0) -> None:
        self.config, self.augment, self.cache_size = config, augment, cache_episodes
        self.shift_sigma = shift_sigma  # px per axis; 0: rotation only
        self.files = sorted(Path(demo_dir).glob("*.npz"))[:max_episodes]  # lowest seeds first
        if not self.files:
            raise FileNotFoundError(f"no demo files (*.npz) in {demo_dir}")
        self.index: list[tuple[int, int]] = []  # (file, step)
        texts: set[str] = set()
        for i, path in enumerate(self.files):
            _, meta = load_episode(path)
            self.index += [(i, t) for t in range(len(meta["steps"]))]
            texts.update(s["instruction"] for s in meta["steps"])
        if not self.index:
            raise ValueError(f"the demos in {demo_dir} have no steps")
        ordered = sorted(texts)
        self.lang = dict(zip(ordered, encoder.encode(ordered), strict=True))  # text -> (L,)
        self._cache: OrderedDict[int, tuple[dict, dict]] = OrderedDict()

    def __len__(self) -> int:
        return len(self.index)

    def _episode(self, i: int) -> tuple[dict, dict]:
        if i not in self._cache:
            self._cache[i] = load_episode(self.files[i])
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        self._cache.move_to_end(i)
        return self._cache[i]

    def __getitem__(self, item: int) -> dict[str, torch.Tensor]:
        """{'image' (4, H, W) float32, 'lang' (L,), 'pick' (2,), 'place' (2,), 'rotation' ()}."""
        arrays, meta = self._episode(self.index[item][0])
        t = self.index[item][1]
        image = to_input(arrays["color"][t], arrays["height"][t].astype(np.float32), self.config)
        labels = np.stack([arrays["pick"][t], arrays["place"][t]]).astype(np.int64)  # (2, 2)
        if self.augment:
            # Seeded from torch's generator, which accelerate/DataLoader seed per process/worker.
            rng = np.random.default_rng(int(torch.randint(0, 2**62, ())))
            angle, shift, labels = random_rotation(rng, labels, self.config.image_shape,
                                                   self.shift_sigma)
            if angle or any(shift):  # after normalising: uncovered parts become mean-colour table
                image = rotate_image(image, angle, shift)
        rotation = yaw_to_bin(float(arrays["yaw_change"][t]), self.config.n_rotations)
        return {"image": image, "lang": self.lang[meta["steps"][t]["instruction"]],
                "pick": torch.as_tensor(labels[0]), "place": torch.as_tensor(labels[1]),
                "rotation": torch.tensor(rotation)}
