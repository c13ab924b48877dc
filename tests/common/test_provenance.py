"""Provenance outside a git checkout: an installed copy records no commit rather than a wrong
one."""

from __future__ import annotations

import subprocess

from common.provenance import git_commit, provenance


def test_no_commit_outside_a_checkout(tmp_path) -> None:
    assert git_commit(tmp_path) is None


def test_no_commit_for_a_copy_inside_another_checkout(tmp_path) -> None:
    """site-packages inside someone's git work tree is not that work tree's code."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "site-packages").mkdir()
    assert git_commit(tmp_path / "site-packages") is None


def test_provenance_has_every_field() -> None:
    assert set(provenance()) == {"date", "commit", "machine", "python", "torch"}
