"""The project's conventions hold in datagen too: module docstrings, typed public returns."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = [*sorted((ROOT / "datagen").rglob("*.py")), ROOT / "runtime" / "cli" / "datagen.py"]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_module_docstring_and_public_return_hints(path):
    tree = ast.parse(path.read_text())
    assert ast.get_docstring(tree), f"{path} has no module docstring"
    missing = [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
               and not n.name.startswith("_") and n.returns is None]
    assert not missing, f"{path.name}: {missing}"


def test_modules_stay_small():
    sizes = {p.name: len(p.read_text().splitlines()) for p in MODULES}
    assert max(sizes.values()) <= 250, sizes
