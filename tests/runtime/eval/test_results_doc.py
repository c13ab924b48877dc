"""`codeplan results`: only the marked blocks change, from the newest dated results dir."""

from __future__ import annotations

import argparse
import json

from runtime.cli import results as results_cli
from runtime.eval.results_doc import newest_table, splice

DOC = """# Results
prose before
<!-- results:paper-table2 -->
old table
<!-- /results:paper-table2 -->
prose between
<!-- results:paper-table1 -->
old vqa table
<!-- /results:paper-table1 -->
prose after
"""


def test_splice_replaces_only_the_blocks_it_has_tables_for():
    text, done = splice(DOC, {"paper-table2": "| new | table |"})
    assert done == ["paper-table2"]
    assert "| new | table |" in text and "old table" not in text
    assert "old vqa table" in text  # no table for it: left alone
    for prose in ("prose before", "prose between", "prose after"):
        assert prose in text
    assert splice(text, {"paper-table2": "| new | table |"})[0] == text  # idempotent


def test_the_newest_dated_directory_wins(tmp_path):
    for day, body in (("2026-11-20", "older"), ("2026-11-22", "newer"), ("2026-11-21", "mid")):
        (tmp_path / "paper-table2" / day).mkdir(parents=True)
        (tmp_path / "paper-table2" / day / "table.md").write_text(body)
    assert newest_table(tmp_path, "paper-table2").read_text() == "newer"
    assert newest_table(tmp_path, "paper-table1") is None


def test_the_command_rewrites_the_doc_and_reports_missing_suites(tmp_path, capsys):
    doc = tmp_path / "RESULTS.md"
    doc.write_text(DOC)
    (tmp_path / "results" / "paper-table2" / "2026-11-22").mkdir(parents=True)
    (tmp_path / "results" / "paper-table2" / "2026-11-22" / "table.md").write_text("| 90% |")
    parser = argparse.ArgumentParser()
    results_cli.add_parser(parser.add_subparsers())
    args = parser.parse_args(["results", "--doc", str(doc), "--results",
                              str(tmp_path / "results"), "--json"])
    assert args.handler(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert list(summary["updated"]) == ["paper-table2"]
    assert summary["missing"] == ["paper-table1"]
    text = doc.read_text()
    assert "| 90% |" in text and "paper-table2/2026-11-22/" in text and "old vqa table" in text
