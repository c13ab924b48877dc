"""The color-word grounding prior: which words count as colors, and the vectors it appends."""

from __future__ import annotations

import numpy as np
import pytest

from ravens_env.cliport.color_words import DARK_SCALE, RGB_DIM, color_mentions, rgb_features
from ravens_env.cliport.language import language_dim, make_encoder


def test_mentions_follow_the_instruction_order_and_skip_other_words():
    assert color_mentions("put the orange block in the blue bowl") == [
        pytest.approx((1.0, 165 / 255, 0.0)), pytest.approx((0.0, 0.0, 1.0))]
    assert color_mentions("put the block on the stand") == []


def test_dark_uses_the_lexicon_entry_or_a_dimmed_base_color():
    assert color_mentions("the dark red block") == [pytest.approx((139 / 255, 0.0, 0.0))]
    yellow = color_mentions("yellow")[0]
    assert color_mentions("dark yellow")[0] == pytest.approx(tuple(DARK_SCALE * c
                                                                   for c in yellow))
    assert color_mentions("grey bowl") == color_mentions("gray bowl")


def test_features_hold_two_mentions_scaled_to_unit_range_and_zeros_when_absent():
    feats = rgb_features("put the white block on the black block and the red block")
    assert feats.shape == (RGB_DIM,) and feats.dtype == np.float32
    assert feats.tolist() == [1, 1, 1, -1, -1, -1]  # white, black; the third is dropped
    assert not rgb_features("put the block on the stand").any()


def test_rgb_languages_append_the_features_to_the_sentence_vector():
    plain = make_encoder("hash")
    rgb = make_encoder("hash+rgb", language_dim("hash+rgb"))
    text = "put the pink block in the cyan bowl"
    vec = rgb.encode([text])[0]
    assert rgb.name == "hash+rgb" and vec.shape == (language_dim("hash+rgb"),)
    assert np.allclose(vec[:-RGB_DIM], plain.encode([text])[0])
    assert np.allclose(vec[-RGB_DIM:], rgb_features(text))
    with pytest.raises(ValueError, match="needs lang_dim"):
        make_encoder("hash+rgb", RGB_DIM)
