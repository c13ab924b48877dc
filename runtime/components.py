"""Factories for the swappable parts of a run: actors and reasoners, by name.

Each factory names the choices it knows in its error, so a typo on the command line says what
would have worked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ravens_env.env import TabletopEnv
    from runtime.controller import Actor
    from vrs.reasoner import Reasoner

ACTORS = ("oracle",)
REASONERS = ("oracle",)


def make_actor(name: str, env: TabletopEnv) -> Actor:
    """'oracle': the scripted ground-truth actor (an upper bound, not a system under test)."""
    if name == "oracle":
        from ravens_env.agents.oracle import OracleActor

        return OracleActor(env)
    raise ValueError(f"unknown actor {name!r}; actors: {', '.join(ACTORS)}")


def make_reasoner(name: str, env: TabletopEnv) -> Reasoner:
    """'oracle': answers from the simulator's scene graph (labelled as an oracle in every
    output; the learned visual reasoning service replaces it as the default when it lands)."""
    if name == "oracle":
        from vrs.oracle import OracleReasoner

        return OracleReasoner(lambda: env.scene(visibility=False))
    raise ValueError(f"unknown reasoner {name!r}; reasoners: {', '.join(REASONERS)}")
