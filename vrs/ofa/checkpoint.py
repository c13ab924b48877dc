"""Save and load an OFA-style VQA checkpoint directory: everything needed to answer questions.

Why a directory of plain files: `vrs.loading` dispatches on config.json's `"kind": "ofa-vqa"`,
the weights are safetensors (no pickle, loads without running code) and the tokenizer is the
`tokenizers` library's own tokenizer.json, so a checkpoint never depends on retraining the
tokenizer. The directory is written under a temporary name and renamed into place, so a reader
never sees half a checkpoint.

    <dir>/config.json        OfaConfig.to_json(): kind, format, every size, vocab_size
    <dir>/model.safetensors  the state dict
    <dir>/tokenizer.json     QuestionTokenizer.save()
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import torch
from safetensors.torch import load_model, save_model

from vrs.ofa.config import OfaConfig
from vrs.ofa.model import OfaVqa
from vrs.ofa.tokenizer import QuestionTokenizer

CONFIG, WEIGHTS, TOKENIZER = "config.json", "model.safetensors", "tokenizer.json"


def write_checkpoint(directory: str | Path, model: OfaVqa, tokenizer: QuestionTokenizer) -> Path:
    """Write the three files into `directory` itself, in place (used for a fresh temp dir)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    model.config.save(directory / CONFIG)
    save_model(model, str(directory / WEIGHTS))
    tokenizer.save(directory / TOKENIZER)
    return directory


def save_checkpoint(directory: str | Path, model: OfaVqa, tokenizer: QuestionTokenizer) -> Path:
    """Atomically write (or replace) the checkpoint directory; returns it."""
    directory = Path(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    tmp = directory.with_name(f".{directory.name}.tmp-{os.getpid()}")
    old = directory.with_name(f".{directory.name}.old-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    write_checkpoint(tmp, model, tokenizer)
    if directory.exists():
        os.replace(directory, old)
    os.replace(tmp, directory)
    shutil.rmtree(old, ignore_errors=True)
    return directory


def load_checkpoint(directory: str | Path, device: str | torch.device = "cpu"
                    ) -> tuple[OfaVqa, QuestionTokenizer]:
    """(model in eval mode on `device`, tokenizer) from a checkpoint directory; a missing file
    is a FileNotFoundError naming it."""
    directory = Path(directory)
    for name in (CONFIG, WEIGHTS, TOKENIZER):
        if not (directory / name).is_file():
            raise FileNotFoundError(f"{directory} has no {name}; not an ofa-vqa checkpoint")
    config = OfaConfig.load(directory / CONFIG)
    tokenizer = QuestionTokenizer.load(directory / TOKENIZER)
    if tokenizer.vocab_size != config.vocab_size:
        raise ValueError(f"{directory}: tokenizer has {tokenizer.vocab_size} tokens, config "
                         f"says {config.vocab_size}")
    model = OfaVqa(config)
    load_model(model, str(directory / WEIGHTS), device="cpu")
    return model.to(device).eval(), tokenizer
