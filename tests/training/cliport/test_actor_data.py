"""The demo Dataset and its rotation augmentation: labels must stay on their objects."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from datagen.cliport_demos import load_episode
from ravens_env.cliport import preset
from ravens_env.cliport.actions import yaw_to_bin
from ravens_env.cliport.language import HashEncoder
from training.cliport.data import DemoDataset, random_rotation, rotate_image, rotate_pixels

SHAPE = (320, 160)


def _blobs(pick: tuple[int, int], place: tuple[int, int]) -> torch.Tensor:
    """A (4, H, W) image: value 1 on a 7x7 square at the pick, 2 at the place, 0 elsewhere."""
    image = torch.zeros(4, *SHAPE)
    for value, (r, c) in ((1.0, pick), (2.0, place)):
        image[:, r - 3:r + 4, c - 3:c + 4] = value
    return image


@pytest.mark.parametrize("seed", range(12))
def test_turned_labels_stay_on_the_pixels_of_their_objects(seed):
    rng = np.random.default_rng(seed)
    pick = (int(rng.integers(60, 260)), int(rng.integers(20, 140)))
    place = (int(rng.integers(60, 260)), int(rng.integers(20, 140)))
    if max(abs(pick[0] - place[0]), abs(pick[1] - place[1])) < 8:
        place = (place[0] + 20, place[1])
    labels = np.array([pick, place])
    angle, shift, turned = random_rotation(rng, labels, SHAPE, shift_sigma=27.0 * (seed % 2))
    assert angle != 0.0  # these labels are central enough for some angle to fit
    assert (shift != (0.0, 0.0)) == bool(seed % 2)
    image = rotate_image(_blobs(pick, place), angle, shift)
    assert ((turned >= 0) & (turned < np.array(SHAPE))).all()
    assert float(image[0, turned[0, 0], turned[0, 1]]) == 1.0
    assert float(image[0, turned[1, 0], turned[1, 1]]) == 2.0


def test_turning_pixels_agrees_with_turning_the_image():
    image = torch.zeros(1, *SHAPE)
    image[0, 100, 30] = 1.0
    for angle, shift in ((0.3, (0.0, 0.0)), (1.2, (12.0, -7.0)), (-2.0, (-30.0, 4.0))):
        (row, col), = rotate_pixels(np.array([[100, 30]]), angle, SHAPE, shift)
        assert float(rotate_image(image, angle, shift)[0, row, col]) == 1.0


def test_labels_near_a_corner_are_kept_unturned_when_no_angle_fits():
    rng = np.random.default_rng(0)
    labels = np.array([[1, 1], [318, 158]])  # opposite corners: no rotation keeps both inside
    angle, shift, turned = random_rotation(rng, labels, SHAPE, shift_sigma=20.0)
    assert angle == 0.0 and shift == (0.0, 0.0) and np.array_equal(turned, labels)


def test_dataset_items_are_network_ready(demo_dir, tiny):
    config = preset("cpu", **tiny)
    encoder = HashEncoder()
    plain = DemoDataset(demo_dir, config, encoder, augment=False)
    assert len(plain) == 2  # two one-step episodes
    arrays, meta = load_episode(plain.files[0])
    item = plain[0]
    assert item["image"].shape == (4, 320, 160) and item["image"].dtype == torch.float32
    assert tuple(item["pick"].tolist()) == tuple(arrays["pick"][0])
    assert tuple(item["place"].tolist()) == tuple(arrays["place"][0])
    assert int(item["rotation"]) == yaw_to_bin(float(arrays["yaw_change"][0]), 36)
    assert torch.equal(item["lang"], encoder.encode([meta["steps"][0]["instruction"]])[0])


def test_augmented_items_keep_the_pick_on_top_of_the_block(demo_dir, tiny):
    config = preset("cpu", **tiny)
    dataset = DemoDataset(demo_dir, config, HashEncoder(), augment=True)
    torch.manual_seed(0)
    block_top = 0.04 / config.height_std  # normalised height of a 4 cm block's top face
    stored = tuple(load_episode(dataset.files[0])[0]["pick"][0])
    picks = set()
    for _ in range(6):
        item = dataset[0]
        row, col = item["pick"].tolist()
        picks.add((row, col))
        assert float(item["image"][3, row, col]) == pytest.approx(block_top, abs=0.1)
    assert picks - {stored}, "no item was turned"


def test_training_code_imports_without_the_simulator():
    """A lent GPU machine has torch but no PyBullet: reading demos and training must not
    import the simulator (only recording demos does)."""
    import subprocess
    import sys

    code = ("import sys; sys.modules['pybullet'] = None; "
            "import datagen.cliport_demo_files, training.cliport.train, "
            "ravens_env.cliport.language")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-800:]


def test_max_episodes_keeps_the_lowest_seeds(demo_dir):
    full = DemoDataset(demo_dir, preset("cpu", language="hash"), HashEncoder())
    first = DemoDataset(demo_dir, preset("cpu", language="hash"), HashEncoder(), max_episodes=1)
    assert len(full.files) == 2 and first.files == full.files[:1]
    assert len(first) == len(load_episode(full.files[0])[1]["steps"])
