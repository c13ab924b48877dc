"""The active episode: where primitive calls from a codeplan land in the host.

`primitives/` modules are what a codeplan imports; each of their functions forwards to the
episode registered here. One episode is active at a time per process (a closed-loop run
drives one simulator), so a module-level slot is enough and keeps the primitives trivial.

The slot lives in `primitives`, not in `runtime`, so that the primitives import nothing of the
runtime: the runtime injects its controller with `active(controller)` (see
tests/test_layering.py for the import order this keeps).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class EpisodeApi(Protocol):
    """What the primitives need from an episode (the controller implements it)."""

    def put_first_on_second(self, pick: str, place: str) -> None: ...
    def get_object_names(self) -> list[str]: ...
    def tell_planner(self, message: str) -> None: ...
    def find_object_related_to_obj(self, relation: str, obj: str,
                                   at_start: bool = False) -> str | None: ...
    def ask(self, question: str, at_start: bool = False) -> str: ...
    def is_true(self, question: str, at_start: bool = False) -> bool: ...


class NoActiveEpisode(RuntimeError):
    """A primitive was called outside a closed-loop run."""


_ACTIVE: list[EpisodeApi] = []


def current() -> EpisodeApi:
    """The episode primitive calls go to; NoActiveEpisode outside a closed-loop run."""
    if not _ACTIVE:
        raise NoActiveEpisode("no active episode: primitives run only inside `codeplan run`")
    return _ACTIVE[-1]


@contextmanager
def active(episode: EpisodeApi) -> Iterator[EpisodeApi]:
    """Make `episode` receive primitive calls for the duration of the block."""
    _ACTIVE.append(episode)
    try:
        yield episode
    finally:
        _ACTIVE.remove(episode)
