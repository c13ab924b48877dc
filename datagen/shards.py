"""Shards: the unit of work, seeding and resumption of a generation run.

Why shards: a run of many thousand images must survive being interrupted and use several
processes without any of them sharing state. A shard is a fixed block of consecutive images of
one family, made by one worker from its own seed (`families.shard_seed`); image i of a shard
is a pure function of (family, shard seed, i) and the job's settings, so a shard can be made
again anywhere with the same bytes (with `--renderer blender`: the same scenes and questions,
and the same pixels for the same bpy build and CPU). Random streams per image:
`[shard_seed, i, 0]` the state, `[shard_seed, i, 1]` the render variant (camera; with Blender
also lights, finishes and Cycles' seed), `[shard_seed, i, 2]` the questions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from datagen.families import family, shard_seed
from datagen.looks import LOOK_VARIANTS
from datagen.question_sampler import QA, sample_questions
from datagen.render_look import render_look
from datagen.render_pybullet import RenderedImage, png_bytes, render_state
from datagen.scenes import MAX_SHARD, SampledState, sample_state


@dataclass(frozen=True)
class ShardJob:
    """What one shard holds; equal settings mean equal content."""

    family: str
    shard_index: int
    shard_seed: int
    start: int  # index (within the family) of the shard's first image
    count: int  # images
    questions_per_image: int
    variant: str
    renderer: str = "pybullet"

    @property
    def name(self) -> str:
        return f"shard-{self.shard_index:05d}"

    def settings(self) -> dict:
        return asdict(self)


@dataclass
class ImageRecord:
    """One generated image with everything the writer stores about it."""

    index: int  # within the family: the CLEVR image_index and the rows' scene_index
    image_id: str  # unique across families, shards and seed offsets
    filename: str
    png: bytes
    state: SampledState
    rendered: RenderedImage
    questions: list[QA]


def plan_jobs(splits: list[str], images_per_split: int, shard_size: int,
              questions_per_image: int, seed_offset: int, variant: str,
              renderer: str = "pybullet") -> list[ShardJob]:
    """Every shard of a run, family by family, in order."""
    if not 1 <= shard_size <= MAX_SHARD:
        raise ValueError(f"shard size must be in [1, {MAX_SHARD}], got {shard_size}")
    jobs = []
    for name in splits:
        fam = family(name)
        for j in range(math.ceil(images_per_split / shard_size)):
            start = j * shard_size
            jobs.append(ShardJob(name, j, shard_seed(fam, seed_offset, j), start,
                                 min(shard_size, images_per_split - start),
                                 questions_per_image, variant, renderer))
    return jobs


def image_filename(family_name: str, index: int) -> str:
    """CLEVR-style file name, e.g. 'codeplan_block_bowl_000017.png'."""
    return f"codeplan_{family_name}_{index:06d}.png"


def make_image(env, job: ShardJob, i: int, renderer=None) -> ImageRecord:
    """Image `i` of `job`, made in `env` (a TabletopEnv the caller reuses) and drawn by
    `renderer` (a `render_blender.BlenderRenderer`; None: PyBullet's `render_state`)."""
    if (renderer is None) != (job.renderer == "pybullet"):
        raise ValueError(f"shard {job.name} wants the {job.renderer} renderer, got {renderer!r}")
    fam = family(job.family)
    state = sample_state(env, fam, job.shard_seed, i)
    render = renderer.render if renderer is not None else (
        render_look if job.variant in LOOK_VARIANTS else render_state)
    rendered = render(env, state, job.variant, np.random.default_rng([job.shard_seed, i, 1]))
    questions = sample_questions(rendered.scene, fam, job.questions_per_image,
                                 np.random.default_rng([job.shard_seed, i, 2]))
    index = job.start + i
    return ImageRecord(index, f"{job.family}-{job.shard_seed}-{i:04d}",
                       image_filename(job.family, index), png_bytes(rendered.rgb), state,
                       rendered, questions)


def make_shard(env, job: ShardJob, tick: Callable[[], None] | None = None, renderer=None
               ) -> list[ImageRecord]:
    """Every image of `job`; `tick()` after each (progress bars)."""
    records = []
    for i in range(job.count):
        records.append(make_image(env, job, i, renderer))
        if tick is not None:
            tick()
    return records
