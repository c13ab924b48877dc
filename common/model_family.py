"""What every learned model family shares: one config API and one checkpoint format.

The project has three families (the CLIPort actor, `ravens_env/cliport/`; the detector behind
the neuro-symbolic reasoner, `vrs/detector/`; the OFA-style VQA model, `vrs/ofa/`). Each keeps
its sizes in a dataclass config apart from its modules, so that a checkpoint's config.json alone
rebuilds the network. This module gives them one way to do it:

- `FamilyConfig`, the base of the dataclass configs: `to_dict`/`from_dict`/`save`/`load`, the
  family's tag (`kind`, `format`) written first and checked on reading, unknown keys an error
  naming them, JSON lists turned back into tuples and nested dataclasses (the detector's camera)
  rebuilt through `NESTED`.
- One checkpoint directory layout, written and read by `save_checkpoint` / `load_checkpoint`:

      <dir>/config.json        config.to_dict(), plus "training": how the model was made
      <dir>/model.safetensors  the state dict (safetensors: loading never runs code)
      <dir>/...                family files (`extra_files`, e.g. the VQA model's tokenizer)

  Writes are atomic: each file goes to a temporary name and is renamed, weights first, so a
  crash never leaves a config pointing at half-written weights; or, with `replace_directory`,
  the whole directory is written under a temporary name and swapped in, so a reader never sees
  a mix of two checkpoints. Loading is strict: every weight present, none left over.

Like the rest of `common`, this imports no other package of the project, and it imports torch
and safetensors only inside the functions that need them: the simulator core sits above
`common` and must stay torch-free.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Self

if TYPE_CHECKING:
    import torch
    from torch import nn

CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"
TRAINING_KEY = "training"  # config.json's record of how the model was made (not a config field)


class CheckpointNotFound(FileNotFoundError, ValueError):
    """A checkpoint directory that lacks a file. Both a FileNotFoundError (what it is) and a
    ValueError (what the command line reports as a one-line bad-input error)."""


class FamilyConfig:
    """Base of a model family's dataclass config (mix it into a `@dataclass`).

    A subclass sets `FAMILY` (its name in messages), `TAGS` (the keys config.json carries to say
    which family wrote it, e.g. {"kind": "ofa-vqa", "format": 1}) and, for fields that are
    dataclasses themselves, `NESTED` ({field: class with `from_dict`}).
    """

    FAMILY: ClassVar[str] = "model"
    TAGS: ClassVar[dict[str, Any]] = {}
    NESTED: ClassVar[dict[str, Any]] = {}

    def to_dict(self) -> dict:
        """config.json content: the family's tags first, then every field as plain JSON values
        (nested dataclasses become dicts, tuples stay tuples until JSON makes them lists)."""
        return {**self.TAGS, **dataclasses.asdict(self)}  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls, data: dict) -> Self:
        """Inverse of `to_dict`. A tag of another family is an error naming both; an absent
        tag is accepted (configs written before the tag existed); a key that is no field is an
        error naming it, so a typo cannot pass silently; a "training" record is ignored (it
        belongs to the checkpoint, see `load_checkpoint`); absent fields take their defaults,
        so checkpoints written before a field existed keep loading."""
        data = dict(data)
        data.pop(TRAINING_KEY, None)
        for key, expected in cls.TAGS.items():
            if key in data and (found := data.pop(key)) != expected:
                raise ValueError(f"config {key} is {found!r}, expected {expected!r} "
                                 f"(a {cls.FAMILY} config)")
        names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"unknown {cls.__name__} keys: {', '.join(unknown)}")
        return cls(**cls._decode(data))

    @classmethod
    def _decode(cls, data: dict) -> dict:
        """Field values from JSON values: lists back to tuples, nested dicts to `NESTED`."""
        values = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        for name, nested in cls.NESTED.items():
            if isinstance(values.get(name), dict):
                values[name] = nested.from_dict(values[name])
        return values

    def save(self, path: str | Path) -> None:
        """Write `to_dict()` as indented JSON (a person reads a checkpoint's sizes there),
        atomically: a temporary file renamed over `path`."""
        _write_json(Path(path), self.to_dict())

    @classmethod
    def load(cls, path: str | Path) -> Self:
        """Read a config.json written by `save` (or by `save_checkpoint`)."""
        path = Path(path)
        try:
            return cls.from_dict(json.loads(path.read_text()))
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None


def _write_json(path: Path, data: dict) -> None:
    """Indented JSON to `path` through a temporary name, so a reader never sees half a file."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, path)


class Checkpoint(NamedTuple):
    """What `load_checkpoint` returns."""

    model: Any  # the family's nn.Module, in eval mode
    config: Any  # the family's FamilyConfig
    training: dict  # config.json's "training" record ({} when it has none)


def save_checkpoint(directory: str | Path, model: nn.Module, config: FamilyConfig, *,
                    training: dict | None = None,
                    extra_files: Callable[[Path], None] | None = None,
                    replace_directory: bool = False) -> Path:
    """Write `model` and `config` (with `training` under config.json's "training") into
    `directory`; returns it.

    `extra_files(d)` writes the family's other files into `d`. Without `replace_directory`
    the files are written into `directory` one by one, each atomically, weights first and
    config.json last (other files there, such as a training run's logs, stay). With it the
    directory holds this checkpoint alone: it is written whole under a temporary name and
    swapped in, and files of an older checkpoint there are gone."""
    directory = Path(directory)
    if not replace_directory:
        return _write_files(directory, model, config, training, extra_files)
    directory.parent.mkdir(parents=True, exist_ok=True)
    tmp = directory.with_name(f".{directory.name}.tmp-{os.getpid()}")
    old = directory.with_name(f".{directory.name}.old-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        _write_files(tmp, model, config, training, extra_files)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if directory.exists():
        os.replace(directory, old)
    os.replace(tmp, directory)
    shutil.rmtree(old, ignore_errors=True)
    return directory


def _write_files(directory: Path, model: nn.Module, config: FamilyConfig,
                 training: dict | None, extra_files: Callable[[Path], None] | None) -> Path:
    """Weights, then the family's files, then config.json, each under a temporary name first."""
    from safetensors.torch import save_model

    directory.mkdir(parents=True, exist_ok=True)
    tmp = directory / (WEIGHTS_FILE + ".tmp")
    metadata = {key: str(value) for key, value in config.TAGS.items()}
    try:
        save_model(model, str(tmp), metadata=metadata)  # drops tied duplicates, on the CPU
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, directory / WEIGHTS_FILE)
    if extra_files is not None:
        extra_files(directory)
    data = config.to_dict()
    if training:
        data[TRAINING_KEY] = training
    _write_json(directory / CONFIG_FILE, data)
    return directory


def check_files(directory: str | Path, family: str, extra: tuple[str, ...] = ()) -> Path:
    """`directory` as a Path, or a CheckpointNotFound naming every missing file."""
    directory = Path(directory)
    names = (CONFIG_FILE, WEIGHTS_FILE, *extra)
    missing = [n for n in names if not (directory / n).is_file()]
    if missing:
        raise CheckpointNotFound(f"no {family} checkpoint at {directory}: missing "
                                 f"{', '.join(missing)} (expected {' + '.join(names)})")
    return directory


def read_config(directory: str | Path, config_cls: type[FamilyConfig]) -> tuple[Any, dict]:
    """(config, training record) from a checkpoint directory's config.json."""
    path = Path(directory) / CONFIG_FILE
    data = json.loads(path.read_text())
    training = data.get(TRAINING_KEY)
    try:
        config = config_cls.from_dict(data)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    return config, training if isinstance(training, dict) else {}


def load_weights(model: nn.Module, directory: str | Path) -> nn.Module:
    """Load `directory`'s model.safetensors into `model`, strictly (a missing or unexpected
    weight is an error: a checkpoint that does not fit must not half-load); returns `model`."""
    from safetensors.torch import load_model

    load_model(model, str(Path(directory) / WEIGHTS_FILE), strict=True, device="cpu")
    return model


def load_checkpoint(directory: str | Path, config_cls: type[FamilyConfig],
                    build: Callable[[Any], nn.Module], *, device: str | torch.device = "cpu",
                    extra: tuple[str, ...] = ()) -> Checkpoint:
    """Rebuild a family's model from a checkpoint directory: check its files (`extra`: the
    family's own), read the config, `build(config)`, load the weights strictly, move it to
    `device` in eval mode."""
    directory = check_files(directory, config_cls.FAMILY, extra)
    config, training = read_config(directory, config_cls)
    model = load_weights(build(config), directory)
    return Checkpoint(model.to(device).eval(), config, training)
