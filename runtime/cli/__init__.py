"""`codeplan` console script: one subcommand per job.

Exit codes: 0 the job ran (whatever the task outcome), 2 bad input (unknown task, bad option),
3 the sandbox stopped a codeplan, 141 the reader of stdout went away (`| head`; as a shell
reports SIGPIPE). Errors are one line on stderr that names the problem. Text the process
prints never fails on odd characters: lone surrogates come out as backslash escapes.

Layout (why it is easy to find a command): each top-level verb is one module of this package,
named like the verb, exposing `add_parser(subparsers) -> None`; every parser it adds sets
`handler(args) -> int`, the one way a command runs. Shared argument types and option groups
live in `runtime.cli.args`. Handlers import their heavy modules (torch, pybullet, datasets)
themselves, so building the parser, and `codeplan --help`, stays fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib import import_module

from runtime.cli.args import CliError

# The top-level verbs in the order `codeplan --help` lists them; each is runtime/cli/<verb>.py.
VERBS = ("run", "replay", "tasks", "bench", "eval", "train", "tune", "ofa", "datagen",
         "sandbox", "serve", "llm", "ask", "results")


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line, run the command's handler, map bad input to one line, exit 2."""
    _tolerant_streams()
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        code = int(handler(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
        return code
    except BrokenPipeError:
        return _reader_gone()
    except _named_errors() as e:  # evaluated only when something was raised
        print(f"codeplan: error: {e}", file=sys.stderr)
        return 2
    except (KeyError, ValueError) as e:  # a KeyError's str() would quote its message
        print(f"codeplan: error: {e.args[0] if e.args else e}", file=sys.stderr)
        return 2


def _tolerant_streams() -> None:
    """Print lone surrogates (from a codeplan, a file name, argv) as escapes instead of
    failing with UnicodeEncodeError after the work is done."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def _reader_gone() -> int:
    """`codeplan ... | head`: stdout's reader left. Point stdout at /dev/null so that the
    interpreter's own final flush stays quiet (no BrokenPipeError traceback); exit 141."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real file descriptor (captured in a test)
        pass
    return 141


def build_parser() -> argparse.ArgumentParser:
    """The whole command tree: every verb module adds its own sub-parsers."""
    parser = argparse.ArgumentParser(prog="codeplan", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    for verb in VERBS:
        import_module(f"{__name__}.{verb}").add_parser(sub)
    return parser


def _named_errors() -> tuple[type[Exception], ...]:
    """The project's own bad-input errors (exit 2, their message as it is).

    Why imported here, late: they live beside the code that raises them (run config, trace
    reader, planners), which `codeplan --help` need not import."""
    from runtime.planners.base import PlannerError
    from runtime.run_config import RunError
    from runtime.trace import TraceFormatError

    return (CliError, RunError, TraceFormatError, PlannerError)


if __name__ == "__main__":
    sys.exit(main())
