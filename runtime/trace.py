"""Traces: every event of a closed-loop run as JSON lines, frames as PNG files beside them.

Written as it happens (one flushed line per event), so a crash mid-episode still leaves a
readable trace. The first line carries the schema version; `codeplan replay` reads the rest
without a simulator, reasoner or LLM.

Layout of a run directory:
    trace.jsonl          {"schema": "codeplan-trace/1", ...} then one event per line
    frames/0000.png      front camera after reset, then after every action
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

SCHEMA = "codeplan-trace/1"


class TraceWriter:
    """Appends events to `run_dir/trace.jsonl`; `frame()` stores a PNG and returns its path."""

    def __init__(self, run_dir: Path, meta: dict[str, Any]) -> None:
        self.run_dir = Path(run_dir)
        (self.run_dir / "frames").mkdir(parents=True, exist_ok=True)
        self.path = self.run_dir / "trace.jsonl"
        self._file = self.path.open("w", encoding="utf-8")
        self._t0 = time.perf_counter()
        self._seq = 0
        self._frames = 0
        self._write({"schema": SCHEMA, **meta})

    def event(self, event_type: str, /, **data: Any) -> None:
        """Record one event now: {"seq", "t" (s since start), "type", ...data}."""
        self._seq += 1
        t = round(time.perf_counter() - self._t0, 4)
        self._write({"seq": self._seq, "t": t, "type": event_type, **data})

    def frame(self, rgb: np.ndarray, label: str) -> str:
        """Save an (H, W, 3) uint8 image as the next PNG; returns its path relative to the run."""
        from PIL import Image

        rel = f"frames/{self._frames:04d}.png"
        Image.fromarray(rgb).save(self.run_dir / rel, optimize=False, compress_level=1)
        self._frames += 1
        self.event("frame", path=rel, label=label)
        return rel

    def _write(self, record: dict[str, Any]) -> None:
        self._file.write(json.dumps(record, default=_jsonable) + "\n")
        self._file.flush()

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return repr(value)


class TraceFormatError(ValueError):
    """A file that is not a codeplan trace (or a newer schema)."""


def read_trace(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(header, events) of a trace file or run directory. A truncated last line (a crash
    mid-write) is dropped, so a trace of a crashed run still reads."""
    path = Path(path)
    if path.is_dir():
        path = path / "trace.jsonl"
    if not path.exists():
        raise TraceFormatError(f"no trace at {path}")
    lines = list(_lines(path))
    if not lines or lines[0].get("schema") != SCHEMA:
        raise TraceFormatError(f"{path} is not a {SCHEMA} trace (first line: "
                               f"{str(lines[0])[:80] if lines else 'empty file'})")
    return lines[0], lines[1:]


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    raw = path.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(raw):
        try:
            yield json.loads(line)
        except json.JSONDecodeError:
            if i == len(raw) - 1:
                return  # cut off by a crash
            raise TraceFormatError(f"{path}:{i + 1} is not JSON") from None
