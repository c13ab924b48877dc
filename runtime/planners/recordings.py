"""Recorded LLM exchanges: real model replies taken from run traces into a small JSONL file.

Why: the planner code a real model's output goes through (reply parsing, `extract_code`,
`with_imports`, the episode loop) must be tested on real output, and CI cannot download a
model. `export_recordings` keeps, per episode, the instruction, task, seed and outcome, and
per call the user message, parameters, raw reply, tokens, latency and the codeplan the
planner made of it (the system prompt is stored once, not per call, to stay small).

    python -m runtime.planners.recordings OUT.jsonl RUN_DIR...
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from runtime.trace import read_trace


def episode_records(run_dir: Path) -> list[dict]:
    """The episode line, then one line per LLM exchange of a run directory."""
    header, events = read_trace(run_dir)
    end = next((e for e in events if e["type"] == "episode_end"), {})
    base = {"task": header["task"], "seed": header["seed"],
            "instruction": header["instruction"]}
    out = [{"kind": "episode", **base, "mode": header["mode"], "actor": header["actor"],
            "reasoner": header["reasoner"], "situations": header["situations"],
            "success": end.get("success"), "counts": end.get("counts", {})}]
    sources = {e["attempt"]: e["source"] for e in events if e["type"] == "plan"}
    for e in events:
        if e["type"] != "llm_exchange":
            continue
        messages = e.get("messages") or []
        out.append({"kind": "exchange", **base, "attempt": e.get("attempt"),
                    "user": messages[-1]["content"] if messages else None,
                    "params": e.get("params"), "model": e.get("reply_model") or e.get("model"),
                    "reply": e.get("reply"), "error": e.get("error"),
                    "finish_reason": e.get("finish_reason"),
                    "prompt_tokens": e.get("prompt_tokens"),
                    "completion_tokens": e.get("completion_tokens"),
                    "latency_s": e.get("latency_s"),
                    "rejected": e.get("rejected"), "source": _source(e, sources)})
    return out


def _source(exchange: dict, sources: dict[int, str]) -> str | None:
    """The codeplan the planner made of this reply: recorded with the exchange, or (traces
    from before that) the attempt's codeplan when the reply was neither rejected nor failed."""
    if "source" in exchange or exchange.get("error") or exchange.get("rejected"):
        return exchange.get("source")
    return sources.get(exchange.get("attempt"))


def system_prompt(run_dir: Path) -> str | None:
    """The system message of a run's first LLM call."""
    for e in read_trace(run_dir)[1]:
        if e["type"] == "llm_exchange" and e.get("messages"):
            return e["messages"][0]["content"]
    return None


def export_recordings(run_dirs: list[Path], out: Path) -> int:
    """Write the recordings of `run_dirs` to `out`; returns the number of exchanges."""
    lines, system = [], None
    for run_dir in run_dirs:
        system = system or system_prompt(run_dir)
        lines += episode_records(run_dir)
    lines.insert(0, {"kind": "system", "content": system})
    out.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return sum(x["kind"] == "exchange" for x in lines)


def load_recordings(path: Path) -> list[dict]:
    """The lines of a recordings file."""
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()
            if line.strip()]


if __name__ == "__main__":
    n = export_recordings([Path(p) for p in sys.argv[2:]], Path(sys.argv[1]))
    print(f"{n} exchanges -> {sys.argv[1]}")
