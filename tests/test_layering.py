"""The import direction between the project's packages, enforced by reading every module's imports.

Why: the layout is the architecture. A package may import only packages below it, so each
layer can be read, tested and shipped without the ones above it. The order, bottom to top:

    common < ravens_env < vrs < datagen < training < runtime

- `common` (provenance, statistics) imports no other package of the project.
- `ravens_env` is the simulator; its learned-agent subpackage `ravens_env/cliport/` is the only
  part of it that may import torch (checked statically and in a fresh interpreter below).
- `primitives` is what a codeplan imports. It may be imported by `runtime` (and by nothing else
  of the project) and imports nothing of the project but itself: the host reaches it by
  injection, registering the running episode in `primitives.episode` (`active(...)`), which the
  primitives forward to. So a codeplan's imports never pull in the runtime.
- `prompts` and `checkpoints` are data packages (planner prompt files, shipped models). Any
  package may use them; they import nothing of the project (`checkpoints/__init__.py` is a
  stdlib-only path resolver).

Every import counts: module-level and inside functions (a lazy import is still a dependency,
only a later one), `import X` and `from X import Y`, relative imports resolved against the
importing module's package. Imports under `if TYPE_CHECKING:` count too: an annotation that
names a higher layer's type is the same design dependency as a run-time import, and a
TYPE_CHECKING-only cycle is a cycle the day someone needs the type at run time.

Inside the project, modules must also form no import cycle (for example `env.py` importing
`situation_effects.py` which imports `env.py` back): a cycle makes two files one unit that
cannot be read, tested or moved apart.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ORDER = ["common", "ravens_env", "vrs", "datagen", "training", "runtime"]
INJECTED = "primitives"  # imported by runtime only; imports nothing of the project
DATA = ("prompts", "checkpoints")  # importable by anyone; import nothing of the project
PACKAGES = (*ORDER, INJECTED, *DATA)
SIM_CORE_EXCLUDED = "ravens_env.cliport"  # the simulator's learned-agent subpackage
TORCH = ("torch", "torchvision", "accelerate", "safetensors.torch", "sentence_transformers",
         "transformers")  # names whose import loads torch


def _module_name(path: Path) -> str:
    """'runtime/cli/run.py' -> 'runtime.cli.run'; a package's __init__.py is the package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _modules() -> dict[str, Path]:
    """Every module of the project's packages, by dotted name."""
    return {_module_name(p): p for pkg in PACKAGES if (ROOT / pkg).is_dir()
            for p in sorted((ROOT / pkg).rglob("*.py"))}


def _resolve_relative(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    """The absolute name `from .x import y` refers to, seen from `module` (a package's
    __init__.py counts as inside the package, a plain module as beside its siblings)."""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The modules one import statement names. `from pkg import name` names `pkg.name` when
    that is a module of the project (a submodule import), else `pkg` itself."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    is_package = _modules()[module].name == "__init__.py"
    source = _resolve_relative(module, node, is_package) if node.level else node.module
    for alias in node.names:
        yield f"{source}.{alias.name}" if f"{source}.{alias.name}" in _modules() else source


@cache
def _imports(module: str) -> tuple[tuple[str, int], ...]:
    """(imported module, line) for every import in a module, at any depth and under any `if`."""
    tree = ast.parse(_modules()[module].read_text())
    return tuple((target, node.lineno) for node in ast.walk(tree)
                 if isinstance(node, (ast.Import, ast.ImportFrom))
                 for target in _targets(module, node))


def _package(name: str) -> str | None:
    """The project package a dotted name belongs to (None: stdlib or third party)."""
    top = name.split(".")[0]
    return top if top in PACKAGES else None


def _project_module(name: str) -> str | None:
    """The project module an imported name resolves to: itself or its closest parent."""
    while name and name not in _modules():
        name = name.rpartition(".")[0]
    return name or None


def _violation(importer: str, imported: str) -> str | None:
    """Why importer may not import imported (None when it may)."""
    src, dst = _package(importer), _package(imported)
    if dst is None or src == dst or dst in DATA:
        return None
    if src in DATA:
        return f"{src} is a data package and imports nothing of the project"
    if src == INJECTED:
        return "primitives imports nothing of the project (the host reaches it by injection)"
    if dst == INJECTED:
        return None if src == "runtime" else "only runtime may import primitives"
    if ORDER.index(dst) > ORDER.index(src):
        return f"{src} is below {dst} in {' < '.join(ORDER)}"
    return None


def test_the_rules_say_why() -> None:
    """The checker itself: a few arrows each way, and relative imports resolved."""
    assert _violation("runtime.runner", "ravens_env.env") is None
    assert _violation("runtime.runner", "primitives.episode") is None
    assert _violation("vrs.loading", "checkpoints") is None
    assert "below" in _violation("ravens_env.env", "runtime.runner")
    assert "below" in _violation("training.detector.train", "runtime.eval.vqa")
    assert "injection" in _violation("primitives.plan_actions", "runtime.controller")
    assert "only runtime" in _violation("vrs.loading", "primitives")
    assert "data package" in _violation("checkpoints", "common.provenance")
    relative = ast.parse("from ..eval import vqa").body[0]
    assert _resolve_relative("runtime.cli.run", relative, is_package=False) == "runtime.eval"
    relative = ast.parse("from .run import x").body[0]
    assert _resolve_relative("runtime.cli", relative, is_package=True) == "runtime.cli.run"


def test_no_import_runs_against_the_layer_order() -> None:
    problems = [f"{_modules()[m].relative_to(ROOT)}:{line}: {m} imports {target}: {why}"
                for m in _modules() for target, line in _imports(m)
                if (why := _violation(m, target))]
    assert not problems, "imports against the layering:\n" + "\n".join(problems)


def _graph() -> dict[str, set[str]]:
    """module -> the project modules it imports (itself excluded)."""
    return {m: {t for target, _ in _imports(m) if (t := _project_module(target)) and t != m}
            for m in _modules()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while not component or component[-1] != node:
                        component.append(stack.pop())
                        on_stack.discard(component[-1])
                    if len(component) > 1:
                        out.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return out


def test_cycle_finder_finds_a_two_module_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_import_cycle_between_modules() -> None:
    graph = _graph()
    cycles = [" <-> ".join(c) + "  (" + "; ".join(
        f"{m} imports {', '.join(sorted(graph[m] & set(c)))}" for m in c) + ")"
        for c in _cycles(graph)]
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def _sim_core() -> list[str]:
    """The simulator core: ravens_env without its learned-agent subpackage."""
    return [m for m in _modules() if _package(m) == "ravens_env"
            and not (m == SIM_CORE_EXCLUDED or m.startswith(SIM_CORE_EXCLUDED + "."))]


def test_simulator_core_does_not_import_torch_or_the_learned_agent() -> None:
    bad = [f"{m}:{line} imports {target}" for m in _sim_core() for target, line in _imports(m)
           if target.startswith(SIM_CORE_EXCLUDED)
           or any(target == t or target.startswith(t + ".") for t in TORCH)]
    assert not bad, "the simulator core must run without torch:\n" + "\n".join(bad)


def test_simulator_core_runs_without_loading_torch() -> None:
    """A fresh interpreter: the env, the gym wrapper and the oracle actor leave torch unloaded."""
    code = ("import sys, ravens_env.env, ravens_env.gym_env, ravens_env.agents.oracle; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('torch', 'ravens_env') and (m == 'torch' or m.startswith('ravens_env.cliport'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, check=True).stdout.strip()
    assert out == "[]", f"importing the simulator core loaded {out}"


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_of_the_order_exists(package: str) -> None:
    """A renamed package must be renamed here too, or the rules above silently check nothing."""
    assert (ROOT / package / "__init__.py").is_file(), f"{package}/ is not a package"
