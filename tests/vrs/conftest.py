"""Shared fixtures of the vrs tests: one tiny generated VQA dataset and one trained tokenizer
per session, and the small OFA-style network size the model tests use."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_vqa(tmp_path_factory) -> Path:
    """A `codeplan datagen vqa` output: 6 images x 8 questions of block_bowl and block_stack."""
    from datagen import generate

    out = tmp_path_factory.mktemp("vqa-tiny")
    generate(out, ["block_bowl", "block_stack"], images_per_split=6, questions_per_image=8,
             shard_size=6, progress=False)
    return out


@pytest.fixture(scope="session")
def small_ofa() -> dict:
    """OfaConfig overrides for a network of a few thousand parameters: the OFA-style tests
    check behaviour, not accuracy."""
    return dict(d_model=32, heads=2, encoder_layers=1, decoder_layers=1,
                stem_channels=(8, 8, 16, 16))


@pytest.fixture(scope="session")
def tokenizer():
    """The question-language BPE tokenizer (deterministic; trained once per session)."""
    from vrs.ofa.tokenizer import train_tokenizer

    return train_tokenizer()
