"""Value types of the codeplan sandbox: its limits and the result of one run.

They live apart from ``runtime.sandbox`` so the worker side can use them without
importing the host side.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["ok", "syntax", "violation", "runtime", "budget", "killed"]
KINDS: frozenset[str] = frozenset({"ok", "syntax", "violation", "runtime", "budget", "killed"})


@dataclass(frozen=True)
class Limits:
    """Budgets for one codeplan run.

    Why two clocks: ``max_seconds`` is checked by the codeplan's own step guard (a clean
    ``budget`` stop), while the host kills the worker at ``max_seconds + kill_grace_s``
    for the C-level loops no guard can interrupt (``kind='killed'``). Time the host
    spends serving API calls (the simulator, the VQA model) counts against neither:
    the sandbox bounds the codeplan, not the robot.
    """

    max_steps: int = 100_000  # guard calls: loop iterations + function calls
    max_seconds: float = 10.0  # codeplan run time, s, excluding host API calls
    kill_grace_s: float = 0.5  # extra s before the host kills a stuck worker
    max_memory_mb: int = 1024  # extra address space for the worker, MiB
    max_depth: int = 200  # codeplan call depth (Python frames)
    max_calls: int = 10_000  # proxied API calls per run
    max_print_chars: int = 100_000  # printed text kept per run, characters
    max_source_chars: int = 200_000  # codeplan source size, characters

    def __post_init__(self) -> None:
        for name in ("max_steps", "max_memory_mb", "max_depth", "max_calls"):
            if getattr(self, name) < 1:
                raise ValueError(f"Limits.{name} must be >= 1")
        if self.max_seconds <= 0 or self.kill_grace_s < 0:
            raise ValueError("Limits.max_seconds must be > 0 and kill_grace_s >= 0")


@dataclass(frozen=True)
class SandboxResult:
    """What one run did; ``error`` is one line, fit to show an LLM planner."""

    kind: Kind
    error: str | None = None
    line: int | None = None  # codeplan line of the error, when known
    prints: list[str] = field(default_factory=list)
    steps: int = 0
    calls: int = 0  # proxied API calls served by the host
    wall_s: float = 0.0  # host wall-clock for the whole run, s

    @property
    def ok(self) -> bool:
        return self.kind == "ok"
