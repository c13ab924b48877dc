"""Shared fixtures of the vrs tests: one tiny generated VQA dataset per session."""

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
