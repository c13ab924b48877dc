"""Every command's --help renders (argparse formats help strings with %, so a stray '%' in a
help text crashes `codeplan --help` instead of printing it)."""

from __future__ import annotations

import argparse

import pytest

from runtime.cli import build_parser


def _parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))


@pytest.mark.parametrize("path,parser", list(_parsers(build_parser())),
                         ids=lambda x: " ".join(x) if isinstance(x, tuple) else "")
def test_help_renders(path, parser):
    text = parser.format_help()
    assert text.startswith("usage: codeplan")
