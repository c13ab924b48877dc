"""`codeplan tasks` shows each task's category and drawn params; `codeplan eval oracle` runs
the scripted oracle on a suite or on tasks and prints rates with 95% intervals."""

from __future__ import annotations

import json
import subprocess
import sys


def codeplan(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runtime.cli", *args], capture_output=True,
                          text=True, timeout=300)


def test_tasks_show_json_has_params_and_category():
    out = codeplan("tasks", "show", "put-block-by-relation", "--seed", "4", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["category"] == "reference"
    assert set(data["params"]) == {"block", "relation", "reference", "bowl"}
    assert data["params"]["bowl"] in data["instruction"]
    text = codeplan("tasks", "show", "stack-blocks", "--seed", "0").stdout
    assert "category -  params {\"base\": " in text


def test_tasks_list_json_has_categories():
    rows = {r["id"]: r for r in json.loads(codeplan("tasks", "list", "--json").stdout)}
    assert rows["reverse-tower"]["category"] == "memory"
    assert rows["stack-blocks"]["category"] == ""


def test_eval_oracle_json_on_one_task():
    out = codeplan("eval", "oracle", "--task", "tidy-up-blocks", "--episodes", "2", "--json")
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)["tasks"]["tidy-up-blocks"]
    assert {"successes", "episodes", "success_rate", "ci95", "category"} <= set(row)
    assert row["episodes"] == 2 and row["successes"] == 2 and row["category"] == "common-sense"


def test_eval_oracle_needs_one_of_suite_or_task():
    out = codeplan("eval", "oracle", "--suite", "nope")
    assert out.returncode == 2 and "unknown task suite 'nope'; suites: reasoning" in out.stderr
    out = codeplan("eval", "oracle")
    assert out.returncode == 2 and "--suite" in out.stderr
