"""Save and load an OFA-style VQA checkpoint directory: everything needed to answer questions.

The format every model family shares (`common.model_family`), plus the tokenizer:
`vrs.loading` dispatches on config.json's `"kind": "ofa-vqa"`, the weights are safetensors (no
pickle, loads without running code) and the tokenizer is the `tokenizers` library's own
tokenizer.json, so a checkpoint never depends on retraining the tokenizer. Because the three
files only make sense together, the directory is written whole under a temporary name and
renamed into place: a reader never sees half a checkpoint, or a tokenizer of another one.

    <dir>/config.json        OfaConfig.to_dict(): kind, format, every size, vocab_size;
                             "training": how the model was made (when trained here)
    <dir>/model.safetensors  the state dict
    <dir>/tokenizer.json     QuestionTokenizer.save()

Fine-tuning (`--init`) also starts from the official OFA checkpoints: `load_init` takes this
project's directory, a converted official one (`"kind": "ofa-official"`, `vrs.ofa.official`)
or an official OFA directory as published (converted on the fly), and `load_tokenizer` /
`model_from_config` rebuild either family when a run resumes.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from torch import nn

from common import model_family
from vrs.ofa.config import OfaConfig
from vrs.ofa.model import OfaVqa
from vrs.ofa.tokenizer import QuestionTokenizer

CONFIG, WEIGHTS, TOKENIZER = model_family.CONFIG_FILE, model_family.WEIGHTS_FILE, "tokenizer.json"


def save_checkpoint(directory: str | Path, model: OfaVqa, config: OfaConfig | None = None, *,
                    tokenizer: QuestionTokenizer, training: dict | None = None) -> Path:
    """Atomically write (or replace) the checkpoint directory: config.json (`config`, default
    the model's; `training` under "training"), the weights and the tokenizer; returns it."""
    return model_family.save_checkpoint(
        directory, model, config or model.config, training=training,
        extra_files=lambda d: tokenizer.save(d / TOKENIZER), replace_directory=True)


def load_checkpoint(directory: str | Path, device: str | torch.device = "cpu"
                    ) -> tuple[OfaVqa, QuestionTokenizer]:
    """(model in eval mode on `device`, tokenizer) from a checkpoint directory; a missing file
    is a FileNotFoundError naming it, a tokenizer that does not fit the model a ValueError."""
    directory = model_family.check_files(directory, OfaConfig.FAMILY, (TOKENIZER,))
    config, _ = model_family.read_config(directory, OfaConfig)
    tokenizer = QuestionTokenizer.load(directory / TOKENIZER)
    if tokenizer.vocab_size != config.vocab_size:
        raise ValueError(f"{directory}: tokenizer has {tokenizer.vocab_size} tokens, config "
                         f"says {config.vocab_size}")
    model = model_family.load_weights(OfaVqa(config), directory)
    return model.to(device).eval(), tokenizer


def _config_data(directory: Path) -> dict:
    """config.json's content, or a CheckpointNotFound / ValueError naming what is wrong."""
    path = directory / CONFIG
    if not path.is_file():
        why = "no config.json" if directory.is_dir() else "not a directory"
        raise model_family.CheckpointNotFound(f"no checkpoint at {directory}: {why}")
    try:
        data = json.loads(path.read_text())
    except ValueError as e:
        raise ValueError(f"{path} is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} holds a JSON {type(data).__name__}, not an object")
    return data


def load_init(directory: str | Path, device: str | torch.device = "cpu"
              ) -> tuple[nn.Module, object]:
    """(model in eval mode, tokenizer) to fine-tune from: this project's checkpoint (kind
    "ofa-vqa"), a converted official OFA one (kind "ofa-official") or an official OFA
    directory as published (config.json "model_type": "ofa", or the official key names;
    converted here). Anything else is a ValueError naming what config.json says."""
    from vrs.ofa import official

    directory = Path(directory)
    data = _config_data(directory)
    kind = data.get("kind")
    if kind == OfaConfig.TAGS["kind"]:
        return load_checkpoint(directory, device)
    if kind == official.OfficialOfaConfig.TAGS["kind"]:
        return official.load_converted(directory, device)
    if kind is None and official.is_official_directory(directory):
        model, tokenizer = official.convert_official(directory)
        return model.to(device), tokenizer
    raise ValueError(f"{directory} is neither an OFA-style checkpoint of this project "
                     f"(kind 'ofa-vqa' or 'ofa-official') nor an official OFA checkpoint "
                     f"(model_type 'ofa'): config.json has kind {kind!r}, model_type "
                     f"{data.get('model_type')!r}")


def load_tokenizer(path: str | Path) -> object:
    """A tokenizer.json written by either family's tokenizer: the official OFA layout (it has
    "<pad>") or `QuestionTokenizer`'s."""
    from tokenizers import Tokenizer

    from vrs.ofa.official_tokenizer import PAD, OfficialTokenizer

    tokenizer = Tokenizer.from_file(str(path))
    if tokenizer.token_to_id(PAD) is not None:
        return OfficialTokenizer(tokenizer)
    return QuestionTokenizer(tokenizer)


def model_from_config(path: str | Path) -> nn.Module:
    """A freshly built network (weights not loaded) of the family a config.json names."""
    from vrs.ofa import official

    path = Path(path)
    if json.loads(path.read_text()).get("kind") == official.OfficialOfaConfig.TAGS["kind"]:
        return official.OfficialOfa(official.OfficialOfaConfig.load(path))
    return OfaVqa(OfaConfig.load(path))


def regrid_checkpoint(source: str | Path, out: str | Path, token_stride: int) -> dict:
    """Write `source`'s model at another token stride as a warm start for fine-tuning: every
    weight is kept (a stem stage past the new stride runs at stride 1 with the same kernels)
    and the row / column position embeddings are resized linearly to the new grid.

    Why not train the finer grid from scratch: the transformer, text and answer weights do
    not depend on how many image tokens there are, and they hold most of what GPU time bought.
    """
    from dataclasses import replace

    import torch.nn.functional as F

    model, tokenizer = load_checkpoint(source)
    old = model.config
    new = replace(old, token_stride=token_stride)
    if new.grid == old.grid:
        raise ValueError(f"{source} already has a {old.grid[0]}x{old.grid[1]} token grid at "
                         f"stride {old.patch_stride}")
    rows, cols = new.grid
    state = model.state_dict()
    row, col = state["stem.row_embed"], state["stem.col_embed"]  # (r, 1, d), (1, c, d)
    state["stem.row_embed"] = F.interpolate(row.permute(1, 2, 0), size=rows, mode="linear",
                                            align_corners=True).permute(2, 0, 1)
    state["stem.col_embed"] = F.interpolate(col.permute(0, 2, 1), size=cols, mode="linear",
                                            align_corners=True).permute(0, 2, 1)
    target = OfaVqa(new)
    target.load_state_dict(state)
    info = {"regridded_from": str(source), "from_grid": list(old.grid),
            "grid": [rows, cols], "token_stride": new.patch_stride}
    save_checkpoint(out, target, new, tokenizer=tokenizer, training=info)
    return {**info, "out": str(out)}


def prune_checkpoint(source: str | Path, out: str | Path, below: float, grow: int = 1) -> dict:
    """Write `source`'s model with token pruning set (`OfaConfig.prune_below` / `prune_grow`;
    0 turns it off), every weight kept: the warm start of a fine-tuning run that teaches the
    encoder to answer from the tokens that hold objects. A model without a patch head, or a
    threshold outside [0, 1), is a ValueError naming it."""
    from dataclasses import replace

    model, tokenizer = load_checkpoint(source)
    try:
        config = replace(model.config, prune_below=below, prune_grow=grow)
    except ValueError as e:
        raise ValueError(f"{source}: {e}") from None
    target = OfaVqa(config)
    target.load_state_dict(model.state_dict())
    info = {"pruned_from": str(source), "prune_below": below, "prune_grow": grow}
    save_checkpoint(out, target, config, tokenizer=tokenizer, training=info)
    return {**info, "out": str(out)}
