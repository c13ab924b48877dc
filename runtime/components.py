"""Factories for the swappable parts of a run: actors and reasoners, by name.

Each factory names the choices it knows in its error, so a typo on the command line says what
would have worked.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

import checkpoints

if TYPE_CHECKING:
    from ravens_env.env import TabletopEnv
    from runtime.controller import Actor
    from vrs.reasoner import Reasoner

ACTORS = ("oracle", "cliport", "cliport-stack", "<checkpoint dir>")
REASONERS = ("default", "detector", "ofa", "oracle", "<checkpoint dir>", "http://HOST:PORT")
# The shipped CLIPort-style actor (`--actor cliport`), found by `checkpoints.find`; see
# checkpoints/README.md.
CLIPORT_SHIPPED = "cliport-cpu"
# Shipped actors by --actor name: the default, and its fine-tune with the place stream taught
# stacks (on two blocks, on a block in a bowl) and the pick stream kept (opt-in).
SHIPPED_ACTORS = {"cliport": CLIPORT_SHIPPED, "cliport-stack": "cliport-stack"}


def make_actor(name: str, env: TabletopEnv) -> Actor:
    """'oracle': the scripted ground-truth actor (an upper bound, not a system under test);
    'cliport': the shipped CLIPort-style policy; 'cliport-stack': its stacking fine-tune; or a
    checkpoint directory of one (`codeplan train cliport` output: config.json +
    model.safetensors)."""
    if name == "oracle":
        from ravens_env.agents.oracle import OracleActor

        return OracleActor(env)
    if name in SHIPPED_ACTORS:
        try:
            return _load_actor(str(checkpoints.find(SHIPPED_ACTORS[name])))
        except checkpoints.CheckpointNotFound as e:
            raise ValueError(f"actor {name!r}: {e}") from e
    if not (Path(name) / "config.json").is_file():
        raise ValueError(f"unknown actor {name!r}: no checkpoint at {name}; "
                         f"actors: {', '.join(ACTORS)}")
    return _load_actor(name)


@functools.lru_cache(maxsize=2)
def _load_actor(path: str) -> Actor:
    """Loaded once per process: an eval runs many episodes with one policy."""
    from ravens_env.cliport.actor import CliportActor

    return CliportActor(path)


def make_reasoner(name: str, env: TabletopEnv) -> Reasoner:
    """A reasoner by name:

    - 'default' (the shipped learned reasoner, see `vrs.loading.DEFAULT`), 'detector' ('ns',
      its old name, still works), 'ofa', or a checkpoint directory: answers from the front
      camera image, in-process;
    - 'http://HOST:PORT': a running `codeplan serve vrs`, through the HTTP client;
    - 'oracle': answers from the simulator's scene graph (labelled as an oracle in every
      output: an upper bound, not a system under test).
    """
    if name == "oracle":
        from vrs.oracle import OracleReasoner

        return OracleReasoner(lambda: env.scene(visibility=False))
    if name.startswith(("http://", "https://")):
        from vrs.client import HttpReasoner

        return HttpReasoner(name)
    from vrs.loading import canonical_name

    return _load(canonical_name(name))  # 'ns', 'default' and 'detector' share one load


@functools.lru_cache(maxsize=4)
def _load(name: str) -> Reasoner:
    """Learned reasoners are loaded once per process (an eval runs many episodes); they keep
    no per-episode state beyond a cache keyed by image content."""
    from vrs.loading import CheckpointError, load_reasoner

    try:
        return load_reasoner(name)
    except CheckpointError as e:
        raise ValueError(f"unknown reasoner {name!r} ({e}); reasoners: "
                         f"{', '.join(REASONERS)}") from e
