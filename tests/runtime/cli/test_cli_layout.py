"""The CLI's layout, enforced: one module per top-level verb, one way of dispatching, the
component names as verbs with the old verbs kept as aliases, and a `--help` that stays light."""

from __future__ import annotations

import argparse
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest

import runtime.cli
from runtime.cli import VERBS, build_parser

CLI_DIR = Path(runtime.cli.__file__).parent
NOT_VERBS = {"__init__", "__main__", "args"}  # the entry points and the shared helpers


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:
    return next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)


def _tree(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(path, parser) for every parser under `parser`, aliases left out."""
    yield path, parser
    action = _subparsers(parser)
    if action is not None:
        for choice in action._choices_actions:  # one per sub-parser, named by its first name
            yield from _tree(action.choices[choice.dest], (*path, choice.dest))


def test_every_module_is_a_verb_and_every_verb_a_module():
    modules = {p.stem for p in CLI_DIR.glob("*.py")} - NOT_VERBS
    assert modules == set(VERBS)
    assert set(_subparsers(build_parser()).choices) == set(VERBS)


@pytest.mark.parametrize("verb", VERBS)
def test_each_verb_module_adds_exactly_its_own_verb(verb):
    parser = argparse.ArgumentParser(prog="codeplan")
    sub = parser.add_subparsers()
    assert import_module(f"runtime.cli.{verb}").add_parser(sub) is None
    assert list(sub.choices) == [verb]


@pytest.mark.parametrize("path,parser", [(p, x) for p, x in _tree(build_parser()) if p],
                         ids=lambda x: " ".join(x) if isinstance(x, tuple) else "")
def test_every_command_dispatches_through_handler(path, parser):
    assert "func" not in parser._defaults, f"codeplan {' '.join(path)} sets func"
    action = _subparsers(parser)
    if action is None or not action.required:  # a group that can be named alone
        assert callable(parser._defaults.get("handler")), f"codeplan {' '.join(path)}"


def test_a_group_named_alone_prints_its_help_and_exits_2(capsys):
    assert runtime.cli.main(["train"]) == 2
    out = capsys.readouterr().out
    assert out.startswith("usage: codeplan train") and "cliport" in out


RENAMES = [  # (group, new verb, old verb, the options both need)
    ("train", "cliport", "actor", ["--demos", "d", "--out", "o", "--steps", "3"]),
    ("train", "detector", "perception", ["--data", "a,b", "--out", "o"]),
    ("train", "ofa", "vqa", ["--data", "d", "--out", "o", "--steps", "3"]),
    ("tune", "detector", "perception", ["--model", "m", "--data", "d"]),
]


@pytest.mark.parametrize("group,new,old,options", RENAMES, ids=lambda x: x if isinstance(x, str)
                         else None)
def test_an_old_verb_parses_to_the_same_command_as_its_new_name(group, new, old, options):
    parser = build_parser()
    renamed = vars(parser.parse_args([group, new, *options]))
    aliased = vars(parser.parse_args([group, old, *options]))
    assert aliased == renamed
    assert renamed["handler"].__name__ == f"_{group}_{new}"


def test_the_new_names_are_the_ones_listed():
    train = _subparsers(build_parser()).choices["train"]
    assert [c.dest for c in _subparsers(train)._choices_actions] == ["cliport", "detector", "ofa"]


def test_the_local_llm_commands_are_wired_to_their_bodies():
    from runtime.llm import commands

    parser = build_parser()
    assert parser.parse_args(["llm", "fetch"]).handler is commands.fetch_command
    assert parser.parse_args(["serve", "llm", "--port", "0"]).handler is commands.serve_command


def _codeplan(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runtime.cli", *args], capture_output=True,
                          text=True, timeout=120, cwd=CLI_DIR.parents[1])


def test_help_lists_every_verb():
    out = _codeplan("--help")
    assert out.returncode == 0, out.stderr
    listed = [line.split()[0] for line in out.stdout.split("COMMAND\n", 1)[1].splitlines()
              if line.startswith("    ") and not line.startswith("     ")]
    assert listed == list(VERBS)


def test_old_verbs_still_run_from_the_shell():
    out = _codeplan("tune", "perception", "--help")
    assert out.returncode == 0 and out.stdout.startswith("usage: codeplan tune detector")


def test_building_the_parser_imports_no_heavy_module():
    """`codeplan --help` stays fast: the handlers, not the parsers, import these."""
    program = ("import sys; from runtime.cli import build_parser; build_parser(); "
               "print(*sorted(m for m in ('torch', 'pybullet', 'datasets', 'PIL', 'uvicorn', "
               "'RestrictedPython') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                         timeout=120, cwd=CLI_DIR.parents[1])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_train_detector_reads_channels_and_names_a_bad_list(capsys):
    parser = build_parser()
    args = parser.parse_args(["train", "detector", "--data", "d", "--out", "o",
                              "--channels", "16,32,64,128", "--head-channels", "48"])
    assert args.channels == (16, 32, 64, 128) and args.head_channels == 48
    for bad in ("16,x", "64", "16,0"):
        with pytest.raises(SystemExit):
            parser.parse_args(["train", "detector", "--data", "d", "--out", "o", "--channels", bad])
        assert "--channels" in capsys.readouterr().err


def test_train_detector_passes_dim_to_the_spec(monkeypatch, tmp_path):
    """`--dim LOW` reaches the training spec (session 32's stage 18 recipe); off by default."""
    import training.detector.train as train_mod

    seen = []
    monkeypatch.setattr(train_mod, "train_detector", lambda spec: seen.append(spec) or {})
    parser = build_parser()
    for extra, want in (([], None), (["--dim", "0.55"], 0.55)):
        args = parser.parse_args(["train", "detector", "--data", str(tmp_path), "--out",
                                  str(tmp_path / "o"), *extra])
        assert args.handler(args) == 0
        assert seen[-1].dim == want


def test_train_detector_passes_backbone_to_the_spec_and_names_an_unknown_one(
        monkeypatch, tmp_path, capsys):
    import training.detector.train as train_mod

    seen = []
    monkeypatch.setattr(train_mod, "train_detector", lambda spec: seen.append(spec) or {})
    parser = build_parser()
    base = ["train", "detector", "--data", str(tmp_path), "--out", str(tmp_path / "o")]
    for extra, want in (([], None), (["--backbone", "mobilenet_v2-half"], "mobilenet_v2-half")):
        args = parser.parse_args([*base, *extra])
        assert args.handler(args) == 0
        assert seen[-1].backbone == want
    args = parser.parse_args([*base, "--backbone-lr", "1e-5"])
    assert args.handler(args) == 0 and seen[-1].backbone_lr == 1e-5 and seen[0].backbone_lr is None
    with pytest.raises(SystemExit):
        parser.parse_args([*base, "--backbone", "resnet18"])
    assert "mobilenet_v2-half" in capsys.readouterr().err
