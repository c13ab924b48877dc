"""`codeplan results`: splice the newest benchmark tables into docs/RESULTS.md.

Why generated: a hand-copied number drifts from the run it came from. Each suite's command
writes `results/<suite>/<date>/table.md` (with its command, machine, commit, seeds and
episodes); docs/RESULTS.md marks where each suite's table goes:

    <!-- results:paper-table2 -->
    (replaced by the newest results/paper-table2/*/table.md)
    <!-- /results:paper-table2 -->

Text outside the markers is the prose people write; only the blocks are rewritten.
"""

from __future__ import annotations

import re
from pathlib import Path

_BLOCK = re.compile(r"(<!-- results:(?P<suite>[\w.+=-]+) -->\n)(?P<body>.*?)"
                    r"(<!-- /results:(?P=suite) -->)", re.DOTALL)


def newest_table(results: Path, suite: str) -> Path | None:
    """results/<suite>/<newest dated dir>/table.md, or None when the suite never ran."""
    tables = sorted((results / suite).glob("*/table.md"), key=lambda p: p.parent.name)
    return tables[-1] if tables else None


def splice(doc: str, tables: dict[str, str]) -> tuple[str, list[str]]:
    """`doc` with each marked block replaced by `tables[suite]`; returns (text, suites
    replaced). Blocks of suites missing from `tables` are left as they are."""
    done: list[str] = []

    def replace(m: re.Match) -> str:
        suite = m.group("suite")
        if suite not in tables:
            return m.group(0)
        done.append(suite)
        return m.group(1) + tables[suite].rstrip() + "\n" + m.group(4)

    return _BLOCK.sub(replace, doc), done


def update_results_doc(doc_path: Path, results: Path) -> dict:
    """Rewrite `doc_path`'s marked blocks from the newest tables under `results`."""
    doc = doc_path.read_text()
    suites = [m.group("suite") for m in _BLOCK.finditer(doc)]
    tables, sources = {}, {}
    for suite in suites:
        table = newest_table(results, suite)
        if table is not None:
            tables[suite] = (table.read_text().rstrip()
                             + f"\n\n(from `{table.parent.as_posix()}/`)\n")
            sources[suite] = str(table.parent)
    text, done = splice(doc, tables)
    doc_path.write_text(text)
    return {"doc": str(doc_path), "updated": sources,
            "missing": [s for s in suites if s not in done]}
