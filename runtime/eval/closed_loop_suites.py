"""Named closed-loop benchmark suites for `codeplan eval closed-loop --suite NAME`.

Why: the seed paper's Table 2 is three tasks × three validation modes; one name fixes the
tasks, the modes, the test seeds and the paper's numbers printed beside ours, so the table in
docs/RESULTS.md is one command.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ravens_env.tasks.suites import REASONING_TASKS

TEST_SEED_START = 1000  # test seeds; demos train on 0.., the actor's own eval uses 10000..


@dataclass(frozen=True)
class ClosedLoopSuite:
    """Tasks × modes on fixed seeds, with reference rates {task: {mode: rate}} to show."""

    name: str
    tasks: tuple[str, ...]
    modes: tuple[str, ...]
    seed_start: int = TEST_SEED_START
    # the failure preset a run gets without --situations (ravens_env.situations.PRESETS)
    situations: str = "dkprompt"
    reference_label: str = ""
    reference: dict[str, dict[str, float]] = field(default_factory=dict)
    reference_episodes: int = 0
    # {category: {system: rate}} from another benchmark, printed beside per-category rates
    category_reference: dict[str, dict[str, float]] = field(default_factory=dict)
    category_reference_label: str = ""


# Seed paper, Table 2: success over 15 episodes; "Codeplan" = open-loop, "+Success" = validate
# the last action, "+Progress" = re-validate every earlier action.
PAPER_TABLE2 = {
    "put-blocks-in-matching-bowls": {"open-loop": 0.0, "success": 0.267, "progress": 0.333},
    "put-darker-blocks-in-matching-bowls": {"open-loop": 0.0, "success": 0.333,
                                            "progress": 0.533},
    "put-blocks-in-mismatched-bowls": {"open-loop": 0.067, "success": 0.40, "progress": 0.60},
}

# VoLo (seed 002, arXiv 2606.07723), Table 1: RoboVoLo success per category (126 tasks in
# RoboLab / Isaac Lab, 3 episodes each), VoLoAgent (full) and the best code-as-policy baseline
# (CaP-X-s). ANOTHER benchmark (another simulator, objects and tasks): shown for scale only.
VOLO_CATEGORIES: dict[str, dict[str, float]] = {
    "reference": {"VoLo full": 0.5104, "CaP-X-s": 0.0729},  # "Complex References"
    "memory": {"VoLo full": 0.3690, "CaP-X-s": 0.1548},
    "common-sense": {"VoLo full": 0.5444, "CaP-X-s": 0.1556},
    "world-knowledge": {"VoLo full": 0.2500, "CaP-X-s": 0.0208},
}

# DKPROMPT's methods (issue 22) as table columns: (controller mode, planner); a planner of
# None keeps the run's `--planner`. `success` and `progress` are the seed paper's modes.
METHODS: dict[str, tuple[str, str | None]] = {
    "classical": ("open-loop", "offline"),  # a Fast Downward plan, executed blind
    "llm-planner": ("open-loop", "llm"),  # the LLM writes the plan; no feedback (VLM-planner)
    "aff-qa": ("aff-qa", "offline"),
    "suc-qa": ("suc-qa", "offline"),
    "suc-aff-qa": ("suc-aff-qa", "offline"),
    "pre-only": ("pre-only", "offline"),
    "eff-only": ("eff-only", "offline"),
    "dkprompt": ("dkprompt", "offline"),
}
# ConceptAgent's planners (issue 24) as columns, in progress mode; "+pg" adds its check.
STEP_METHODS: dict[str, tuple[str, str | None]] = {
    "react": ("progress", "react"),  # one LLM step at a time (the ablation's base)
    "mcts": ("progress", "mcts"),  # LLM-guided tree search over steps
}
# DKPROMPT (Zhang et al., 2024), Table 5: success over its 5 tasks (~20 trials each) in its
# own simulator, per method; another benchmark's figures, printed beside ours for scale.
DKPROMPT_TABLE5 = {"dkprompt": 0.665, "suc-aff-qa": 0.540, "suc-qa": 0.518, "eff-only": 0.530,
                   "pre-only": 0.415, "aff-qa": 0.359, "classical": 0.171, "llm-planner": 0.022}

# DKPROMPT's Table 5 methods and Table 4 ablations beside this project's modes, in the order
# of its table (the methods suites' columns).
METHOD_COLUMNS = ("classical", "llm-planner", "success", "progress", "aff-qa", "suc-qa",
                  "suc-aff-qa", "pre-only", "eff-only", "dkprompt")

SUITES: dict[str, ClosedLoopSuite] = {
    "paper-table2": ClosedLoopSuite(
        name="paper-table2", tasks=tuple(PAPER_TABLE2), modes=("open-loop", "success", "progress"),
        reference_label="seed paper (CLIPort + fine-tuned OFA)", reference=PAPER_TABLE2,
        reference_episodes=15),
    # The reasoning suite (issue 21): 14 tasks in four categories, progress mode; test seeds
    # 3000+ (the corpus and the grammar used dev seeds 5000+). Seeds 2000-2009 were the first
    # test seeds; their LLM failures were read and two examples rewritten after them, so they
    # are spent and the figures moved to seeds no choice has seen.
    "reasoning": ClosedLoopSuite(
        name="reasoning", tasks=tuple(REASONING_TASKS), modes=("progress",), seed_start=3000,
        category_reference=VOLO_CATEGORIES,
        category_reference_label="VoLo paper, RoboVoLo (another benchmark)"),
    # The method comparison (issue 22): the paper's tasks and stacking, every method, under
    # DKPROMPT's own grasp failures (pass --situations for another preset).
    "methods": ClosedLoopSuite(
        name="methods", tasks=(*PAPER_TABLE2, "stack-blocks"),
        modes=METHOD_COLUMNS, situations="dkprompt-grasp",
        # DKPROMPT reports one mean per method over its own five tasks: shown beside each of
        # our tasks, labelled as that mean and as another benchmark's.
        reference={t: DKPROMPT_TABLE5 for t in (*PAPER_TABLE2, "stack-blocks")},
        reference_label="DKPROMPT Table 5: its mean over its own 5 tasks (another simulator)",
        reference_episodes=20),
    # The same methods on the reasoning suite's 14 tasks (issue 22: "and the reasoning
    # suite's tasks"), on the reasoning suite's test seeds.
    "methods-reasoning": ClosedLoopSuite(
        name="methods-reasoning", tasks=tuple(REASONING_TASKS), modes=METHOD_COLUMNS,
        seed_start=3000, situations="dkprompt-grasp",
        reference={t: DKPROMPT_TABLE5 for t in REASONING_TASKS},
        reference_label="DKPROMPT Table 5: its mean over its own 5 tasks (another simulator)",
        reference_episodes=20),
    # VoLo's physical orchestration (issue 23): the learned actor with and without the
    # grounded tools, and the motion watcher, on the paper's tasks and both stacking tasks.
    "volo": ClosedLoopSuite(
        name="volo", tasks=(*PAPER_TABLE2, "stack-blocks", "stack-block-pyramid"),
        modes=("progress", "progress+tools", "monitor", "monitor+tools")),
    # The same with failures from motion on top of the injected ones (issue 23 item 4: "the
    # closed-loop table reported for it"): the arm and the carried block can strike what
    # stands in their way, so knocks come from the plan's own moves.
    "volo-natural": ClosedLoopSuite(
        name="volo-natural", tasks=(*PAPER_TABLE2, "stack-blocks", "stack-block-pyramid"),
        modes=("progress", "progress+tools", "monitor", "monitor+tools"),
        situations="dkprompt+natural"),
    # ConceptAgent's ablation (issue 24): ReAct, +precondition grounding, +LLM-guided MCTS,
    # both; the reasoning suite's tasks and the paper's, on test seeds 3000+ (paired: every
    # column meets the same scenes). Run with --planner llm (the packaged model, one shared
    # server) or --planner openai for a larger model.
    "conceptagent": ClosedLoopSuite(
        name="conceptagent", tasks=(*REASONING_TASKS, *PAPER_TABLE2),
        modes=("react", "react+pg", "mcts", "mcts+pg"), seed_start=3000),
}


TOOLS_SUFFIX = "+tools"  # a column "progress+tools": that mode with --tool-switch
PG_SUFFIX = "+pg"  # a column "react+pg": that planner with --preconditions llm


def base_column(column: str) -> str:
    """A column without its option suffixes ("react+pg" -> "react")."""
    for suffix in (PG_SUFFIX, TOOLS_SUFFIX):
        column = column.removesuffix(suffix)
    return column


def resolve_method(column: str, planner: str) -> tuple[str, str]:
    """(controller mode, planner) of a table column: a method's own pair, or a plain mode
    with the run's planner (a `+tools` / `+pg` suffix only adds an option: `uses_tools`,
    `uses_pg`)."""
    mode, own = {**METHODS, **STEP_METHODS}.get(base_column(column),
                                                 (base_column(column), None))
    return mode, own or planner


def uses_tools(column: str) -> bool:
    """Whether a column runs with the grounded tools switched in (`--tool-switch`)."""
    return column.removesuffix(PG_SUFFIX).endswith(TOOLS_SUFFIX)


def uses_pg(column: str) -> bool:
    """Whether a column runs with ConceptAgent's LLM preconditions (`--preconditions llm`)."""
    return column.endswith(PG_SUFFIX)


def get_suite(name: str) -> ClosedLoopSuite:
    """The suite called `name`; ValueError listing the known ones."""
    if name not in SUITES:
        raise ValueError(f"unknown closed-loop suite {name!r}; suites: {', '.join(SUITES)}")
    return SUITES[name]
