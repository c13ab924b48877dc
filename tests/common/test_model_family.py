"""The model families' shared base: one config API and one checkpoint format, for all three
families, and the shipped checkpoints still loading through it."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
import torch

from common import model_family
from common.model_family import CheckpointNotFound, FamilyConfig, load_checkpoint, save_checkpoint

ROOT = Path(__file__).resolve().parents[2]


def _families() -> dict[str, FamilyConfig]:
    """One non-default config per family (a default would hide a field that does not
    round-trip)."""
    from ravens_env.cliport.config import preset as cliport_preset
    from vrs.detector.camera import PinholeCamera
    from vrs.detector.config import DetectorConfig
    from vrs.ofa.config import preset as ofa_preset

    camera = PinholeCamera(width=160, height=120, eye=(1.0, 0.1, 0.6), fov_deg=55.0)
    return {
        "cliport": cliport_preset("cpu", language="hash+rgb", lang_dim=390, color_match_dim=4,
                                  widths=(8, 16), extra={"note": [1, 2]}),
        "detector": DetectorConfig(width=160, height=120, camera=camera, levels=4,
                                   level_heat=True, hidden_threshold=None,
                                   channels=(8, 16, 24, 32)),
        "ofa": ofa_preset("tiny", vocab_size=300, stem_channels=(8, 16, 32, 64), d_model=64,
                          heads=2),
    }


FAMILIES = ["cliport", "detector", "ofa"]


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_config_round_trips_through_json(family, tmp_path):
    config = _families()[family]
    data = json.loads(json.dumps(config.to_dict()))  # lists, as config.json holds them
    again = type(config).from_dict(data)
    assert again == config
    tuples = [f.name for f in dataclasses.fields(config)
              if isinstance(getattr(config, f.name), tuple)]
    assert tuples and all(isinstance(getattr(again, n), tuple) for n in tuples)
    config.save(tmp_path / "config.json")
    assert type(config).load(tmp_path / "config.json") == config
    assert list(json.loads((tmp_path / "config.json").read_text()))[:len(config.TAGS)] == list(
        config.TAGS)  # the tags come first, so a person sees the family at the top
    assert not list(tmp_path.glob("*.tmp"))


def test_the_detector_camera_is_rebuilt_as_a_camera():
    config = _families()["detector"]
    again = type(config).from_dict(json.loads(json.dumps(config.to_dict())))
    assert type(again.camera) is type(config.camera) and again.camera.eye == (1.0, 0.1, 0.6)


@pytest.mark.parametrize("family", FAMILIES)
def test_unknown_keys_are_an_error_naming_them(family):
    config = _families()[family]
    with pytest.raises(ValueError, match=f"unknown {type(config).__name__} keys: bogus, zz"):
        type(config).from_dict({**config.to_dict(), "zz": 1, "bogus": 2})


@pytest.mark.parametrize("family", FAMILIES)
def test_another_familys_tag_is_an_error_and_an_absent_tag_is_not(family):
    config = _families()[family]
    cls = type(config)
    for key, value in cls.TAGS.items():
        with pytest.raises(ValueError, match=f"config {key} is 'other', expected {value!r}"):
            cls.from_dict({**config.to_dict(), key: "other"})
    untagged = {k: v for k, v in config.to_dict().items() if k not in cls.TAGS}
    assert cls.from_dict(untagged) == config  # written before the tag existed


def test_the_families_have_different_tags():
    tags = [tuple(sorted(c.TAGS.items())) for c in _families().values()]
    assert len(set(tags)) == len(tags) and all(tags)


NEWER = {"cliport": "color_match_dim", "detector": "stand_z", "ofa": "prune_below"}


@pytest.mark.parametrize("family", FAMILIES)
def test_absent_fields_take_their_defaults_and_the_training_record_is_not_a_field(family):
    config = _families()[family]
    cls = type(config)
    data = {**config.to_dict(), "training": {"commit": "abc"}}
    assert cls.from_dict(data) == config
    newest = NEWER[family]  # a field added after checkpoints were written without it
    del data[newest]
    assert getattr(cls.from_dict(data), newest) == getattr(cls(), newest)


SHIPPED = sorted(p for p in (ROOT / "checkpoints").iterdir() if (p / "config.json").is_file())


@pytest.mark.parametrize("ckpt", SHIPPED, ids=[p.name for p in SHIPPED])
def test_every_shipped_config_loads_unchanged(ckpt):
    """The shipped files are not rewritten: every key they hold reads back to the same value
    (newer fields absent from them take their defaults)."""
    from ravens_env.cliport.config import CliportConfig
    from vrs.detector.config import DetectorConfig
    from vrs.ofa.config import OfaConfig

    data = json.loads((ckpt / "config.json").read_text())
    cls = {"ns-vqa": DetectorConfig, "ofa-vqa": OfaConfig}.get(data.get("kind"), CliportConfig)
    config, training = model_family.read_config(ckpt, cls)
    written = json.loads(json.dumps(config.to_dict()))
    assert {k: v for k, v in data.items() if k != "training"} == {
        k: written[k] for k in data if k != "training"}
    assert training == data.get("training", {})


# A toy family: the checkpoint functions need nothing but a FamilyConfig and a module.


@dataclass(frozen=True)
class ToyConfig(FamilyConfig):
    """Two sizes and a tag."""

    FAMILY: ClassVar[str] = "toy"
    TAGS: ClassVar[dict] = {"kind": "toy", "format": 1}

    width: int = 4
    depth: int = 2


class Toy(torch.nn.Module):
    def __init__(self, config: ToyConfig) -> None:
        super().__init__()
        self.config = config
        self.layers = torch.nn.Sequential(*[torch.nn.Linear(config.width, config.width)
                                            for _ in range(config.depth)])
        self.norm = torch.nn.BatchNorm1d(config.width)  # buffers travel with the weights

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(self.layers(x))


def _toy(seed: int, **sizes: int) -> Toy:
    torch.manual_seed(seed)
    model = Toy(ToyConfig(**sizes))
    model.norm.running_mean.add_(seed)
    return model.eval()


def test_a_checkpoint_round_trips_weights_config_and_record(tmp_path):
    model = _toy(1)
    out = save_checkpoint(tmp_path / "ck", model, model.config,
                          training={"commit": "abc", "spec": {"lr": 0.1}})
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "model.safetensors"]
    loaded, config, training = load_checkpoint(out, ToyConfig, Toy)
    assert config == model.config and training == {"commit": "abc", "spec": {"lr": 0.1}}
    assert not loaded.training  # eval mode
    for key, value in model.state_dict().items():
        assert torch.equal(value, loaded.state_dict()[key]), key
    data = json.loads((out / "config.json").read_text())
    assert data["kind"] == "toy" and data["format"] == 1 and data["training"]["commit"] == "abc"
    assert load_checkpoint(save_checkpoint(tmp_path / "bare", model, model.config),
                           ToyConfig, Toy).training == {}


def test_loading_is_strict_and_names_missing_files(tmp_path):
    save_checkpoint(tmp_path / "ck", _toy(1), ToyConfig())
    config = json.loads((tmp_path / "ck" / "config.json").read_text())
    (tmp_path / "ck" / "config.json").write_text(json.dumps({**config, "depth": 3}))
    with pytest.raises(RuntimeError, match="Missing key"):  # a layer the file lacks
        load_checkpoint(tmp_path / "ck", ToyConfig, Toy)
    (tmp_path / "ck" / "config.json").write_text(json.dumps({**config, "depth": 1}))
    with pytest.raises(RuntimeError, match="Unexpected key"):  # a weight left over
        load_checkpoint(tmp_path / "ck", ToyConfig, Toy)
    (tmp_path / "ck" / "model.safetensors").unlink()
    with pytest.raises(CheckpointNotFound, match=r"no toy checkpoint at .*missing "
                                                 r"model\.safetensors") as caught:
        load_checkpoint(tmp_path / "ck", ToyConfig, Toy)
    assert isinstance(caught.value, FileNotFoundError) and isinstance(caught.value, ValueError)
    save_checkpoint(tmp_path / "ck", _toy(1), ToyConfig())
    (tmp_path / "ck" / "config.json").write_text(json.dumps({**config, "kind": "ofa-vqa"}))
    with pytest.raises(ValueError, match="config kind is 'ofa-vqa', expected 'toy'"):
        load_checkpoint(tmp_path / "ck", ToyConfig, Toy)


def _fail(*args: object, **kwargs: object) -> None:
    raise OSError("disk full")


def test_a_failed_write_leaves_the_old_checkpoint(tmp_path, monkeypatch):
    import safetensors.torch

    old = _toy(1)
    save_checkpoint(tmp_path, old, old.config, training={"run": "old"})
    (tmp_path / "train_log.jsonl").write_text("{}\n")  # a run's files beside the checkpoint
    real = safetensors.torch.save_model

    def half_then_fail(model, filename, metadata=None):
        Path(filename).write_bytes(b"half a file")
        raise OSError("disk full")

    monkeypatch.setattr(safetensors.torch, "save_model", half_then_fail)
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(tmp_path, _toy(2, width=6), ToyConfig(width=6), training={"run": "new"})
    monkeypatch.setattr(safetensors.torch, "save_model", real)
    loaded, config, training = load_checkpoint(tmp_path, ToyConfig, Toy)
    assert config == old.config and training == {"run": "old"}
    assert torch.equal(loaded.layers[0].weight, old.layers[0].weight)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "config.json", "model.safetensors", "train_log.jsonl"]  # no temporaries left


def test_a_whole_directory_checkpoint_is_replaced_whole_or_not_at_all(tmp_path):
    target = tmp_path / "model"
    old = _toy(1)
    save_checkpoint(target, old, old.config, replace_directory=True,
                    extra_files=lambda d: (d / "vocab.json").write_text('["old"]'))
    (target / "stale.txt").write_text("from an older export")
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(target, _toy(2), ToyConfig(), replace_directory=True, extra_files=_fail)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]  # no temporaries left
    assert (target / "vocab.json").read_text() == '["old"]' and (target / "stale.txt").exists()
    assert torch.equal(load_checkpoint(target, ToyConfig, Toy).model.layers[0].weight,
                       old.layers[0].weight)
    new = _toy(2)
    save_checkpoint(target, new, new.config, replace_directory=True,
                    extra_files=lambda d: (d / "vocab.json").write_text('["new"]'))
    assert sorted(p.name for p in target.iterdir()) == [
        "config.json", "model.safetensors", "vocab.json"]  # the stale file went with the old
    assert (target / "vocab.json").read_text() == '["new"]'
    assert torch.equal(load_checkpoint(target, ToyConfig, Toy).model.layers[0].weight,
                       new.layers[0].weight)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_tied_weights_are_saved_once_and_load_back_tied(tmp_path):
    class Tied(Toy):
        def __init__(self, config: ToyConfig) -> None:
            super().__init__(config)
            self.layers[1].weight = self.layers[0].weight

    model = Tied(ToyConfig())
    loaded = load_checkpoint(save_checkpoint(tmp_path, model, model.config), ToyConfig,
                             Tied).model
    assert torch.equal(loaded.layers[1].weight, model.layers[0].weight)
    assert loaded.layers[1].weight is loaded.layers[0].weight


def test_the_base_does_not_load_torch_on_import():
    """common sits below the simulator core, which must stay torch-free."""
    code = ("import sys, common.model_family; "
            "print('torch' in sys.modules, 'safetensors' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]
