"""Task registry: ids -> task factories, so every task is reachable by its CLIPort-style id."""

from __future__ import annotations

from collections.abc import Callable

from ravens_env.tasks.base import Task

_REGISTRY: dict[str, Callable[[], Task]] = {}
_SUMMARIES: dict[str, str] = {}


class UnknownTaskError(KeyError):
    """A task id that is not registered; the message lists the known ids."""

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0])


def register(task_id: str, summary: str, factory: Callable[[], Task]) -> None:
    if task_id in _REGISTRY:
        raise ValueError(f"task id {task_id!r} registered twice")
    _REGISTRY[task_id] = factory
    _SUMMARIES[task_id] = summary


def make_task(task_id: str) -> Task:
    """A fresh task object for one episode."""
    if task_id not in _REGISTRY:
        raise UnknownTaskError(
            f"unknown task {task_id!r}; known tasks: {', '.join(sorted(_REGISTRY))}"
        )
    task = _REGISTRY[task_id]()
    task.task_id = task_id
    return task


def task_ids() -> list[str]:
    return sorted(_REGISTRY)


def task_summary(task_id: str) -> str:
    return _SUMMARIES[task_id]


def task_category(task_id: str) -> str:
    """The task's reasoning category ("" for the tasks outside the reasoning suite)."""
    return make_task(task_id).category
