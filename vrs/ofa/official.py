"""Convert the official OFA checkpoints (OFA-Sys's Hugging Face layout: `ofa-tiny`,
`ofa-medium`, `ofa-base`, `ofa-large`) into this project's model; save and load the result.

Why: the seed paper fine-tuned a pretrained OFA for VQA; a user who has those files can do the
same here (`codeplan train ofa --init DIR`, `codeplan ofa convert SRC OUT`) without the
`transformers` branch that defined them. An official directory holds config.json
("model_type": "ofa"), pytorch_model.bin (or model.safetensors, or shards with an index) and
BART's vocab.json + merges.txt. Conversion is a strict load into `OfficialOfa`, whose
parameter names are the official keys: a missing or unexpected key, or a shape that differs,
is a ValueError naming them, so weights never half-load. Accepted and not loaded, because they
hold nothing to learn: the buffers the network recomputes from its config (`*.token_rp_bucket`,
`*.image_rp_bucket`, `decoder.image_position_idx`, BatchNorm's `num_batches_tracked`,
fairseq's `*.version`; shapes still checked where known), and the copies of the tied embedding
(`decoder.embed_tokens.weight`, `decoder.output_projection.weight`), which must equal
`encoder.embed_tokens.weight`. A uniform "model." prefix (the first release saved
`OFAForConditionalGeneration`) is removed first.

A converted checkpoint is this project's directory (`common.model_family`): config.json with
`"kind": "ofa-official"` (what `vrs.loading` dispatches on), model.safetensors, tokenizer.json.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

import torch

from common import model_family
from vrs.ofa.official_config import OfficialOfaConfig, config_from_official, size_config
from vrs.ofa.official_keys import RECOMPUTED, SHARED, TIED, official_key_shapes
from vrs.ofa.official_model import OfficialOfa
from vrs.ofa.official_tokenizer import OfficialTokenizer

CONFIG, TOKENIZER = model_family.CONFIG_FILE, "tokenizer.json"
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
INDEX_FILES = ("model.safetensors.index.json", "pytorch_model.bin.index.json")
VOCAB_FILES = ("vocab.json", "merges.txt")
SHOWN = 8  # names listed per kind of problem in an error


class ConversionReport(NamedTuple):
    """What `convert_state_dict` did with each key of the official state dict."""

    loaded: list[str]
    ignored: list[str]  # recomputed buffers and tied copies


def _names(keys: list[str]) -> str:
    shown = ", ".join(keys[:SHOWN])
    return shown + (f" and {len(keys) - SHOWN} more" if len(keys) > SHOWN else "")


def _strip_prefix(state: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The state dict without a "model." prefix that every key carries."""
    if state and all(k.startswith("model.") for k in state):
        return {k[len("model."):]: v for k, v in state.items()}
    return dict(state)


def _problems(state: dict[str, torch.Tensor], ours: dict[str, torch.Tensor],
              official: dict[str, tuple[int, ...]]) -> tuple[list[str], list[str]]:
    """(problems, ignored keys) of an official state dict against our model's."""
    recomputed = [k for k in state if k not in ours and k.rsplit(".", 1)[-1] in RECOMPUTED]
    tied = [k for k in TIED if k in state]
    missing = [k for k in ours if k not in state and not (k in TIED and SHARED in state)]
    unexpected = [k for k in state if k not in ours and k not in recomputed and k not in tied]
    wrong = [f"{k} {tuple(state[k].shape)} (expected {tuple(ours[k].shape)})"
             for k in ours if k in state and state[k].shape != ours[k].shape]
    wrong += [f"{k} {tuple(state[k].shape)} (expected {official[k]})" for k in recomputed
              if k in official and tuple(state[k].shape) != official[k]]
    problems = [f"{len(missing)} missing: {_names(missing)}" if missing else "",
                f"{len(unexpected)} unexpected: {_names(unexpected)}" if unexpected else "",
                f"{len(wrong)} of the wrong shape: {_names(wrong)}" if wrong else ""]
    if SHARED in state and not wrong:
        differ = [k for k in tied if not torch.equal(state[k], state[SHARED])]
        if differ:
            problems.append(f"tied copies that differ from {SHARED}: {_names(differ)}")
    return [p for p in problems if p], recomputed + tied


def convert_state_dict(state: Mapping[str, torch.Tensor], config: OfficialOfaConfig
                       ) -> tuple[OfficialOfa, ConversionReport]:
    """`OfficialOfa(config)` holding an official state dict's weights (strictly, see the
    module docstring), in eval mode, and what became of each key."""
    state = _strip_prefix(state)
    model = OfficialOfa(config)
    ours = model.state_dict()
    problems, ignored = _problems(state, ours, official_key_shapes(config))
    if problems:
        raise ValueError(f"the official checkpoint does not fit {config.preset} "
                         f"(d_model {config.d_model}, {config.resnet_type}): "
                         + "; ".join(problems))
    weights = {k: state[k] if k in state else state[SHARED] for k in ours}
    model.load_state_dict(weights, strict=True)
    loaded = [k for k in state if k not in ignored]
    return model.eval(), ConversionReport(loaded, ignored)


def is_official_directory(path: str | Path) -> bool:
    """Whether `path` holds an official checkpoint: its config.json says "model_type": "ofa",
    or names neither a model_type nor a "kind" and its weights carry the official key names."""
    directory = Path(path)
    try:
        data = json.loads((directory / CONFIG).read_text())
    except (OSError, ValueError):
        return False
    if not isinstance(data, dict) or "kind" in data:
        return False
    if "model_type" in data:
        return data["model_type"] == "ofa"
    keys = _weight_keys(directory)
    return SHARED in keys or f"model.{SHARED}" in keys


def _weight_keys(directory: Path) -> set[str]:
    """The tensor names of the first weight file (nothing is read but the names, or a
    memory map), empty when there is none."""
    from safetensors import safe_open

    files = [f for f in _weight_files(directory) if f.is_file()][:1]
    if not files:
        return set()
    if files[0].suffix == ".safetensors":
        with safe_open(str(files[0]), framework="pt") as f:
            return set(f.keys())
    try:
        return set(torch.load(files[0], map_location="cpu", weights_only=True, mmap=True))
    except Exception:  # only a guess at the layout: the converter says what is wrong later
        return set()


def _weight_files(directory: Path) -> list[Path]:
    """The weight file(s) of an official directory, shards through their index."""
    for index in INDEX_FILES:
        if (directory / index).is_file():
            shards = json.loads((directory / index).read_text())["weight_map"].values()
            return [directory / name for name in dict.fromkeys(shards)]
    return [directory / name for name in WEIGHT_FILES if (directory / name).is_file()][:1]


def check_official_directory(directory: str | Path) -> Path:
    """`directory` as a Path, or a CheckpointNotFound naming every file it lacks."""
    directory = Path(directory)
    if not directory.is_dir():
        raise model_family.CheckpointNotFound(f"no official OFA checkpoint at {directory}: "
                                              "not a directory")
    missing = [n for n in (CONFIG, *VOCAB_FILES) if not (directory / n).is_file()]
    files = _weight_files(directory)
    if not files:
        missing.append(" or ".join(WEIGHT_FILES))
    missing += [f.name for f in files if not f.is_file()]
    if missing:
        raise model_family.CheckpointNotFound(
            f"no official OFA checkpoint at {directory}: missing {', '.join(missing)}")
    return directory


def read_state_dict(directory: Path) -> dict[str, torch.Tensor]:
    """Every tensor of the directory's weight file(s); .bin files load without running code
    (torch.load with weights_only)."""
    from safetensors.torch import load_file

    state: dict[str, torch.Tensor] = {}
    for path in _weight_files(directory):
        if path.suffix == ".safetensors":
            state.update(load_file(str(path), device="cpu"))
        else:
            try:  # memory-mapped where the file is torch's zip format (since torch 1.6)
                part = torch.load(path, map_location="cpu", weights_only=True, mmap=True)
            except RuntimeError:
                part = torch.load(path, map_location="cpu", weights_only=True)
            state.update(part)
    return state


def convert_official(source: str | Path | Mapping[str, torch.Tensor], *,
                     config: dict | str | None = None,
                     tokenizer: OfficialTokenizer | None = None, **ours: object
                     ) -> tuple[OfficialOfa, OfficialTokenizer | None]:
    """(model in eval mode, tokenizer) from an official checkpoint directory, or from a state
    dict with `config` (an official config.json's content or a size name) and optionally the
    `tokenizer`. `ours`: this project's OfficialOfaConfig fields (image_height, image_width,
    max_question_tokens, max_answer_tokens, dropout, ...)."""
    if isinstance(source, Mapping):
        if config is None:
            raise ValueError("converting a state dict needs its config (a size name or the "
                             "official config.json's content)")
        state = source
    else:
        directory = check_official_directory(source)
        config = json.loads((directory / CONFIG).read_text())
        tokenizer = OfficialTokenizer.from_files(*(directory / n for n in VOCAB_FILES))
        state = read_state_dict(directory)
    ours_config = (size_config(config, **ours) if isinstance(config, str)
                   else config_from_official(config, **ours))
    if tokenizer is not None:
        _check_tokenizer(tokenizer, ours_config)
    model, _ = convert_state_dict(state, ours_config)
    return model, tokenizer


def _check_tokenizer(tokenizer: OfficialTokenizer, config: OfficialOfaConfig) -> None:
    if tokenizer.vocab_size != config.vocab_size:
        raise ValueError(f"the tokenizer has {tokenizer.vocab_size} tokens (vocab.json + "
                         f"8192 codes + 1000 bins), config.json says {config.vocab_size}")
    if tokenizer.pad_id != config.pad_token_id:
        raise ValueError(f"the tokenizer's <pad> is {tokenizer.pad_id}, config.json's "
                         f"pad_token_id {config.pad_token_id}")


def save_converted(directory: str | Path, model: OfficialOfa, tokenizer: OfficialTokenizer,
                   training: dict | None = None) -> Path:
    """Atomically write a checkpoint directory this project loads (config.json, weights,
    tokenizer.json); `training` goes under config.json's "training"."""
    return model_family.save_checkpoint(
        directory, model, model.config, training=training,
        extra_files=lambda d: tokenizer.save(d / TOKENIZER), replace_directory=True)


def load_converted(directory: str | Path, device: str | torch.device = "cpu"
                   ) -> tuple[OfficialOfa, OfficialTokenizer]:
    """(model in eval mode on `device`, tokenizer) from a converted checkpoint directory."""
    directory = model_family.check_files(directory, OfficialOfaConfig.FAMILY, (TOKENIZER,))
    config, _ = model_family.read_config(directory, OfficialOfaConfig)
    tokenizer = OfficialTokenizer.load(directory / TOKENIZER)
    _check_tokenizer(tokenizer, config)
    model = model_family.load_weights(OfficialOfa(config), directory)
    return model.to(device).eval(), tokenizer


def convert_to_checkpoint(source: str | Path, out: str | Path, **ours: object) -> dict:
    """Convert an official directory and write it as a checkpoint directory at `out`
    (`codeplan ofa convert`); returns what was made: size, parameters, location-token ids."""
    model, tokenizer = convert_official(source, **ours)
    config = model.config
    parameters = sum(p.numel() for p in model.parameters())  # the shared embedding once
    record = {"converted_from": str(Path(source).resolve()), "official_size": config.preset}
    save_converted(out, model, tokenizer, training=record)
    bins = tokenizer.location_tokens
    return {"out": str(out), "size": config.preset, "d_model": config.d_model,
            "layers": [config.encoder_layers, config.decoder_layers],
            "resnet": config.resnet_type, "parameters": parameters,
            "vocab_size": tokenizer.vocab_size, "location_tokens": [bins[0], bins[-1]],
            "location_bins": len(bins), "image_size": [config.image_height, config.image_width],
            "patches": list(config.grid)}
