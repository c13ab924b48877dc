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

Two readers, the same rows: a datagen output's `hf/` DatasetDict, or its CLEVR files
(`<split>/questions.json`, `scenes.json`, `images/`), which need no `datasets` package (a GPU
machine may lack it) and carry the scenes the multi-task stage's rows (`training.ofa.tasks`)
are made from; a row's `task` is "vqa" or that task's name. Decoded images are kept per image
at the model's input size (`SplitData.tensor`): each PNG is decoded once per run, not once per
batch.
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

VQA = "vqa"  # the task of a VQA question row (the multi-task rows name theirs)

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


def clevr_splits(path: str | Path) -> list[str]:
    """Split names of a datagen output's CLEVR files (dirs holding questions.json), sorted."""
    return sorted(p.parent.name for p in Path(path).glob("*/questions.json"))


def dataset_splits(path: str | Path) -> list[str]:
    """Split names of a dataset directory: its CLEVR files' or, without them, dataset_dict.json's
    (cheap: no image is read)."""
    return clevr_splits(path) or list(
        json.loads((hf_root(path) / "dataset_dict.json").read_text())["splits"])


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
    task: list[str] = field(default_factory=list)  # VQA or a multi-task row's task
    pngs: list[bytes] = field(default_factory=list)  # CLEVR reader: PNG bytes per image
    row_png: list[int] = field(default_factory=list)  # CLEVR reader: row -> its image's PNG
    decoded: dict = field(default_factory=dict)  # (first row, h, w) -> (3, h, w) uint8
    objects: list[list[dict]] = field(default_factory=list)  # CLEVR reader: scene objects and
    sizes: list[tuple[int, int]] = field(default_factory=list)  # image (w, h) per PNG
    patches: dict = field(default_factory=dict)  # (first row, h, w) -> (N, K) patch targets

    def add(self, dataset: object, tokenizer: QuestionTokenizer) -> None:
        """Append every row of one HF Dataset (of this split)."""
        from datasets import Image as ImageFeature

        if self.pngs:
            raise ValueError(f"split {self.name!r} is in CLEVR files and in an hf/-only "
                             "dataset: give --data dirs of one kind")
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
        self.task += [VQA] * len(cols["question"])

    def add_clevr(self, split_dir: Path, tokenizer: QuestionTokenizer, tasks: Sequence[str],
                  bins: int) -> None:
        """Append one split of a datagen output's CLEVR files: its VQA questions (when "vqa"
        is in `tasks`) and the multi-task rows of its scenes (the other `tasks`)."""
        from training.ofa.tasks import scene_tasks

        if self.datasets:
            raise ValueError(f"split {self.name!r} is in an hf/-only dataset and in CLEVR files: "
                             "give --data dirs of one kind")
        scenes = json.loads((split_dir / "scenes.json").read_text())["scenes"]
        vqa = (json.loads((split_dir / "questions.json").read_text())["questions"]
               if VQA in tasks else [])
        by_image: dict[int, list[dict]] = {}
        for q in vqa:
            by_image.setdefault(q["image_index"], []).append(q)
        for scene in scenes:
            png = (split_dir / "images" / scene["image_filename"]).read_bytes()
            width, height = Image.open(io.BytesIO(png)).size
            mine = [(VQA, q["question"], q["answer"], q["answer_type"], q["template"])
                    for q in by_image.get(scene["image_index"], [])]
            mine += [(r.task, r.prompt, r.target, r.task, r.task)
                     for r in (scene_tasks(scene, width, height, bins) if set(tasks) - {VQA}
                               else []) if r.task in tasks]
            if not mine:
                continue
            start = len(self.question)
            self.pngs.append(png)
            self.objects.append(scene["objects"])
            self.sizes.append((width, height))
            for task, prompt, target, kind, template in mine:
                self.image_id.append(scene["image_id"])
                self.question.append(prompt)
                self.answer.append(target)
                self.answer_type.append(kind)
                self.template.append(template)
                self.task.append(task)
                self.row_png.append(len(self.pngs) - 1)
            self.images.append(list(range(start, len(self.question))))
        new = self.question[len(self.question_ids):]
        self.question_ids += tokenizer.encode_questions(new)
        self.answer_ids += [tokenizer.encode_answer(a) for a in
                            self.answer[len(self.answer_ids):]]

    def image(self, k: int) -> Image.Image:
        """The PIL image of image group `k` (decoded from its PNG bytes)."""
        first = self.images[k][0]
        if self.pngs:
            return Image.open(io.BytesIO(self.pngs[self.row_png[first]]))
        dataset, row = self.source[first]
        return Image.open(io.BytesIO(self.datasets[dataset][row]["image"]["bytes"]))

    def tensor(self, k: int, config: OfaConfig) -> torch.Tensor:
        """Image group `k` as (3, h, w) uint8 at the model's input size, decoded once and kept
        (subsets share the store: they share rows)."""
        key = (self.images[k][0], config.image_height, config.image_width)
        if key not in self.decoded:
            self.decoded[key] = images_to_tensor([self.image(k)], config)[0]
        return self.decoded[key]

    def patch_tensor(self, k: int, config: OfaConfig) -> torch.Tensor:
        """Image group `k`'s per-patch object targets (N, len(PATCH_CLASSES)) float32
        (`vrs.ofa.patches`), made once and kept; only the CLEVR reader has the scenes."""
        from vrs.ofa.patches import patch_targets

        key = (self.images[k][0], config.image_height, config.image_width)
        if key not in self.patches:
            if not self.pngs:
                raise ValueError(f"split {self.name!r}: the patch loss needs the scenes of "
                                 "a datagen output's CLEVR files, not an hf/-only dataset")
            png = self.row_png[self.images[k][0]]
            self.patches[key] = torch.from_numpy(patch_targets(
                self.objects[png], self.sizes[png], (config.image_width, config.image_height),
                config.grid, config.patch_stride))
        return self.patches[key]

    def rows_of(self, task: str) -> SplitData:
        """The same images with only the rows of `task` (images left without any dropped)."""
        groups = [[r for r in g if self.task[r] == task] for g in self.images]
        return SplitData(**{**vars(self), "images": [g for g in groups if g]})

    def subset(self, keep: Sequence[int]) -> SplitData:
        """The same rows, only the image groups `keep` (rows are shared, not copied)."""
        return SplitData(**{**vars(self), "images": [self.images[k] for k in keep]})

    @property
    def rows(self) -> int:
        """Rows in the kept image groups."""
        return sum(len(g) for g in self.images)


def load_splits(dirs: Sequence[str | Path], tokenizer: QuestionTokenizer,
                names: Sequence[str] | None = None, tasks: Sequence[str] = (VQA,)
                ) -> dict[str, SplitData]:
    """Splits of one or more dataset dirs (a split present in several is concatenated),
    optionally only `names`, with the rows of `tasks` ("vqa" and/or `training.ofa.tasks`
    names: those need the CLEVR files and a tokenizer with location tokens)."""
    splits: dict[str, SplitData] = {}
    other = sorted(set(tasks) - {VQA})
    if other and not tokenizer.location_bins:
        raise ValueError(f"tasks {other} need a tokenizer with location tokens")
    for d in dirs:
        clevr = clevr_splits(d)
        if not clevr and other:
            raise ValueError(f"{d}: tasks {other} need the CLEVR files (<split>/scenes.json) "
                             "of a `codeplan datagen vqa` output")
        for name in clevr:
            if names is None or name in names:
                splits.setdefault(name, SplitData(name)).add_clevr(
                    Path(d) / name, tokenizer, tasks, tokenizer.location_bins)
        if clevr:
            continue
        from datasets import load_from_disk

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


def collate(picks: list[Pick], config: OfaConfig, pad_id: int, bos_id: int, eos_id: int,
            patches: bool = False) -> dict[str, torch.Tensor]:
    """Tensors for one teacher-forced step: images (I, 3, h, w) uint8, image_index (B,),
    questions (B, L), answer_in (B, T) = BOS + answer, answer_out (B, T) = answer + EOS with
    IGNORE on padding; with `patches`, also patch_targets (I, N, K) for the patch loss."""
    images = torch.stack([p.split.tensor(p.image, config) for p in picks])
    extra = ({"patch_targets": torch.stack([p.split.patch_tensor(p.image, config)
                                            for p in picks])} if patches else {})
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
            "answer_out": answer_out, **extra}
