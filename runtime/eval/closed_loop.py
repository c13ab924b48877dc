"""`codeplan eval closed-loop`: success rate by task and validation mode, with 95% intervals.

Every (task, mode, seed) episode is an independent `run_episode` with its own trace under
`<out>/runs/`, so any episode can be re-run from its seed (`codeplan run --task T --seed S
--mode M ...`) or replayed from its trace. Episodes use seeds seed_start .. seed_start +
episodes - 1 for every mode (a paired comparison), and the result does not depend on the
number of worker processes: each episode is seeded by its own (task, seed) alone.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path

from common.executor import Executor, imap_unordered
from common.stats import wilson_interval
from runtime.eval.closed_loop_paraphrases import Paraphrase, load_paraphrases
from runtime.eval.closed_loop_suites import resolve_method, uses_pg, uses_tools
from runtime.eval.diagnostics import CAUSES, diagnose_run
from runtime.run_config import RunConfig

COUNTS = ("actions", "failed_actions", "retries", "replans", "questions", "reasoner_calls",
          "planner_calls", "llm_calls", "prompt_tokens", "completion_tokens", "llm_s")
# The LLM's cost per episode (means over a cell): 0 for a planner with no LLM.
LLM_COSTS = ("llm_calls", "prompt_tokens", "completion_tokens", "llm_s")
# planner option -> the `codeplan run` flag that sets it
_FLAGS = {"timeout_s": "--llm-timeout", "path": "--plan-file"}
# Planners that run on the packaged local model: an evaluation shares one server among them.
LOCAL_LLM_PLANNERS = {"llm", "react", "mcts"}
LLM_ON_A_CLUSTER = (
    "the packaged LLM's server listens on this machine only, so a Ray cluster's other nodes "
    "cannot reach it: run `codeplan serve llm --host 0.0.0.0` on one node per node group (or "
    "any OpenAI-compatible server) and pass --planner openai --base-url http://HOST:PORT/v1")
STEP_PLANNERS = {"react", "mcts"}  # ConceptAgent's: on --planner openai they use its server
_RUN_ONLY = {"server_url"}  # set by the evaluation itself for its workers: not a flag


@dataclass
class EvalSpec:
    tasks: list[str]
    modes: list[str]
    episodes: int = 50
    seed_start: int = 1000  # test seeds, disjoint from the 0-based seeds used while developing
    situations: str = "dkprompt"
    actor: str = "oracle"
    reasoner: str = "default"
    planner: str = "offline"
    planner_options: dict = field(default_factory=dict)  # model, base_url (None: not given)
    workers: int = 1
    out_dir: Path = Path("results/closed-loop")
    suite: str | None = None
    reference: dict = field(default_factory=dict)  # {task: {mode: rate}} shown beside ours
    reference_label: str = ""
    reference_episodes: int = 0
    paraphrases: str | None = None  # a paraphrase set: episode k is its k-th instruction
    resume: bool = False  # keep the finished episodes already in out_dir/episodes.jsonl
    tool_switch: bool = False  # `--tool-switch`: the grounded tools after two failures
    preconditions: str = "none"  # `--preconditions`: ConceptAgent's check before each put
    executor: str = "local"  # `--executor`: local processes or Ray (common.executor)
    ray_address: str | None = None  # `--ray-address`: a running Ray cluster

    def runner(self) -> Executor:
        """Where the episodes run (ValueError names a bad executor setting)."""
        return Executor(self.executor, self.workers, self.ray_address)


def _episode(args: tuple) -> dict:
    task, mode, seed, spec = args[:4]
    from runtime.runner import run_episode

    instruction = _paraphrased(args[4], task, seed) if len(args) > 4 else None
    column = mode  # a mode, or a method: (mode, planner) of its own (the methods suite)
    mode, planner = resolve_method(column, spec.planner)
    config = RunConfig(task=task, seed=seed, mode=mode, planner=planner,
                       instruction=instruction, planner_options=_options(spec, planner),
                       reasoner=spec.reasoner, actor=spec.actor, situations=spec.situations,
                       runs_dir=spec.out_dir / "runs", report=False,
                       tool_switch=spec.tool_switch or uses_tools(column),
                       preconditions=_preconditions(spec, column),
                       first_plan_error_is_fatal=False)
    r = run_episode(config)
    diagnostics = diagnose_run(r.run_dir, r.success, r.believed_done, r.failure_reason)
    return {"task": task, "mode": column, "seed": seed, "success": r.success,
            "believed_done": r.believed_done, "failure_reason": r.failure_reason,
            "failure_cause": diagnostics["failure_cause"],
            "wall_s": r.wall_s, "situations": spec.situations, "actor": spec.actor,
            "reasoner": spec.reasoner, "planner": spec.planner,
            **({"method": {"mode": mode, "planner": planner}} if column != mode
               or planner != spec.planner else {}),
            "planner_options": {k: v for k, v in spec.planner_options.items()
                                if k not in _RUN_ONLY}, "run_dir": r.run_dir,
            **{k: r.counts.get(k, 0) for k in COUNTS},
            "actor_calls": r.counts.get("actions", 0), "diagnostics": diagnostics,
            "instruction": instruction,
            "rerun": rerun_command(spec, task, seed, column, instruction),
            "replay": f"codeplan replay {shlex.quote(r.run_dir)}"}


def _preconditions(spec: EvalSpec, column: str) -> str:
    """The run's --preconditions, or "llm" for a `+pg` column."""
    return "llm" if uses_pg(column) else spec.preconditions


def _options(spec: EvalSpec, planner: str) -> dict:
    """The run's planner options for its own planner; a method's other planner gets only the
    shared LLM server's address (when one runs)."""
    own = {k: v for k, v in spec.planner_options.items()  # --expansions is mcts's alone
           if k != "expansions" or planner == "mcts"}
    if planner == spec.planner:
        return own
    if planner in STEP_PLANNERS and spec.planner == "openai":  # ConceptAgent on that server
        return {k: v for k, v in own.items() if k in ("base_url", "model", "timeout_s",
                                                      "expansions")}
    return {k: v for k, v in own.items() if k in ("server_url", "expansions")} \
        if planner in LOCAL_LLM_PLANNERS else {}


def _paraphrased(paraphrase: Paraphrase, task: str, seed: int) -> str:
    """The paraphrase filled in from the scene's own instruction (its colours, its base)."""
    from ravens_env.env import TabletopEnv

    with TabletopEnv() as env:
        env.reset(task, seed)
        return paraphrase.fill(env.task.instruction)


def rerun_command(spec: EvalSpec, task: str, seed: int | str, mode: str,
                  instruction: str | None = None) -> str:
    """The `codeplan run` line that repeats one episode of `spec` (same seed, same stack, same
    words). Why: an episode in a table is only evidence if anyone can run it again."""
    column = mode
    mode, planner = resolve_method(column, spec.planner)
    argv = ["codeplan", "run", *([instruction] if instruction else []), "--task", task,
            "--seed", str(seed), "--mode", mode,
            "--actor", spec.actor, "--reasoner", spec.reasoner, "--situations", spec.situations,
            "--planner", planner] + ["--tool-switch"] * (spec.tool_switch or uses_tools(column))
    if _preconditions(spec, column) != "none":
        argv += ["--preconditions", _preconditions(spec, column)]
    for key, value in _options(spec, planner).items():
        if key == "fetch":  # a switch: only its "off" is a flag
            argv += [] if value is not False else ["--no-fetch"]
        elif value is not None and key not in _RUN_ONLY:
            argv += [_FLAGS.get(key, f"--{key.replace('_', '-')}"), str(value)]
    return shlex.join(argv)


def run_eval(spec: EvalSpec, progress: bool = True) -> dict:
    """Run every episode (in `spec.workers` processes) and aggregate. Each record is written to
    episodes.jsonl as soon as its episode ends: an evaluation stopped half way (an LLM run can
    take hours) keeps every finished episode's record, not just its traces. With
    `spec.resume`, the episodes already recorded there are kept and only the others run, so
    an evaluation longer than one sitting is finished by running the same command again."""
    spec.out_dir.mkdir(parents=True, exist_ok=True)
    jobs = eval_jobs(spec)
    done = finished_episodes(spec, jobs) if spec.resume else {}
    episodes = list(done.values())
    todo = [job for job in jobs if not done or _job_key(job) not in done]
    path = spec.out_dir / "episodes.jsonl"
    with path.open("w") as f:
        for episode in episodes:
            f.write(json.dumps(episode) + "\n")
        f.flush()
        with _shared_llm(spec) as job_spec:
            for episode in _map([(*job[:3], job_spec, *job[4:]) for job in todo],
                                spec.runner(), progress):
                episodes.append(episode)
                f.write(json.dumps(episode) + "\n")
                f.flush()
    # Written as episodes end (any order, so that a stopped run keeps all it finished); kept
    # in the jobs' order at the end, so two runs of one evaluation give the same file.
    order = {tuple(job[:3]): n for n, job in enumerate(jobs)}  # (task, mode, seed) is unique
    episodes.sort(key=lambda e: order[(e["task"], e["mode"], e["seed"])])
    path.write_text("".join(json.dumps(e) + "\n" for e in episodes))
    return aggregate(spec, episodes)


# What must match for a recorded episode to stand in for one of this run's.
_STACK = ("situations", "actor", "reasoner", "planner")


def _job_key(job: tuple) -> tuple:
    task, mode, seed = job[:3]
    instruction = _paraphrased(job[4], task, seed) if len(job) > 4 else None
    return task, mode, seed, instruction


def finished_episodes(spec: EvalSpec, jobs: list[tuple]) -> dict[tuple, dict]:
    """The records in out_dir/episodes.jsonl that are episodes of this run, by job key. A
    record made with another stack is an error that names the field, not a silent mix of two
    evaluations in one table; a torn last line (the run was killed while writing it) and
    records of episodes this run does not have are dropped, and say so on stderr."""
    import sys

    path = spec.out_dir / "episodes.jsonl"
    if not path.exists():
        return {}
    wanted = {_job_key(job) for job in jobs}
    kept: dict[tuple, dict] = {}
    dropped = 0
    for n, line in enumerate(path.read_text().splitlines(), 1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            dropped += 1
            continue
        for name in _STACK:
            if record.get(name) != getattr(spec, name):
                raise ValueError(f"--resume: {path} line {n} was run with {name}="
                                 f"{record.get(name)!r}, this run has {getattr(spec, name)!r};"
                                 " use another --out or the same settings")
        key = (record["task"], record["mode"], record["seed"], record.get("instruction"))
        if key in wanted:
            kept[key] = record
        else:
            dropped += 1
    if dropped:
        print(f"--resume: dropped {dropped} line(s) of {path} that are not episodes of this "
              "run (a torn line, or another task, mode or seed)", file=sys.stderr)
    return kept


@contextlib.contextmanager
def _shared_llm(spec: EvalSpec):
    """The spec the workers run: with `--planner llm` and several workers, one local server
    with a request slot per worker, started here and stopped at the end, whose URL the
    workers are given. Why: a server per worker loads the model once per worker (1.1 GB each)
    and keeps a prompt cache each; one server batches the workers' requests. A Ray run on
    a local instance shares it too; on a cluster the server would be this node's alone, so
    that is an error naming the way that works (a server per node, `--planner openai`)."""
    workers = min(spec.workers, os.cpu_count() or 1)
    if not uses_local_llm(spec) or (workers <= 1 and spec.executor == "local") \
            or spec.planner_options.get("server_url"):
        yield spec
        return
    check_llm_reach(spec)
    from runtime.planners.local_llm import LocalLLMPlanner

    planner = LocalLLMPlanner(model_path=spec.planner_options.get("model_path"),
                              parallel=workers,
                              fetch=spec.planner_options.get("fetch", True) is not False)
    try:
        yield replace(spec, planner_options={**spec.planner_options,
                                             "server_url": planner.start()})
    finally:
        planner.close()


def uses_local_llm(spec: EvalSpec) -> bool:
    """Whether some column's planner runs on the packaged model (served on this machine)."""
    return spec.planner != "openai" and bool(
        LOCAL_LLM_PLANNERS & {resolve_method(m, spec.planner)[1] for m in spec.modes})


def check_llm_reach(spec: EvalSpec) -> None:
    """ValueError (LLM_ON_A_CLUSTER) for a run whose workers could not reach the local LLM."""
    if spec.ray_address and uses_local_llm(spec):
        raise ValueError(LLM_ON_A_CLUSTER)


def eval_jobs(spec: EvalSpec) -> list[tuple]:
    """(task, mode, seed, spec[, paraphrase]) per episode. Tasks x modes x seeds; or, with a
    paraphrase set, its k-th instruction (its first `episodes`) on seed seed_start + k in each
    mode, so every instruction meets a scene of its own and the run says how other words fare."""
    if not spec.paraphrases:
        return [(t, m, s, spec) for t in spec.tasks for m in spec.modes
                for s in range(spec.seed_start, spec.seed_start + spec.episodes)]
    chosen = load_paraphrases(spec.paraphrases)[:spec.episodes]
    return [(p.task, m, spec.seed_start + k, spec, p) for k, p in enumerate(chosen)
            for m in spec.modes]


def _map(jobs: list, executor: Executor, progress: bool):
    """Each job's episode record, as the episodes end (not in the jobs' order: a long episode
    must not hold back the records of those that ended after it started)."""
    from tqdm import tqdm

    # each worker's share of the cores for torch; a Ray task asks for one CPU
    threads = 1 if executor.kind == "ray" else max(
        1, (os.cpu_count() or 1) // min(executor.workers, os.cpu_count() or 1))
    with tqdm(total=len(jobs), unit="ep", disable=not progress, desc="closed-loop") as bar:
        for _, episode in imap_unordered(_episode, jobs, executor,
                                         setup=_torch_threads if executor.parallel else None,
                                         setup_args=(threads,)):
            yield episode
            bar.update()


def _torch_threads(threads: int) -> None:
    """Give each worker process its share of the cores for torch (actor, reasoner). Why: with
    torch's default of one thread per core in every worker, OpenMP threads spin-wait for each
    other and an action took 6 s instead of 0.08 s with 2 workers on 2 cores."""
    import torch

    torch.set_num_threads(threads)


def _cell(eps: list[dict]) -> dict:
    """Rate, interval, per-episode means and failure causes of one task × mode cell."""
    wins = sum(e["success"] for e in eps)
    causes = {c: sum(e["diagnostics"]["failure_cause"] == c for e in eps) for c in CAUSES}
    return {"rate": wins / len(eps), "wins": wins, "n": len(eps),
            "ci95": [round(v, 4) for v in wilson_interval(wins, len(eps))],
            "questions": sum(e["questions"] for e in eps) / len(eps),
            "reasoner_calls": sum(e["reasoner_calls"] for e in eps) / len(eps),
            "retries": sum(e["retries"] for e in eps) / len(eps),
            "wall_s": sum(e["wall_s"] for e in eps) / len(eps),
            **{k: sum(e.get(k, 0) for e in eps) / len(eps) for k in LLM_COSTS},
            "llm_calls_median": _median([e.get("llm_calls", 0) for e in eps]),
            "failure_causes": {c: n for c, n in causes.items() if n}}


def _median(values: list[float]) -> float:
    """The median (the issue's target is on the median number of LLM calls per episode)."""
    xs = sorted(values)
    mid = len(xs) // 2
    return float(xs[mid]) if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2


def aggregate(spec: EvalSpec, episodes: list[dict]) -> dict:
    """The summary object `--json` prints: every figure as {task: {mode: value}}."""
    cells = {t: {m: _cell([e for e in episodes if e["task"] == t and e["mode"] == m])
                 for m in spec.modes} for t in spec.tasks}

    def per(key: str) -> dict:
        return {t: {m: cells[t][m][key] for m in spec.modes} for t in spec.tasks}

    by_mode = {m: {c: sum(cells[t][m]["failure_causes"].get(c, 0) for t in spec.tasks)
                   for c in CAUSES} for m in spec.modes}
    return {"suite": spec.suite, "success_rate": per("rate"), "ci95": per("ci95"),
            "by_category": by_category(spec, episodes),
            "successes": per("wins"), "questions_per_episode": per("questions"),
            "reasoner_calls_per_episode": per("reasoner_calls"),
            "retries_per_episode": per("retries"), "wall_s_per_episode": per("wall_s"),
            "llm_calls_per_episode": per("llm_calls"),
            "llm_calls_median": per("llm_calls_median"),
            "prompt_tokens_per_episode": per("prompt_tokens"),
            "completion_tokens_per_episode": per("completion_tokens"),
            "llm_s_per_episode": per("llm_s"),
            "failure_causes": per("failure_causes"), "failure_causes_by_mode": by_mode,
            "episodes": spec.episodes,
            "seeds": [spec.seed_start, spec.seed_start + spec.episodes - 1],
            "paraphrases": spec.paraphrases,
            "situations": spec.situations, "actor": spec.actor, "reasoner": spec.reasoner,
            "planner": spec.planner, "planner_options": spec.planner_options,
            "rerun": rerun_command(spec, "TASK", "SEED", "MODE"),
            "executor": spec.runner().describe(),
            "out_dir": str(spec.out_dir),
            "reference": {"label": spec.reference_label, "episodes": spec.reference_episodes,
                          "success_rate": spec.reference}}


def by_category(spec: EvalSpec, episodes: list[dict]) -> dict:
    """{category: {mode: {rate, wins, n, ci95, tasks}}} for tasks that have a category (the
    reasoning suite's); empty when none has."""
    from ravens_env.tasks.suites import REASONING_TASKS

    groups: dict[str, list[str]] = {}
    for task in spec.tasks:
        if task in REASONING_TASKS:
            groups.setdefault(REASONING_TASKS[task], []).append(task)
    out = {}
    for category, tasks in groups.items():
        out[category] = {}
        for mode in spec.modes:
            eps = [e for e in episodes if e["task"] in tasks and e["mode"] == mode]
            wins = sum(e["success"] for e in eps)
            out[category][mode] = {"rate": wins / len(eps) if eps else 0.0, "wins": wins,
                                   "n": len(eps), "tasks": tasks,
                                   "ci95": [round(v, 4) for v in wilson_interval(wins, len(eps))]
                                   if eps else [0.0, 0.0]}
    return out


def format_table(result: dict) -> str:
    """Markdown table: one row per task, one column per mode, rate and 95% interval."""
    modes = list(next(iter(result["success_rate"].values())))
    lines = [f"| task | {' | '.join(modes)} |", "|---|" + "---|" * len(modes)]
    for task, by_mode in result["success_rate"].items():
        cells = [f"{by_mode[m]:.0%} [{result['ci95'][task][m][0]:.0%}, "
                 f"{result['ci95'][task][m][1]:.0%}]" for m in modes]
        lines.append(f"| {task} | {' | '.join(cells)} |")
    for category, by_mode in result.get("by_category", {}).items():
        cells = [f"{c['rate']:.0%} [{c['ci95'][0]:.0%}, {c['ci95'][1]:.0%}]"
                 for c in by_mode.values()]
        lines.append(f"| **{category}** ({by_mode[modes[0]]['n']} ep.) | {' | '.join(cells)} |")
    lines.append(f"\n{result['episodes']} episodes per cell, seeds {result['seeds'][0]}-"
                 f"{result['seeds'][1]}, situations {result['situations']}, actor "
                 f"{result['actor']}, reasoner {result['reasoner']}, planner {result['planner']}")
    q = result["reasoner_calls_per_episode"]
    lines.append("reasoner calls per episode: " + "; ".join(
        f"{t}: " + ", ".join(f"{m} {v:.1f}" for m, v in by.items()) for t, by in q.items()))
    if any(v for by in result.get("llm_calls_per_episode", {}).values() for v in by.values()):
        lines.append("LLM per episode (calls, prompt + completion tokens, s): " + "; ".join(
            f"{t}: " + ", ".join(f"{m} {llm_cost(result, t, m)}" for m in by)
            for t, by in result["llm_calls_per_episode"].items()))
    return "\n".join(lines)


def llm_cost(result: dict, task: str, mode: str) -> str:
    """'1.3 calls, 812+95 tok, 14.2 s' for one cell (means per episode)."""
    def get(key: str) -> float:
        return result.get(f"{key}_per_episode", {}).get(task, {}).get(mode, 0)

    return (f"{get('llm_calls'):.1f} calls, {get('prompt_tokens'):.0f}+"
            f"{get('completion_tokens'):.0f} tok, {get('llm_s'):.1f} s")
