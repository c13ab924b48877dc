"""Shared fixtures: one simulator per test module keeps PyBullet start-up out of every test."""

from __future__ import annotations

import pytest

from ravens_env.env import TabletopEnv


@pytest.fixture(scope="module")
def env():
    with TabletopEnv() as e:
        yield e
