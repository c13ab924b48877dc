"""Actors and reasoners by name: what `--actor` and `--reasoner` accept, and their errors."""

from __future__ import annotations

import pytest

from ravens_env.env import TabletopEnv
from runtime.components import make_actor, make_reasoner


@pytest.fixture(scope="module")
def env():
    with TabletopEnv() as e:
        e.reset("put-block-in-bowl", 0)
        yield e


def test_a_cliport_checkpoint_directory_is_an_actor(env, tmp_path):
    from ravens_env.cliport.checkpoint import save_checkpoint
    from ravens_env.cliport.config import preset
    from ravens_env.cliport.policy import CliportModel

    config = preset("cpu", language="hash", widths=(8, 16), stem_width=8)
    save_checkpoint(tmp_path, CliportModel(config), config)
    actor = make_actor(str(tmp_path), env)
    assert actor.name == "cliport"
    obs = env.observe()
    action = actor.act(obs, "put the red block in the blue bowl")
    assert len(action.pick) == 3 and len(action.place) == 3


def test_unknown_actors_and_reasoners_are_named(env, tmp_path):
    with pytest.raises(ValueError, match=r"unknown actor 'nowhere'.*oracle"):
        make_actor("nowhere", env)
    with pytest.raises(ValueError, match=r"unknown reasoner 'nowhere'.*http://"):
        make_reasoner("nowhere", env)


def test_reasoners_by_name(env, tmp_path):
    from vrs.client import HttpReasoner
    from vrs.detector.checkpoint import save_checkpoint
    from vrs.detector.config import DetectorConfig
    from vrs.detector.model import DetectorNet
    from vrs.detector.reasoner import DetectorReasoner
    from vrs.oracle import OracleReasoner

    assert isinstance(make_reasoner("oracle", env), OracleReasoner)
    from vrs.loading import resolve_checkpoint

    assert resolve_checkpoint("learned") == resolve_checkpoint("default")  # paper-suite word
    from vrs.loading import SHIPPED

    for name in SHIPPED:  # every short name `--reasoner` takes finds its checkpoint
        assert (resolve_checkpoint(name) / "config.json").is_file(), name
    assert isinstance(make_reasoner("http://127.0.0.1:9", env), HttpReasoner)
    save_checkpoint(tmp_path / "detector", DetectorNet(DetectorConfig()))
    assert isinstance(make_reasoner(str(tmp_path / "detector"), env), DetectorReasoner)


def test_the_detector_reasoner_answers_to_its_old_name_too(env):
    """`--reasoner ns` (the detector's first name) still works: the same shipped model."""
    from vrs.detector.reasoner import DetectorReasoner

    assert isinstance(make_reasoner("detector", env), DetectorReasoner)
    assert make_reasoner("ns", env) is make_reasoner("detector", env)


def test_the_stacking_actor_is_the_default_one_with_only_its_place_stream_retrained(env):
    """`--actor cliport-stack` loads its own checkpoint, whose pick stream is the default
    actor's, weight for weight (it was fine-tuned with `--freeze pick`), and whose place
    stream differs."""
    import torch

    default, stack = make_actor("cliport", env), make_actor("cliport-stack", env)
    assert stack is not default
    streams = {}
    for name in ("pick", "place"):
        pairs = zip(getattr(default.model, name).state_dict().values(),
                    getattr(stack.model, name).state_dict().values(), strict=True)
        streams[name] = all(torch.equal(a, b) for a, b in pairs)
    assert streams == {"pick": True, "place": False}


def test_a_missing_shipped_actor_says_where_it_looked(env, tmp_path, monkeypatch):
    import checkpoints

    monkeypatch.setattr(checkpoints, "PACKAGE_DIR", tmp_path)
    with pytest.raises(ValueError, match=r"actor 'cliport'.*looked in .*cliport-cpu"):
        make_actor("cliport", env)
    with pytest.raises(ValueError, match=r"actor 'cliport-stack'.*looked in .*cliport-stack"):
        make_actor("cliport-stack", env)
