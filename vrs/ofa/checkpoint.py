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
"""

from __future__ import annotations

from pathlib import Path

import torch

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
