"""``codeplan sandbox run FILE``: try a codeplan against stub primitives that log calls.

The stubs (`runtime.sandbox.stubs`) answer with fixed, plausible values and the call log
shows what the plan would have done: no simulator, no reasoner.

Exit status: 0 the codeplan completed; 2 the file is missing or not UTF-8; 3 the sandbox
stopped the codeplan (syntax, violation, runtime error, budget, kill), with a one-line
reason on stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from runtime.cli.args import positive_float

EXIT_OK = 0
EXIT_BAD_FILE = 2
EXIT_STOPPED = 3


def _read_source(path: str) -> str:
    return Path(path).read_bytes().decode("utf-8-sig")  # a BOM is not part of the code


def run_file(path: str, *, max_seconds: float = 10.0) -> int:
    """Run the codeplan in ``path`` against logging stubs; returns the exit status."""
    from runtime.sandbox import Limits, Sandbox  # here: `codeplan --help` needs none of it
    from runtime.sandbox.stubs import StubPrimitives

    try:
        source = _read_source(path)
    except (OSError, UnicodeDecodeError) as exc:
        reason = "is not UTF-8" if isinstance(exc, UnicodeDecodeError) else (
            f"cannot be read ({exc.strerror or type(exc).__name__})")
        print(f"codeplan sandbox: {path} {reason}", file=sys.stderr)
        return EXIT_BAD_FILE

    def emit(line: str) -> None:
        print(f"-> {line}", flush=True)

    stubs = StubPrimitives(emit)
    limits = Limits(max_seconds=max_seconds)
    with Sandbox(stubs.api(), limits, on_print=lambda text: print(text, end="")) as sandbox:
        result = sandbox.run(source)
    if not result.ok:
        print(f"codeplan sandbox: stopped ({result.kind}): {result.error}", file=sys.stderr)
        return EXIT_STOPPED
    print(f"codeplan completed: {result.calls} calls, {result.steps} steps, "
          f"{result.wall_s * 1000:.0f} ms")
    return EXIT_OK


def _sandbox_run(args: argparse.Namespace) -> int:
    """`sandbox run FILE`: the exit status is run_file's (see the module docstring)."""
    return run_file(args.file, max_seconds=args.max_seconds)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add ``sandbox run FILE [--max-seconds S]`` to the `codeplan` verbs."""
    parser = subparsers.add_parser(
        "sandbox", help="run codeplans in the sandbox",
        description="Run codeplans in the RestrictedPython sandbox.")
    commands = parser.add_subparsers(dest="sandbox_command", metavar="COMMAND", required=True)
    run = commands.add_parser(
        "run", help="run a codeplan file against stub primitives that log their calls",
        description=__doc__.split("\n\n")[1])
    run.add_argument("file", metavar="FILE", help="codeplan source file (UTF-8)")
    run.add_argument("--max-seconds", type=positive_float, default=10.0, metavar="S",
                     help="codeplan run-time budget in seconds (default: 10)")
    run.set_defaults(handler=_sandbox_run)

