"""`checkpoints.find`: shipped checkpoints by name, from the search path, with a clear error."""

from __future__ import annotations

import json

import pytest

import checkpoints


def test_every_shipped_checkpoint_is_found_in_the_package() -> None:
    names = checkpoints.shipped()
    assert {"cliport-cpu", "detector-tiny", "ofa-custom", "ofa-mixture",
            "ofa-pretrained"} <= set(names)
    for name in names:
        assert checkpoints.find(name) == checkpoints.PACKAGE_DIR / name


def test_the_environment_variable_comes_first(tmp_path, monkeypatch) -> None:
    (tmp_path / "detector-tiny").mkdir()
    (tmp_path / "detector-tiny" / "config.json").write_text(json.dumps({"kind": "ns-vqa"}))
    monkeypatch.setenv(checkpoints.ENV_VAR, str(tmp_path))
    assert checkpoints.find("detector-tiny") == tmp_path / "detector-tiny"
    # falls through to the package dir
    assert checkpoints.find("ofa-custom") == checkpoints.PACKAGE_DIR / "ofa-custom"


def test_a_missing_checkpoint_names_every_place_looked_and_how_to_get_it(tmp_path,
                                                                         monkeypatch) -> None:
    monkeypatch.setenv(checkpoints.ENV_VAR, str(tmp_path))
    with pytest.raises(checkpoints.CheckpointNotFound) as e:
        checkpoints.find("nowhere")
    message = str(e.value)
    for place in (tmp_path / "nowhere", checkpoints.PACKAGE_DIR / "nowhere"):
        assert str(place) in message
    assert checkpoints.ENV_VAR in message and "README" in message


def test_a_directory_without_config_json_is_not_a_checkpoint(tmp_path, monkeypatch) -> None:
    (tmp_path / "half").mkdir()
    monkeypatch.setenv(checkpoints.ENV_VAR, str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"config\.json"):
        checkpoints.find("half")
