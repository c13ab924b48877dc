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


def _shown_commands(text: str) -> list[list[str]]:
    """Every `codeplan ...` command in the ```bash blocks of a markdown text, as argv
    (continuation lines joined, comments and `&& ...` chains cut)."""
    import re
    import shlex

    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            for part in line.split("&&"):
                part = part.split("  #")[0].split(" # ")[0].strip()
                if part.startswith("codeplan "):
                    commands.append(shlex.split(part)[1:])
    return commands


@pytest.mark.parametrize("doc", ["README.md", "docs/LLM_PLANNER.md"])
def test_every_codeplan_command_the_docs_show_parses(doc):
    """A command a reader copies from the Quickstart or the docs must exist with those flags
    (the README once kept `--paraphrases heldout-b` after the set was renamed)."""
    from runtime.cli import build_parser

    commands = _shown_commands((ROOT / doc).read_text(encoding="utf-8"))
    assert len(commands) >= 5
    parser = build_parser()
    for argv in commands:
        try:
            args = parser.parse_args(argv)
        except SystemExit:
            pytest.fail(f"{doc}: `codeplan {' '.join(argv)}` does not parse")
        if getattr(args, "paraphrases", None):
            from runtime.eval.closed_loop_paraphrases import load_paraphrases

            assert load_paraphrases(args.paraphrases), argv
