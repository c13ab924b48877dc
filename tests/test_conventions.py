"""Project conventions, enforced: task docstrings, module docstrings, test layout."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import ravens_env
from ravens_env.tasks import make_task, task_ids

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["common", "ravens_env", "runtime", "vrs", "primitives", "datagen", "training",
            "checkpoints"]


@pytest.mark.parametrize("task", task_ids())
def test_task_docstring_has_the_three_sections(task):
    doc = inspect.getdoc(type(make_task(task))) or ""
    for section in ("Task Description:", "Randomizations:", "Success Conditions:"):
        assert section in doc, f"{task} lacks {section!r}"


@pytest.mark.parametrize("task", task_ids())
def test_one_task_per_file(task):
    cls = type(make_task(task))
    tree = ast.parse(Path(inspect.getfile(cls)).read_text())
    bases = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    assert len({c for c in bases if not c.endswith(("Seen", "Unseen"))}) == 1


def _modules():
    for pkg in PACKAGES:
        yield from sorted((ROOT / pkg).rglob("*.py"))


@pytest.mark.parametrize("path", list(_modules()), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_says_why_it_exists(path):
    if path.name == "__init__.py" and not path.read_text().strip():
        return
    assert ast.get_docstring(ast.parse(path.read_text())), f"{path} has no module docstring"


@pytest.mark.parametrize("path", list(_modules()), ids=lambda p: str(p.relative_to(ROOT)))
def test_public_functions_have_type_hinted_returns(path):
    tree = ast.parse(path.read_text())
    missing = [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
               and not n.name.startswith("_") and n.returns is None]
    assert not missing, f"{path.name}: {missing}"


def test_tests_mirror_the_packages():
    for pkg in PACKAGES:
        assert (ROOT / "tests" / pkg).is_dir(), f"tests/{pkg}/ is missing"
    assert Path(ravens_env.__file__).parent == ROOT / "ravens_env"


MAX_FUNCTION_LINES = 60


@pytest.mark.parametrize("path", list(_modules()), ids=lambda p: str(p.relative_to(ROOT)))
def test_functions_are_short_enough_to_read_at_a_glance(path):
    tree = ast.parse(path.read_text())
    long = [f"{n.name} ({n.end_lineno - n.lineno + 1} lines)" for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.end_lineno - n.lineno + 1 > MAX_FUNCTION_LINES]
    assert not long, f"{path.name}: {long}"


CHECKPOINTS = sorted(p for p in (ROOT / "checkpoints").iterdir()
                     if p.is_dir() and not p.name.startswith("__"))  # not __pycache__


@pytest.mark.parametrize("ckpt", CHECKPOINTS, ids=[p.name for p in CHECKPOINTS])
def test_every_shipped_checkpoint_is_small_complete_and_documented(ckpt):
    """The brief: each checkpoint ≤ 25 MB, config + safetensors, with the command that makes it."""
    size = sum(f.stat().st_size for f in ckpt.rglob("*") if f.is_file())
    assert size <= 25 * 2**20, f"{ckpt.name} is {size / 2**20:.1f} MB"
    assert (ckpt / "config.json").is_file() and (ckpt / "model.safetensors").is_file()
    assert f"`{ckpt.name}`" in (ROOT / "checkpoints" / "README.md").read_text()
