"""The codeplan-facing modules: their API table, their prompt text, and where calls go."""

from __future__ import annotations

import inspect

import pytest

import primitives
from primitives import control_actions, plan_actions, reasoning_actions
from primitives.episode import NoActiveEpisode, active


def test_the_api_is_the_papers_plus_two_reasoning_calls():
    api = primitives.sandbox_api()
    assert {m: sorted(f) for m, f in api.items()} == {
        "control_actions": ["put_first_on_second"],
        "plan_actions": ["get_object_names", "tell_planner"],
        "reasoning_actions": ["ask", "find_object_related_to_obj", "is_true"],
    }


def test_every_primitive_has_a_docstring_with_an_example_or_rule():
    for functions in primitives.sandbox_api().values():
        for name, fn in functions.items():
            doc = inspect.getdoc(fn) or ""
            assert len(doc) > 40, name


def test_describe_api_shows_signatures_and_docstrings():
    text = primitives.describe_api()
    assert "from control_actions import put_first_on_second" in text
    assert "def put_first_on_second(pick: str, place: str) -> None:" in text
    assert "'below' gives what `obj` rests on" in text


def test_calls_outside_an_episode_raise():
    with pytest.raises(NoActiveEpisode, match="only inside"):
        plan_actions.get_object_names()


def test_calls_go_to_the_active_episode():
    class Recorder:
        def __init__(self):
            self.calls = []

        def __getattr__(self, name):
            return lambda *args: self.calls.append((name, args)) or "yes"

    rec = Recorder()
    with active(rec):
        control_actions.put_first_on_second("red block", "blue bowl")
        assert reasoning_actions.ask("is there a red block?") == "yes"
    assert rec.calls == [("put_first_on_second", ("red block", "blue bowl")),
                         ("ask", ("is there a red block?", False))]
