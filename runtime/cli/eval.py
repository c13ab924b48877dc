"""`codeplan eval closed-loop|actor|vqa`: evaluations that print rates with 95% intervals.

    codeplan eval closed-loop --suite paper-table2 --episodes 50 --workers 2
    codeplan eval closed-loop --task put-blocks-in-mismatched-bowls --modes success,progress
    codeplan eval actor --checkpoint runs/cliport --task put-block-in-bowl --episodes 100 [--json]
    codeplan eval vqa --suite paper-table1        # or --model default,ofa --data data/vqa-val
    codeplan eval oracle --suite reasoning --episodes 100 [--seed-start 0] [--json]
    codeplan eval questions [--part fifth] [--reader grammar] [--file my.jsonl] [--json]

closed-loop: a suite fixes tasks, modes and seeds and writes results/<suite>/<date>/
(episodes.jsonl, runs/, summary.json, table.md, table.csv, success.png, command.txt); `--task`
runs an ad-hoc grid into results/closed-loop/ (or `--out`). `codeplan results` copies the newest
suite table into docs/RESULTS.md. actor: any actor checkpoint alone (no planner, no reasoner).
vqa: the seed paper's Table 1 (accuracy per split and answer type) for one or more reasoners.
oracle: the scripted oracle's success per task (no situations), the bound any system is under.
questions: the question parser on a paraphrase set (right program or refusal, per part).
Heavy imports (torch, the simulator) happen in the handlers, so `codeplan --help` stays fast.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from runtime.cli.args import (
    CliError,
    add_executor_options,
    add_group,
    add_stack_options,
    executor_of,
    non_negative_int,
    planner_options,
    positive_int,
)
from runtime.eval.closed_loop_suites import SUITES
from runtime.eval.vqa_suites import SUITES as VQA_SUITES

if TYPE_CHECKING:
    from runtime.eval.closed_loop import EvalSpec
    from runtime.eval.vqa_suites import VqaSuite


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add `eval closed-loop`, `actor`, `vqa`, `scene-errors`, `oracle`, `parser`,
    `questions`, `audit`, `grounding` and `preconditions`."""
    esub = add_group(subparsers, "eval", "evaluations that print rates with 95%% intervals",
                     "eval commands", "TARGET")
    add_closed_loop_parser(esub)
    add_actor_parser(esub)
    add_vqa_parser(esub)
    add_scene_errors_parser(esub)
    add_oracle_parser(esub)
    add_parser_corpus_parser(esub)
    add_questions_parser(esub)
    add_audit_parser(esub)
    add_grounding_parser(esub)
    add_preconditions_parser(esub)


# -- codeplan eval closed-loop -------------------------------------------------------------
def add_closed_loop_parser(esub: argparse._SubParsersAction) -> None:
    """Add `closed-loop` to the `eval` group."""
    cl = esub.add_parser("closed-loop", help="success rate by task and validation mode")
    cl.add_argument("--suite", choices=sorted(SUITES), default=None,
                    help="a named benchmark: its tasks, modes, seeds and reference numbers")
    cl.add_argument("--task", default=None, help="task id(s), comma-separated (instead of "
                                                 "--suite; default put-blocks-in-mismatched-bowls)")
    cl.add_argument("--paraphrases", default=None, metavar="SET",
                    help="instead of --suite/--task: a paraphrase set (dev, dev-a, dev-b, dev-c, "
                         "heldout-d: see prompts/paraphrases/, or a .jsonl file); episode k runs "
                         "its k-th instruction on seed --seed-start + k")
    cl.add_argument("--modes", default=None,
                    help="comma-separated (default open-loop,success,progress)")
    cl.add_argument("--episodes", type=positive_int, default=50)
    cl.add_argument("--seed-start", type=non_negative_int, default=None,
                    help="first test seed (default 1000, or the suite's)")
    cl.add_argument("--situations", default=None,
                    help="none, dkprompt, dkprompt-grasp, hard or drop=0.2,... (default: the "
                         "suite's preset, else dkprompt)")
    add_stack_options(cl, planners=("offline", "llm", "openai", "react", "mcts"))
    add_executor_options(cl)
    cl.add_argument("--out", type=Path, default=None,
                    help="results dir (default results/<suite>/<date>, or results/closed-loop)")
    cl.add_argument("--resume", action="store_true",
                    help="keep the episodes already in the results dir's episodes.jsonl and run "
                         "only the rest (default dir: the newest results/<suite>/<date> that has "
                         "one); an evaluation longer than a sitting ends by running it again")
    cl.add_argument("--json", action="store_true", help="print one JSON object")
    cl.set_defaults(handler=_eval_closed_loop)


def build_spec(args: argparse.Namespace) -> EvalSpec:
    """Resolve --suite / --task into an EvalSpec, naming any bad task, mode or situation."""
    from ravens_env.situations import parse_situations
    from ravens_env.tasks import make_task
    from runtime.controller import MODES, SEED_MODES
    from runtime.eval.closed_loop import EvalSpec, check_llm_reach
    from runtime.eval.closed_loop_suites import (
        METHODS,
        STEP_METHODS,
        base_column,
        get_suite,
    )

    if sum(bool(x) for x in (args.suite, args.task, args.paraphrases)) > 1:
        raise CliError("--suite, --task and --paraphrases are exclusive: each fixes the tasks")
    suite = get_suite(args.suite) if args.suite else None
    paraphrases = _paraphrase_set(args.paraphrases)[:args.episodes]
    tasks = list(suite.tasks) if suite else list(dict.fromkeys(p.task for p in paraphrases)) \
        if paraphrases else _split(args.task or "put-blocks-in-mismatched-bowls")
    modes = [MODE_ALIASES.get(m.lower(), m) for m in _split(args.modes)] if args.modes else list(
        suite.modes if suite else SEED_MODES)
    for t in tasks:
        make_task(t)
    bad = [m for m in modes if base_column(m) not in {*MODES, *METHODS, *STEP_METHODS}]
    if bad or not modes:
        raise CliError(f"unknown mode(s) {bad}; modes: {', '.join(MODES)}; methods: "
                       f"{', '.join([*METHODS, *STEP_METHODS])}")
    args.situations = args.situations or (suite.situations if suite else "dkprompt")
    parse_situations(args.situations)
    name = suite.name if suite else f"paraphrases-{Path(args.paraphrases).stem}" \
        if paraphrases else None
    out = args.out or (_dated_dir(Path("results") / results_name(
        name, args, suite.situations if suite else "dkprompt"), args.resume)
                       if name else Path("results/closed-loop"))
    episodes = len(paraphrases) if paraphrases else args.episodes
    seed_start = args.seed_start if args.seed_start is not None else (
        suite.seed_start if suite else 1000)
    reference = {"reference": suite.reference, "reference_label": suite.reference_label,
                 "reference_episodes": suite.reference_episodes} if suite else {}
    spec = EvalSpec(tasks, modes, episodes, seed_start, args.situations, args.actor,
                    args.reasoner, planner=args.planner, planner_options=planner_options(args),
                    workers=args.workers, out_dir=out, suite=name,
                    paraphrases=args.paraphrases, resume=args.resume,
                    tool_switch=getattr(args, "tool_switch", False),
                    preconditions=getattr(args, "preconditions", "none"),
                    executor=executor_of(args).kind, ray_address=args.ray_address, **reference)
    try:
        check_llm_reach(spec)
    except ValueError as e:
        raise CliError(str(e)) from None
    return spec


def _dated_dir(root: Path, resume: bool) -> Path:
    """results/<name>/<today>; with --resume, the newest dated dir already holding episodes
    (a run begun yesterday is finished in yesterday's dir, not restarted in today's)."""
    started = sorted(d for d in root.glob("????-??-??") if (d / "episodes.jsonl").exists())
    return started[-1] if resume and started else root / date.today().isoformat()


def _paraphrase_set(name: str | None) -> list:
    """The paraphrases of --paraphrases (empty without it); a bad name is one line."""
    if not name:
        return []
    from runtime.eval.closed_loop_paraphrases import load_paraphrases

    try:
        found = load_paraphrases(name)
    except (OSError, ValueError, KeyError) as e:
        from runtime.eval.closed_loop_paraphrases import paraphrase_sets

        raise CliError(f"--paraphrases {name}: cannot read the set ({e}); sets: "
                       f"{', '.join(paraphrase_sets())}, or a .jsonl file of "
                       "{\"task\", \"instruction\"} lines") from None
    if not found:
        raise CliError(f"--paraphrases {name}: the set is empty")
    return found


# The seed paper's column names ("Codeplan", "+Success", "+Progress") for our mode names.
MODE_ALIASES = {"codeplan": "open-loop", "open_loop": "open-loop", "openloop": "open-loop",
                "+success": "success", "+progress": "progress"}
DEFAULT_STACK = {"actor": "cliport", "reasoner": "default", "situations": "dkprompt",
                 "planner": "offline"}


def results_name(suite: str, args: argparse.Namespace, situations: str = "dkprompt") -> str:
    """`paper-table2` for the default stack, else e.g. `paper-table2+actor-oracle`: runs of
    one suite with other components never overwrite (or pose as) the default stack's table.
    `situations` is the suite's own preset (a methods run under DKPROMPT's grasp failures
    is its default stack)."""
    default = {**DEFAULT_STACK, "situations": situations}
    parts = {k: getattr(args, k, v) for k, v in default.items()}
    if parts["planner"] == "openai":
        parts["planner"] = planner_options(args)["model"]
    tags = [f"{key}-{re.sub(r'[^A-Za-z0-9.=_-]+', '_', Path(str(value)).name)}"
            for key, value in parts.items()
            if value != default[key] and not (key == "reasoner" and value == "learned")]
    tools = ["tools"] if getattr(args, "tool_switch", False) else []
    pg = [f"pg-{args.preconditions}"] if getattr(args, "preconditions", "none") != "none" else []
    exp = [f"expansions-{args.expansions}"] if getattr(args, "expansions", None) else []
    return "+".join([suite, *tags, *tools, *pg, *exp])


def _split(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _eval_closed_loop(args: argparse.Namespace) -> int:
    """Run the grid, write the report files, print the table (or one JSON object)."""
    from runtime.eval.closed_loop import format_table, run_eval
    from runtime.eval.closed_loop_report import write_report

    spec = build_spec(args)
    result = run_eval(spec, progress=not args.json)
    summary = write_report(result, spec.out_dir, "codeplan " + shlex.join(sys.argv[1:]))
    if args.json:
        print(json.dumps(summary))
    else:
        print(format_table(result))
        print(f"written to {spec.out_dir}/ (table.md, table.csv, success.png, summary.json, "
              "audit.md, audit.png, episodes.jsonl, runs/)")
    return 0


# -- codeplan eval grounding ---------------------------------------------------------------
def add_grounding_parser(eval_subparsers: argparse._SubParsersAction) -> None:
    """Add `grounding` to the `eval` group: the grounded tools' pose error (the detector's
    world positions against ground truth)."""
    p = eval_subparsers.add_parser(
        "grounding", help="xy error of the detector's world positions (the grounded tools)")
    p.add_argument("--task", default="put-blocks-in-matching-bowls,stack-block-pyramid",
                   help="task id(s), comma-separated")
    p.add_argument("--episodes", type=positive_int, default=20, help="scenes per task")
    p.add_argument("--seed-start", type=non_negative_int, default=5000,
                   help="first seed (default: the dev seeds the tolerances were set on)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_eval_grounding)


def _eval_grounding(args: argparse.Namespace) -> int:
    from ravens_env.tasks import make_task
    from runtime.components import make_reasoner
    from runtime.eval.grounding import eval_grounding, format_report
    from runtime.tools import make_toolbox

    tasks = _split(args.task)
    for t in tasks:
        make_task(t)  # an unknown id exits 2 naming the known ones
    grounded = make_toolbox(make_reasoner("detector", None)).grounded
    result = eval_grounding(grounded, tasks, args.episodes, args.seed_start)
    print(json.dumps(result) if args.json else format_report(result))
    return 0


# -- codeplan eval preconditions ------------------------------------------------------------
def add_preconditions_parser(eval_subparsers: argparse._SubParsersAction) -> None:
    """Add `preconditions` to the `eval` group: an LLM's generated preconditions against the
    hand-written reference set (precision / recall, ConceptAgent's measure)."""
    p = eval_subparsers.add_parser(
        "preconditions", help="precision / recall of an LLM's preconditions (ConceptAgent)")
    p.add_argument("--planner", choices=("llm", "openai"), default="llm",
                   help="llm (the packaged local model) or openai (--base-url, --model)")
    p.add_argument("--model", default=None, help="model for --planner openai")
    p.add_argument("--base-url", default=None, help="OpenAI-compatible server")
    p.add_argument("--samples", type=non_negative_int, default=10,
                   help="sampled generations (temperature 0.7) besides the greedy one")
    p.add_argument("--no-grammar", action="store_true",
                   help="no GBNF grammar (it is sent only to the packaged model's server)")
    p.add_argument("--form", choices=pc_forms(), default=None,
                   help="how the LLM is asked: lines (one precondition per line), pddl (an "
                        "action schema; only its :precondition is kept), pddl-example (the "
                        "same after two worked schemas of another world) or pddl-effect-first "
                        "(that, with the effect written first); default: the one "
                        "--preconditions llm uses")
    p.add_argument("--actions", choices=ACTION_SETS, default="primitives",
                   help="primitives (the control primitives: the reported figure) or dev "
                        "(five blocks-world actions that are not primitives: where a form is "
                        "chosen)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_eval_preconditions)


def pc_forms() -> tuple[str, ...]:
    from runtime.planners.preconditions import FORMS

    return FORMS


ACTION_SETS = ("primitives", "dev")  # runtime.eval.preconditions.ACTION_SETS (tested equal)


def _eval_preconditions(args: argparse.Namespace) -> int:
    from runtime.eval.preconditions import eval_preconditions, format_report
    from runtime.planners.preconditions import DEFAULT_FORM
    from runtime.planners.registry import make_planner

    options = {"model": args.model or os.environ.get("CODEPLAN_MODEL", "gpt-4o-mini"),
               "base_url": args.base_url} if args.planner == "openai" else {}
    llm = make_planner(args.planner, **options)
    grammar = args.planner == "llm" and not args.no_grammar
    result = eval_preconditions(llm, args.samples, grammar, args.form or DEFAULT_FORM,
                                args.actions)
    print(json.dumps(result) if args.json else format_report(result))
    return 0


# -- codeplan eval audit -------------------------------------------------------------------
def add_audit_parser(eval_subparsers: argparse._SubParsersAction) -> None:
    """Add `audit` to the `eval` group: the failure and monitor audit of a finished
    closed-loop results dir, from its episodes' traces."""
    p = eval_subparsers.add_parser(
        "audit", help="failure and monitor audit of a closed-loop results dir (from traces)")
    p.add_argument("results", type=Path, help="a results dir with episodes.jsonl and runs/")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_eval_audit)


def _eval_audit(args: argparse.Namespace) -> int:
    from runtime.eval import audit
    from runtime.eval.closed_loop_report import read_episodes, write_audit

    episodes = read_episodes(args.results)
    if not episodes:
        raise CliError(f"{args.results}: no episodes.jsonl with episodes (the output dir of "
                       "`codeplan eval closed-loop`)")
    audits = write_audit(args.results, episodes)
    if not audits:
        raise CliError(f"{args.results}: none of its {len(episodes)} episodes has a trace left "
                       "(runs/ missing?)")
    print(json.dumps(audits) if args.json else audit.markdown(audits), end="")
    return 0


# -- codeplan eval actor -------------------------------------------------------------------
def add_actor_parser(eval_subparsers: argparse._SubParsersAction) -> None:
    """Add `actor` to the `eval` group: step and episode success of any actor checkpoint
    (`train cliport` output), on its own, without planner or reasoner."""
    p = eval_subparsers.add_parser("actor", help="success rate of a trained CLIPort actor")
    p.add_argument("--checkpoint", type=Path, required=True,
                   help="directory with config.json + model.safetensors")
    p.add_argument("--task", required=True, help="task id")
    p.add_argument("--episodes", type=positive_int, default=20)
    p.add_argument("--seed-start", type=non_negative_int, default=10_000)
    p.add_argument("--device", default="cpu", help="torch device (cpu, cuda, cuda:1, ...)")
    add_executor_options(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_eval_actor)


def _eval_actor(args: argparse.Namespace) -> int:
    """Roll the actor out on seeds of its own; print success with 95% intervals."""
    from ravens_env.tasks import make_task
    from training.cliport.eval import eval_actor, format_eval

    make_task(args.task)
    try:
        result = eval_actor(args.checkpoint, args.task, args.episodes, args.seed_start,
                            args.device, progress=not (args.no_progress or args.json),
                            executor=executor_of(args))
    except FileNotFoundError as e:  # not a checkpoint: bad input, one line and exit 2
        raise ValueError(str(e)) from None
    print(json.dumps(result, indent=2) if args.json else format_eval(result))
    return 0


# -- codeplan eval vqa ---------------------------------------------------------------------
def add_vqa_parser(esub: argparse._SubParsersAction) -> None:
    """Add `vqa` to the `eval` group: Table 1 (accuracy per split) for one or more reasoners."""
    p = esub.add_parser("vqa", help="VQA accuracy per split and answer type (Table 1)")
    p.add_argument("--suite", default=None, choices=sorted(VQA_SUITES),
                   help="a named benchmark (its data, made if missing, its models and the "
                        "paper's numbers beside ours); writes results/<suite>/<date>/")
    p.add_argument("--model", default=None,
                   help="checkpoint dir(s) or shipped names (default, detector, ofa), "
                        "comma-separated (default: default, or the suite's)")
    p.add_argument("--data", type=Path, default=None,
                   help="a `codeplan datagen vqa` output (held-out seeds; default data/vqa-val)")
    p.add_argument("--splits", default=None, help="comma-separated (default: all in the data)")
    p.add_argument("--out", type=Path, default=None,
                   help="output dir (default results/vqa, or results/<suite>/<date>)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object ({'accuracy': {split: ...}} for one model)")
    p.set_defaults(handler=_eval_vqa)


def _eval_vqa(args: argparse.Namespace) -> int:
    """Score each reasoner on the held-out data; write and print the table."""
    from runtime.eval.vqa import format_markdown, write_outputs
    from vrs.loading import load_reasoner
    from vrs.scoring import evaluate, load_vqa_data

    suite = _suite_settings(args)
    splits = [s.strip() for s in args.splits.split(",")] if args.splits else None
    data = load_vqa_data(args.data, splits)
    specs = [m.strip() for m in args.model.split(",") if m.strip()]
    checks = [_held_out(spec, args.data) for spec in specs]
    reasoners = [load_reasoner(spec) for spec in specs]
    results = [evaluate(r, data, progress=not args.json) | {"held_out": c}
               for r, c in zip(reasoners, checks, strict=True)]
    notes = _add_columns(suite, specs, reasoners, results, progress=not args.json)
    command = "codeplan " + shlex.join(sys.argv[1:])
    reference = suite.reference if suite else {}
    write_outputs(results, args.out, command, reference, notes)
    light = [{k: v for k, v in r.items() if k != "records"} | {"data": str(args.data)}
             for r in results]
    if args.json:
        print(json.dumps(light[0] if len(light) == 1 else {"results": light}, indent=2))
    else:
        print(format_markdown(results, reference))
        print(f"written to {args.out}/ (results.json, table.md, table.csv, answers.jsonl)")
    return 0


def _add_columns(suite: VqaSuite | None, specs: list[str], reasoners: list, results: list[dict],
                 progress: bool) -> list[str]:
    """Measure the suite's column suites (Table 1's Blender variant) with the same reasoners:
    each result gets `columns[name]`, the overall summary on that data with its held-out
    check; returns a note per column that could not be measured here."""
    from runtime.eval.vqa_suites import column_data, get_suite
    from vrs.scoring import evaluate, load_vqa_data

    notes = []
    for name in suite.columns if suite else ():
        path, why = column_data(get_suite(name), progress=progress)
        if path is None:
            notes.append(why)
            continue
        data = load_vqa_data(path, None)
        for spec, reasoner, result in zip(specs, reasoners, results, strict=True):
            scored = evaluate(reasoner, data, progress=progress)
            result.setdefault("columns", {})[name] = {
                **scored["overall"], "data": str(path), "held_out": _held_out(spec, path)}
    return notes


def _held_out(spec: str, data: Path) -> dict:
    """The held-out check of `data` against the checkpoint's training and tuning dirs; its
    warnings go to stderr so a --json reader still gets one clean object on stdout."""
    from runtime.eval.held_out import describe_overlaps, held_out_report
    from vrs.loading import resolve_checkpoint

    report = held_out_report(resolve_checkpoint(spec), data)
    for line in describe_overlaps(data, spec, report):
        print(line, file=sys.stderr)
    return report


def _suite_settings(args: argparse.Namespace) -> VqaSuite | None:
    """Resolve --suite (or its absence) into args' unset options: data (made if missing),
    models, splits and the dated output dir."""
    from runtime.eval.vqa_suites import get_suite, prepare_data

    if args.suite is None:
        args.model = args.model or "default"
        args.data = args.data or Path("data/vqa-val")
        args.out = args.out or Path("results/vqa")
        return None
    suite = get_suite(args.suite)
    args.model = args.model or ",".join(suite.models)
    args.splits = args.splits or ",".join(suite.splits)
    args.out = args.out or Path("results") / suite.name / date.today().isoformat()
    if args.data is None:
        args.data = prepare_data(suite, progress=not args.json)
    return suite


# -- codeplan eval scene-errors ------------------------------------------------------------
def add_scene_errors_parser(esub: argparse._SubParsersAction) -> None:
    """Add `scene-errors`: a detector's parsed scenes against the generator's ground truth."""
    p = esub.add_parser("scene-errors", help="a detector's parsed scenes against the truth: "
                        "false blocks by where they stand, missed blocks by colour")
    p.add_argument("--model", default="detector-dr-wide",
                   help="detector checkpoint dir(s) or shipped names, comma-separated")
    p.add_argument("--data", type=Path, required=True, help="a `codeplan datagen vqa` output")
    p.add_argument("--images", type=positive_int, default=None,
                   help="the first N images of each split (default: all)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_eval_scene_errors)


def _eval_scene_errors(args: argparse.Namespace) -> int:
    """Count and print each model's scene errors."""
    from runtime.eval.scene_errors import format_errors, scene_errors
    from vrs.loading import load_reasoner

    results = {}
    for spec in (m.strip() for m in args.model.split(",") if m.strip()):
        results[spec] = scene_errors(load_reasoner(spec), args.data, args.images)
    if args.json:
        print(json.dumps({"data": str(args.data), "results": results}, indent=2))
    else:
        print("\n\n".join(format_errors(m, r) for m, r in results.items()))
    return 0


# -- codeplan eval oracle ------------------------------------------------------------------
def add_oracle_parser(esub: argparse._SubParsersAction) -> None:
    """Add `oracle` to the `eval` group: the scripted oracle's success per task."""
    p = esub.add_parser("oracle", help="success rate of the scripted oracle per task")
    p.add_argument("--suite", default=None, help="a task suite (reasoning)")
    p.add_argument("--task", default=None, help="task id(s), comma-separated (instead of --suite)")
    p.add_argument("--episodes", type=positive_int, default=100)
    p.add_argument("--seed-start", type=non_negative_int, default=0)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_eval_oracle)


def _eval_oracle(args: argparse.Namespace) -> int:
    """Run the oracle on every task of --suite / --task; print the table (or JSON)."""
    from ravens_env.tasks.suites import TASK_SUITES, suite_tasks
    from runtime.eval.oracle_check import format_oracle_check, oracle_check

    if bool(args.suite) == bool(args.task):
        raise CliError(f"give one of --suite ({', '.join(TASK_SUITES)}) or --task")
    try:
        tasks = suite_tasks(args.suite) if args.suite else _split(args.task)
    except ValueError as e:
        raise CliError(str(e)) from None
    result = oracle_check(tasks, args.episodes, args.seed_start, progress=not args.json)
    print(json.dumps(result, indent=2) if args.json else format_oracle_check(result))
    return 0


# -- codeplan eval parser ----------------------------------------------------------------

def add_parser_corpus_parser(esub: argparse._SubParsersAction) -> None:
    p = esub.add_parser("parser", help="the offline planner on an instruction corpus: every "
                        "line solved or refused, never misread (oracle actor and reasoner)")
    p.add_argument("--corpus", default="reasoning-corpus",
                   help="reasoning-corpus (dev), reasoning-heldout (held out), or a .jsonl")
    p.add_argument("--task", default=None, help="only the lines of these tasks (comma-separated)")
    p.add_argument("--seed-start", type=non_negative_int, default=None,
                   help="first seed tried for line 0 (default 5000, dev seeds)")
    p.add_argument("--out", type=Path, default=None,
                   help="results directory (default results/parser-<corpus>/<date>)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_eval_parser)


def _eval_parser(args: argparse.Namespace) -> int:
    from common.provenance import provenance
    from runtime.eval.instruction_corpus import DEV_SEED_START, evaluate, load_corpus

    try:
        lines = load_corpus(args.corpus)
    except ValueError as e:
        raise CliError(str(e)) from None
    if args.task:
        wanted = {t.strip() for t in args.task.split(",")}
        lines = [line for line in lines if line.task in wanted]
        if not lines:
            raise CliError(f"--task {args.task}: no corpus line is about these tasks")
    out = args.out or Path("results") / f"parser-{Path(args.corpus).stem}" / \
        date.today().isoformat()
    out.mkdir(parents=True, exist_ok=True)
    seed = DEV_SEED_START if args.seed_start is None else args.seed_start

    def progress(row: dict) -> None:
        if not args.json:
            print(f"{row['outcome']:8} {row['id']:10} {row['instruction']}", flush=True)

    result = evaluate(lines, out / "runs", seed, progress)
    summary = {"corpus": args.corpus, "seed_start": seed, **result, **provenance()}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    if args.json:
        print(json.dumps({k: v for k, v in summary.items() if k != "rows"}))
        return 0
    o = result["overall"]
    print(f"\n{result['lines']} lines: {o['solved']}/{o['solve_lines']} solve lines solved "
          f"({100 * (o['solve_rate'] or 0):.1f}% [{100 * o['solve_ci95'][0]:.1f}-"
          f"{100 * o['solve_ci95'][1]:.1f}]), {o['refused']} refused, {o['misread']} misread")
    for row in result["misreads"]:
        print(f"  MISREAD {row['id']} (seed {row['seed']}): {row['instruction']} -- "
              f"{row['detail']}")
    print(f"written to {out}/summary.json")
    return 0


# -- codeplan eval questions -------------------------------------------------------------
def add_questions_parser(esub: argparse._SubParsersAction) -> None:
    """Add `questions` to the `eval` group: the question parser on a paraphrase set."""
    from runtime.eval.question_paraphrases import PARTS, READERS

    p = esub.add_parser("questions", help="the question parser on a paraphrase set: questions "
                        "parsed to the right program, per part and template (95%% CI)")
    p.add_argument("--file", type=Path, default=None,
                   help="a paraphrase .jsonl (default: every vrs/question_paraphrases*.jsonl)")
    p.add_argument("--part", choices=("all", *PARTS), default="all",
                   help="one part; `all` (default) leaves out the frozen sets not yet measured "
                   "(UNMEASURED), which are scored only when named")
    p.add_argument("--reader", choices=READERS, default="nearest",
                   help="nearest (default: the grammar, then the question reader for what it "
                   "refuses, as the reasoners read) or grammar (the grammar alone)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_eval_questions)


def _eval_questions(args: argparse.Namespace) -> int:
    from runtime.eval.question_paraphrases import (
        UNMEASURED,
        evaluate,
        format_report,
        load_paraphrases,
    )

    try:
        rows = load_paraphrases(args.file)
    except (OSError, ValueError) as e:
        raise CliError(str(e)) from None
    # A frozen set's one measurement is a round's held-out figure: `all` must not take it by
    # the way (session 24: a helper's `all` run scored the thirteenth set mid-round).
    rows = [r for r in rows if args.part == r.part
            or (args.part == "all" and r.part not in UNMEASURED)]
    if not rows:
        raise CliError(f"no {args.part} rows in {args.file or 'the paraphrase set'}")
    result = evaluate(rows, args.reader)
    print(json.dumps(result) if args.json else format_report(result).rstrip("\n"))
    return 0
