"""Fixtures for the actor's training tests: a small demo set made once per session, and the
cpu preset shrunk until a training step takes a fraction of a second."""

from __future__ import annotations

import pytest

from datagen.cliport_demos import generate_demos

DEMO_TASK = "put-block-in-bowl"


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("demos")
    generate_demos(DEMO_TASK, 2, out, seed_start=0, progress=False)
    return out


@pytest.fixture
def tiny() -> dict:
    return {"language": "hash", "widths": (8, 16), "stem_width": 8}
