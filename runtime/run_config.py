"""What a closed-loop run is asked to do (`RunConfig`) and what it reports (`RunResult`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from runtime.controller import MAX_EPISODE_CALLS, MAX_EPISODE_S


@dataclass
class RunConfig:
    """One episode's settings; the defaults are `codeplan run`'s embedded defaults."""

    instruction: str | None = None  # None: the task's canonical instruction
    task: str = "put-blocks-in-matching-bowls"
    seed: int = 0
    mode: str = "progress"
    planner: str = "offline"
    planner_options: dict[str, Any] = field(default_factory=dict)  # model, base_url, path
    reasoner: str = "default"  # the shipped learned reasoner (vrs.loading.DEFAULT)
    actor: str = "oracle"
    situations: str = "none"
    tool_switch: bool = False  # grounded grasp / place for a step the actor failed twice
    # ConceptAgent's precondition check before each put: "none", "llm" (the planner's LLM
    # writes them once, cached) or "reference" (the hand-written set)
    preconditions: str = "none"
    runs_dir: Path = Path("runs")
    max_plans: int | None = None  # None: 5 (1 + 4 recovery codeplans), 21 in a monitor mode
    # The episode budget over all codeplans: execution seconds (planner time not counted)
    # and primitive calls; `EpisodeBudget` says why, docs/RESULTS.md how the defaults were set.
    max_episode_s: float = MAX_EPISODE_S
    max_episode_calls: int = MAX_EPISODE_CALLS
    report: bool = True  # write report.html and episode.gif
    # A first codeplan the planner cannot write is bad input for `codeplan run` (RunError,
    # exit 2: "put the gold block..."), but in a benchmark it is the episode's failure (the
    # instruction is canonical; the perceived scene was wrong): False records it and scores.
    first_plan_error_is_fatal: bool = True

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["runs_dir"] = str(self.runs_dir)
        return d


@dataclass
class RunResult:
    """The outcome; `success` is always the simulator's ground truth."""

    success: bool
    run_dir: str
    task: str
    seed: int
    instruction: str
    mode: str
    planner: str
    reasoner: str
    actor: str
    situations: str
    believed_done: bool
    failure_reason: str | None
    counts: dict[str, float]  # integers, except llm_s (seconds spent waiting for the LLM)
    wall_s: float
    final_scene: dict[str, Any]
    plans: list[str] = field(default_factory=list)
    report_error: str | None = None  # why report.html could not be written, if it could not

    def to_dict(self) -> dict[str, Any]:
        """All fields, plus the headline counts at the top level for quick `jq` access
        (the LLM's calls, tokens and seconds among them: 0 for a planner with no LLM)."""
        d = asdict(self)
        for key in ("actions", "retries", "replans", "questions"):
            d[key] = self.counts[key]
        for key in ("llm_calls", "prompt_tokens", "completion_tokens", "llm_s"):
            d[key] = self.counts.get(key, 0)
        return d


class RunError(RuntimeError):
    """The run itself could not happen (bad settings, no first codeplan)."""
