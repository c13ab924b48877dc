"""VQA training data: `codeplan datagen vqa` splits, grouped by image, mixed by weight.

Why grouped by image: every image carries ~10 questions, and the model's image stem (a large
share of the compute) runs once per image in a batch and is shared by that image's questions.
So a batch is a few images with several questions each, and each PNG is decoded once per batch.

Why our own sampler, not a DataLoader: the mixture (`--mix block_bowl=2,block_stack=1`) draws a
split by weight, then an image of it uniformly (with replacement), then questions of that image
without replacement, from a Generator seeded by (seed, process, step); so a resumed run draws
exactly the batches the uninterrupted run would have drawn, with no sampler state to save.

Held-out images for the learning curve come from `--val` or, without one, from the training
data itself: images whose crc32(image_id) falls in the holdout share leave training entirely.
"""

from __future__ import annotations

import io
import json
import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from PIL import Image

from vrs.ofa.config import OfaConfig
from vrs.ofa.model import images_to_tensor
from vrs.ofa.reasoner import pad_batch
from vrs.ofa.tokenizer import QuestionTokenizer

IGNORE = -100  # cross-entropy target of padding positions


def hf_root(path: str | Path) -> Path:
    """The DatasetDict directory of a datagen output dir (its `hf/`) or the dir itself;
    ValueError naming the path when neither holds one."""
    path = Path(path)
    for root in (path / "hf", path):
        if (root / "dataset_dict.json").is_file():
            return root
    raise ValueError(f"no VQA dataset at {path}: expected a `codeplan datagen vqa` output "
                     "directory or its hf/ DatasetDict")


def dataset_splits(path: str | Path) -> list[str]:
    """Split names of a dataset directory, read from dataset_dict.json (cheap, no arrow)."""
    return list(json.loads((hf_root(path) / "dataset_dict.json").read_text())["splits"])


def parse_mix(text: str | None, known: Sequence[str]) -> dict[str, float]:
    """'block_bowl=2,block_stack=1' -> weights; None or '' weighs every known split 1.
    Unknown splits, bad numbers and an all-zero mix are ValueErrors naming them."""
    if not text:
        return dict.fromkeys(known, 1.0)
    weights: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, sep, value = part.partition("=")
        name = name.strip()
        if name not in known:
            raise ValueError(f"--mix names split {name!r}, which the data lacks; "
                             f"splits: {', '.join(known)}")
        try:
            weight = float(value) if sep else 1.0
        except ValueError:
            raise ValueError(f"--mix weight of {name!r} is not a number: {value!r}") from None
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(f"--mix weight of {name!r} must be >= 0, got {value}")
        weights[name] = weight
    if not any(weights.values()):
        raise ValueError(f"--mix {text!r} gives no split a positive weight")
    return {k: v for k, v in weights.items() if v > 0}


@dataclass
class SplitData:
    """One split's rows (possibly from several dataset dirs), tokenized, grouped by image."""

    name: str
    datasets: list = field(default_factory=list)  # HF Datasets, image column not decoded
    source: list[tuple[int, int]] = field(default_factory=list)  # row -> (dataset, its row)
    image_id: list[str] = field(default_factory=list)
    question: list[str] = field(default_factory=list)
    answer: list[str] = field(default_factory=list)
    answer_type: list[str] = field(default_factory=list)
    template: list[str] = field(default_factory=list)
    question_ids: list[list[int]] = field(default_factory=list)
    answer_ids: list[list[int]] = field(default_factory=list)
    images: list[list[int]] = field(default_factory=list)  # row indices of each image

    def add(self, dataset: object, tokenizer: QuestionTokenizer) -> None:
        """Append every row of one HF Dataset (of this split)."""
        from datasets import Image as ImageFeature

        k = len(self.datasets)
        self.datasets.append(dataset.cast_column("image", ImageFeature(decode=False)))
        cols = dataset.select_columns(["image_id", "question", "answer", "answer_type",
                                       "template"]).to_dict()
        start = len(self.question)
        self.source += [(k, i) for i in range(len(cols["question"]))]
        for key in ("image_id", "question", "answer", "answer_type", "template"):
            getattr(self, key).extend(cols[key])
        self.question_ids += tokenizer.encode_questions(cols["question"])
        self.answer_ids += [tokenizer.encode_answer(a) for a in cols["answer"]]
        groups: dict[str, list[int]] = {}
        for offset, image_id in enumerate(cols["image_id"]):
            groups.setdefault(image_id, []).append(start + offset)
        self.images += list(groups.values())

    def image(self, k: int) -> Image.Image:
        """The PIL image of image group `k` (decoded from its PNG bytes)."""
        dataset, row = self.source[self.images[k][0]]
        return Image.open(io.BytesIO(self.datasets[dataset][row]["image"]["bytes"]))

    def subset(self, keep: Sequence[int]) -> SplitData:
        """The same rows, only the image groups `keep` (rows are shared, not copied)."""
        return SplitData(**{**vars(self), "images": [self.images[k] for k in keep]})

    @property
    def rows(self) -> int:
        """Rows in the kept image groups."""
        return sum(len(g) for g in self.images)


def load_splits(dirs: Sequence[str | Path], tokenizer: QuestionTokenizer,
                names: Sequence[str] | None = None) -> dict[str, SplitData]:
    """Splits of one or more dataset dirs (a split present in several is concatenated),
    optionally only `names`."""
    from datasets import load_from_disk

    splits: dict[str, SplitData] = {}
    for d in dirs:
        data = load_from_disk(str(hf_root(d)))
        for name in data:
            if names is None or name in names:
                splits.setdefault(name, SplitData(name)).add(data[name], tokenizer)
    return splits


def holdout(splits: dict[str, SplitData], share: float
            ) -> tuple[dict[str, SplitData], dict[str, SplitData]]:
    """(train, held out): an image is held out when crc32(image_id) / 2^32 < share."""
    train, held = {}, {}
    for name, s in splits.items():
        out = [zlib.crc32(s.image_id[g[0]].encode()) / 2**32 < share for g in s.images]
        train[name] = s.subset([k for k, o in enumerate(out) if not o])
        held[name] = s.subset([k for k, o in enumerate(out) if o])
    return train, held


@dataclass
class Pick:
    """Questions `rows` of image group `image` of `split`: one image's share of a batch."""

    split: SplitData
    image: int
    rows: list[int]


class MixtureSampler:
    """Batches of ~batch_size questions: images drawn from splits by weight (see the module
    docstring). A batch is a pure function of (seed, step), so the sampler has no state to
    save: a resumed run, or another process with its own seed, needs only the step."""

    def __init__(self, splits: dict[str, SplitData], weights: dict[str, float],
                 batch_size: int, questions_per_image: int, seed: int | Sequence[int]) -> None:
        self.splits = [splits[n] for n in weights if n in splits and splits[n].images]
        if not self.splits:
            raise ValueError(f"no training images in the mixed splits {list(weights)}")
        w = np.array([weights[s.name] for s in self.splits], dtype=float)
        self.p = w / w.sum()
        self.batch_size, self.per_image = batch_size, questions_per_image
        self.seed = [seed] if isinstance(seed, int) else list(seed)

    def batch(self, step: int) -> list[Pick]:
        """Batch `step`: ceil(batch_size / questions_per_image) images, the last one trimmed
        so that the batch holds at most batch_size questions."""
        rng = np.random.default_rng([*self.seed, step])
        picks, left = [], self.batch_size
        while left > 0:
            split = self.splits[int(rng.choice(len(self.splits), p=self.p))]
            k = int(rng.integers(len(split.images)))
            group = split.images[k]
            n = min(self.per_image, len(group), left)
            picks.append(Pick(split, k, rng.choice(group, size=n, replace=False).tolist()))
            left -= n
        return picks


def collate(picks: list[Pick], config: OfaConfig, pad_id: int, bos_id: int, eos_id: int
            ) -> dict[str, torch.Tensor]:
    """Tensors for one teacher-forced step: images (I, 3, h, w) uint8, image_index (B,),
    questions (B, L), answer_in (B, T) = BOS + answer, answer_out (B, T) = answer + EOS with
    IGNORE on padding."""
    images = images_to_tensor([p.split.image(p.image) for p in picks], config)
    index, questions, answers = [], [], []
    limit = config.max_question_tokens
    for i, p in enumerate(picks):
        for r in p.rows:
            index.append(i)
            questions.append(p.split.question_ids[r][:limit])
            answers.append(p.split.answer_ids[r][:config.max_answer_tokens - 1])
    answer_in = pad_batch([[bos_id, *a] for a in answers], pad_id)
    answer_out = pad_batch([[*a, eos_id] for a in answers], IGNORE)
    return {"images": images, "image_index": torch.tensor(index, dtype=torch.long),
            "questions": pad_batch(questions, pad_id), "answer_in": answer_in,
            "answer_out": answer_out}
