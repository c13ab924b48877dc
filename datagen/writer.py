"""The dataset on disk: atomic shards, then one Hugging Face DatasetDict and CLEVR files.

Why this layout: an interrupted run must leave nothing half-written that a later run would
trust. A shard is written into a hidden temporary directory and renamed into place only when
complete (a rename is atomic), so a shard directory that exists is whole; a re-run skips those
and deletes the temporary leftovers of a crash. The assembled outputs are rebuilt from the
shards every run, also through a temporary directory:

  <out>/shards/<split>/shard-00000/   shard.json (settings, counts, seconds), scenes.json,
                                      images/*.png, questions/ (Dataset.save_to_disk)
  <out>/hf/                           DatasetDict, one split per family, one row per question
                                      with the image's PNG bytes (`datasets.Image()`): about
                                      4 KB per row at 320x240, so no join is needed to train
  <out>/<split>/                      CLEVR layout (see `clevr_files`)
  <out>/manifest.json                 command, seeds, counts, answer statistics
  <out>/README.md                     the dataset card: what the variant changed, what it is for

    from datasets import load_from_disk
    ds = load_from_disk("<out>/hf")["block_bowl"]   # ds[0]["image"] is a PIL image
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import datasets
from datasets import (
    Dataset,
    DatasetDict,
    Features,
    Image,
    Value,
    concatenate_datasets,
    load_from_disk,
)

from datagen.card import dataset_card
from datagen.clevr_files import write_split
from datagen.families import describe, family
from datagen.shards import ImageRecord, ShardJob
from datagen.stats import image_stats, question_stats

FORMAT = "codeplan-vqa-shard/1"
ROW_FEATURES = Features({
    "image": Image(),
    "image_id": Value("string"),
    "image_filename": Value("string"),
    "scene_index": Value("int32"),  # the image's index in its split (CLEVR image_index)
    "question_index": Value("int32"),  # within the image
    "question": Value("string"),
    "answer": Value("string"),
    "answer_type": Value("string"),
    "template": Value("string"),
    "family": Value("string"),
    "same_color": Value("bool"),
    "dark": Value("bool"),
    "program": Value("string"),  # JSON {"template", "params"}: the question's meaning
    "variant": Value("string"),
})


@contextmanager
def quiet() -> Iterator[None]:
    """No `datasets` progress bars while writing: ours is the one that counts images."""
    was_disabled = datasets.are_progress_bars_disabled()
    datasets.disable_progress_bars()
    try:
        yield
    finally:
        if not was_disabled:
            datasets.enable_progress_bars()


def shard_dir(root: Path, job: ShardJob) -> Path:
    return Path(root) / job.family / job.name


def shard_done(root: Path, job: ShardJob) -> bool:
    """Whether `job`'s shard exists; ValueError when it exists with other settings (a run must
    not mix, say, two variants or shard sizes in one dataset)."""
    final = shard_dir(root, job)
    if not final.exists():
        return False
    meta = final / "shard.json"
    if not meta.exists():
        raise ValueError(f"{final} is not a complete shard (no shard.json); delete it")
    settings = json.loads(meta.read_text())["settings"]
    if settings != job.settings():
        raise ValueError(f"{final} was made with other settings ({settings}), not "
                         f"{job.settings()}; use another --out or delete the old shards")
    return True


def clean_temp(root: Path) -> list[Path]:
    """Delete the temporary directories an interrupted run left; returns them. Only one run
    may write to an output directory at a time (another run's work in progress looks the same).
    """
    leftovers = sorted(Path(root).glob("*/.shard-*.tmp-*"))
    for path in leftovers:
        shutil.rmtree(path)
    return leftovers


def rows_dataset(job: ShardJob, records: list[ImageRecord]) -> Dataset:
    """One row per question, columns as ROW_FEATURES."""
    cols: dict[str, list] = {name: [] for name in ROW_FEATURES}
    for r in records:
        for n, qa in enumerate(r.questions):
            row = {"image": {"bytes": r.png, "path": r.filename}, "image_id": r.image_id,
                   "image_filename": r.filename, "scene_index": r.index, "question_index": n,
                   "question": qa.question, "answer": qa.answer, "answer_type": qa.answer_type,
                   "template": qa.template, "family": job.family, "same_color": qa.same_color,
                   "dark": qa.dark, "program": qa.program_json(), "variant": job.variant}
            for name, value in row.items():
                cols[name].append(value)
    return Dataset.from_dict(cols, features=ROW_FEATURES)


def scene_record(r: ImageRecord) -> dict:
    """CLEVR scene entry of one image plus how it was made (state), its camera and, for the
    look variants, every randomised setting (`look`)."""
    record = {"image_index": r.index, "image_filename": r.filename, "image_id": r.image_id,
              **r.rendered.scene.to_json(), "state": r.state.to_json(),
              "camera": r.rendered.camera_json(), "questions": len(r.questions)}
    if getattr(r.rendered, "look", None) is not None:
        record["look"] = r.rendered.look
    return record


def write_shard(root: Path, job: ShardJob, records: list[ImageRecord], seconds: float) -> Path:
    """Write a complete shard atomically (temporary directory, then rename); returns it."""
    final = shard_dir(root, job)
    tmp = final.parent / f".{job.name}.tmp-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    (tmp / "images").mkdir(parents=True)
    for r in records:
        (tmp / "images" / r.filename).write_bytes(r.png)
    with quiet():
        rows_dataset(job, records).save_to_disk(str(tmp / "questions"))
    _dump(tmp / "scenes.json", [scene_record(r) for r in records])
    _dump(tmp / "shard.json", {"format": FORMAT, "settings": job.settings(),
                               "images": len(records),
                               "questions": sum(len(r.questions) for r in records),
                               "seconds": round(seconds, 3)})
    try:
        os.rename(tmp, final)
    except OSError:  # another run finished the same shard first: same content, keep theirs
        shutil.rmtree(tmp)
    return final


def replace_dir(final: Path, build: Callable[[Path], None]) -> None:
    """Build `final` in a temporary sibling and swap it in, so a reader never sees half."""
    tmp, old = final.with_name(final.name + ".tmp"), final.with_name(final.name + ".old")
    for path in (tmp, old):
        if path.exists():
            shutil.rmtree(path)
    build(tmp)
    if final.exists():
        os.rename(final, old)
    os.rename(tmp, final)
    if old.exists():
        shutil.rmtree(old)


def load_questions(root: Path, jobs: list[ShardJob]) -> Dataset:
    """The rows of `jobs`' shards (one family), in shard order."""
    return concatenate_datasets([load_from_disk(str(shard_dir(root, j) / "questions"))
                                 for j in jobs])


def load_scenes(root: Path, jobs: list[ShardJob]) -> list[dict]:
    return [s for j in jobs for s in json.loads((shard_dir(root, j) / "scenes.json").read_text())]


def write_hf(out: Path, splits: dict[str, Dataset]) -> Path:
    """The DatasetDict at <out>/hf (one split per family), replaced atomically."""
    final = Path(out) / "hf"
    with quiet():
        replace_dir(final, lambda tmp: DatasetDict(splits).save_to_disk(str(tmp)))
    return final


def _dump(path: Path, data) -> None:
    path.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")


def assemble(out: Path, jobs: list[ShardJob], run: dict) -> dict:
    """Build <out>/hf, the CLEVR files of every split and manifest.json from the shards of
    `jobs` (all complete); `run` (command, settings, timing) goes into the manifest as is."""
    out, root = Path(out), Path(out) / "shards"
    by_family: dict[str, list[ShardJob]] = {}
    for job in jobs:
        by_family.setdefault(job.family, []).append(job)
    with quiet():
        splits = {f: load_questions(root, js) for f, js in by_family.items()}
    write_hf(out, splits)
    families = {}
    for name, js in by_family.items():
        rows = splits[name].remove_columns("image").to_list()
        scenes = load_scenes(root, js)
        info = {"split": name, "version": "1.0", "generator": "codeplan datagen",
                "variant": js[0].variant, "renderer": js[0].renderer,
                "shard_seeds": [js[0].shard_seed, js[-1].shard_seed]}
        images = [shard_dir(root, j) / "images" for j in js]
        replace_dir(out / name, lambda tmp, s=scenes, r=rows, i=images, n=name, d=info:
                    write_split(tmp, n, s, r, i, d))
        families[name] = {**info, "description": describe(family(name)), "shards": len(js),
                          "images": len(scenes), "questions": len(rows),
                          "image_stats": image_stats(scenes),
                          "question_stats": question_stats(rows)}
    manifest = {"format": "codeplan-vqa/1", **run, "families": families,
                "totals": {"images": sum(f["images"] for f in families.values()),
                           "questions": sum(f["questions"] for f in families.values())}}
    _dump(out / "manifest.json", manifest)
    (out / "README.md").write_text(dataset_card(manifest))
    return manifest
