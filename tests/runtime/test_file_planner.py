"""The file planner and the planner registry (how a run config picks a planner by name)."""

from __future__ import annotations

import pytest

from runtime.planners.base import PlannerError, PlanRequest
from runtime.planners.file_planner import FilePlanner
from runtime.planners.registry import make_planner, planner_names

SOURCE = "from plan_actions import tell_planner\ntell_planner('done')\n"


def test_file_planner_returns_the_file_on_every_attempt(tmp_path):
    path = tmp_path / "plan.py"
    path.write_text(SOURCE, encoding="utf-8")
    planner = FilePlanner(path)
    first = planner.plan(PlanRequest("anything", []))
    again = planner.plan(PlanRequest("anything", [], feedback=["failed"], attempt=1))
    assert first.source == again.source == SOURCE
    assert (first.planner, first.prompt_tokens, first.latency_s) == ("file", 0, 0.0)
    assert "the same file again" in again.notes and "again" not in first.notes


def test_file_planner_rereads_the_file_and_drops_a_bom(tmp_path):
    path = tmp_path / "plan.py"
    path.write_bytes(b"\xef\xbb\xbf" + SOURCE.encode())
    planner = FilePlanner(str(path))
    assert planner.plan(PlanRequest("x", [])).source == SOURCE
    path.write_text("tell_planner('x')\n")
    assert planner.plan(PlanRequest("x", [], attempt=1)).source == "tell_planner('x')\n"


@pytest.mark.parametrize("text", [
    f"```python\n{SOURCE}```\n",
    f"Here is the codeplan:\n\n```\n{SOURCE}```\nIt puts nothing anywhere.\n",
    f"  ```py\n{SOURCE}  ```",
])
def test_file_planner_takes_the_code_out_of_markdown_fences(tmp_path, text):
    path = tmp_path / "plan.md"
    path.write_text(text)
    assert FilePlanner(path).plan(PlanRequest("x", [])).source == SOURCE


def test_file_planner_leaves_backticks_inside_code_alone(tmp_path):
    path = tmp_path / "plan.py"
    source = "x = '```'\n" + SOURCE
    path.write_text(source)
    assert FilePlanner(path).plan(PlanRequest("x", [])).source == source


@pytest.mark.parametrize(("content", "expected"), [
    (None, "does not exist"),
    (b"\xff\xfe bad", "is not UTF-8"),
    (b"  \n", "is empty"),
    (b"```python\n```\n", "has markdown fences with no code in them"),
])
def test_file_planner_errors(tmp_path, content, expected):
    path = tmp_path / "plan.py"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(PlannerError, match=expected):
        FilePlanner(path).plan(PlanRequest("x", []))


def test_file_planner_directory_is_an_error(tmp_path):
    with pytest.raises(PlannerError, match="cannot read codeplan file"):
        FilePlanner(tmp_path).plan(PlanRequest("x", []))


def test_registry_makes_each_planner(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert planner_names() == ["offline", "openai", "llm", "file", "react", "mcts"]
    assert make_planner("offline").name == "offline"
    assert make_planner("offline", time_limit_s=5).time_limit_s == 5.0
    assert make_planner("file", path=tmp_path / "p.py").name == "file"
    local = make_planner("openai", model="m", base_url="http://127.0.0.1:9/v1", path=None)
    assert (local.name, local.model) == ("openai", "m")  # None options count as not given
    react = make_planner("react", base_url="http://127.0.0.1:9/v1", model="m")
    assert (react.name, react.model, react.stepwise) == ("react", "m", True)
    mcts = make_planner("mcts", base_url="http://127.0.0.1:9/v1", model="m", expansions=5)
    assert (mcts.name, mcts.expansions, mcts.k) == ("mcts", 5, 3)
    with pytest.raises(PlannerError, match="expansions and k must be >= 1"):
        make_planner("mcts", base_url="http://127.0.0.1:9/v1", expansions=0)


@pytest.mark.parametrize(("name", "options", "expected"), [
    ("gpt", {}, "unknown planner 'gpt'; planners: offline, openai, llm, file"),
    ("offline", {"model": "gpt"}, "planner 'offline' has no option 'model'; options: "
                                  "time_limit_s"),
    ("file", {}, "planner 'file' needs path"),
    ("openai", {}, "planner 'openai' needs model"),
])
def test_registry_errors_name_the_choices(name, options, expected):
    with pytest.raises(ValueError) as err:
        make_planner(name, **options)
    assert expected in str(err.value)


def test_registry_passes_planner_errors_through(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(PlannerError, match="OPENAI_API_KEY is not set"):
        make_planner("openai", model="gpt-4o-mini")
