"""`generate()`: plan the shards of a run, make the missing ones in parallel, assemble (the
pipeline behind `datagen.generate` and `codeplan datagen vqa`).

Why processes and not threads: PyBullet keeps the GIL while it steps and renders, so only
processes use more than one core. Each worker (multiprocessing, spawn: no simulator state is
inherited) makes its own TabletopEnv once and reuses it for every image of every shard it
gets; work is handed out one shard at a time, so have at least as many shards as workers.
Workers report each image on a queue for the progress bar. As always with spawn, a script that calls
`generate(workers=2)` must do so under `if __name__ == "__main__":`.

With `renderer="blender"` each generating process also starts one Blender worker process
(`render_blender.BlenderRenderer`) and gives Cycles its share of the cores (all of them with
one worker, the usual choice: Cycles already renders on every core).

    from datagen import generate
    manifest = generate("data/vqa", ["block_bowl", "unseen"], images_per_split=1000)
"""

from __future__ import annotations

import multiprocessing as mp
import multiprocessing.util
import os
import queue
import shlex
import time
import warnings
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from tqdm import tqdm

from common.executor import Executor, imap_unordered
from datagen.families import SEED_STRIDE, family
from datagen.render_pybullet import check_variant
from datagen.seed_ranges import sibling_overlaps
from datagen.shards import ShardJob, make_shard, plan_jobs
from datagen.writer import assemble, clean_temp, shard_done, write_shard

if TYPE_CHECKING:
    from datagen.render_blender import BlenderRenderer

RENDERERS = ("pybullet", "blender")

_ENV = None  # the worker process's TabletopEnv
_RENDERER = None  # the worker process's BlenderRenderer (None: PyBullet renders)
_TICKS = None  # the worker process's progress queue


def generate(out: str | Path, splits: Sequence[str], images_per_split: int,
             questions_per_image: int = 10, shard_size: int = 200, workers: int = 1,
             seed_offset: int = 0, renderer: str = "pybullet", variant: str = "default",
             progress: bool = True, executor: Executor | None = None) -> dict:
    """Make (or finish) the dataset at `out` and return its manifest; see the module doc.
    ValueError names the problem with any bad argument before any work starts. `executor`
    (default: `workers` local processes) may send the shards to Ray instead: the same shard
    files either way, since a shard depends on its seed alone."""
    splits = check_args(splits, images_per_split, questions_per_image, shard_size, workers,
                        seed_offset, renderer, variant)
    jobs = plan_jobs(splits, images_per_split, shard_size, questions_per_image, seed_offset,
                     variant, renderer)
    for line in sibling_overlaps(Path(out), jobs):
        warnings.warn(line, stacklevel=2)
    root = Path(out) / "shards"
    cleaned = clean_temp(root)
    pending = [j for j in jobs if not shard_done(root, j)]
    started = time.perf_counter()
    done = run_shards(root, pending, workers, progress, renderer, executor)
    seconds = time.perf_counter() - started
    settings = {"splits": splits, "images_per_split": images_per_split,
                "questions_per_image": questions_per_image, "shard_size": shard_size,
                "workers": workers, "seed_offset": seed_offset, "renderer": renderer,
                "variant": variant}
    run = {"command": command_line(out, **settings), "settings": settings,
           "seeds": {"seed_stride": SEED_STRIDE,
                     "shard_seed": "family seed_base + seed_offset + shard index",
                     "image_streams": "default_rng([shard_seed, i, 0 state | 1 render | "
                                      "2 questions])"},
           "run": {"executor": (executor or Executor(workers=workers)).describe(),
                   "shards_made": len(done), "shards_skipped": len(jobs) - len(pending),
                   "temp_dirs_removed": len(cleaned), **_throughput(done, seconds)}}
    return assemble(Path(out), jobs, run)


def _throughput(done: list[dict], seconds: float) -> dict:
    images = sum(d["images"] for d in done)
    questions = sum(d["questions"] for d in done)
    cpu = sum(d["cpu_seconds"] for d in done)  # in the workers, writing included
    return {"images_made": images, "questions_made": questions, "seconds": round(seconds, 2),
            "images_per_hour": _per_hour(images, seconds),
            "questions_per_hour": _per_hour(questions, seconds),
            "cpu_seconds": round(cpu, 2), "images_per_cpu_hour": _per_hour(images, cpu)}


def check_args(splits: Sequence[str], images_per_split: int, questions_per_image: int,
               shard_size: int, workers: int, seed_offset: int, renderer: str, variant: str
               ) -> list[str]:
    """The split names as a list, after checking every argument (ValueError otherwise)."""
    names = [s.strip() for s in ([splits] if isinstance(splits, str) else splits)]
    if not names or not all(names):
        raise ValueError("no splits given; name at least one, e.g. --splits block_bowl")
    for name in names:
        family(name)  # raises, listing the known splits
    if len(set(names)) != len(names):
        raise ValueError(f"a split is listed twice: {','.join(names)}")
    for label, value, low in (("images per split", images_per_split, 1),
                              ("questions per image", questions_per_image, 1),
                              ("shard size", shard_size, 1), ("workers", workers, 1),
                              ("seed offset", seed_offset, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{label} must be an integer >= {low}, got {value!r}")
    if renderer not in RENDERERS:
        raise ValueError(f"unknown renderer {renderer!r}; available: {', '.join(RENDERERS)}")
    check_variant(variant)
    if renderer == "blender":
        from datagen.blender_client import check_blender
        from datagen.render_blender import check_blender_variant

        check_blender_variant(variant)
        check_blender()  # imports bpy once in the worker's Python: fails now, naming the fix
    return names


def command_line(out: str | Path, splits: list[str], images_per_split: int,
                 questions_per_image: int, shard_size: int, workers: int, seed_offset: int,
                 renderer: str, variant: str) -> str:
    """The CLI command that makes this dataset (recorded in the manifest)."""
    return (f"codeplan datagen vqa --out {shlex.quote(str(out))} --splits {','.join(splits)} "
            f"--images-per-split {images_per_split} --questions-per-image {questions_per_image} "
            f"--shard-size {shard_size} --workers {workers} --seed-offset {seed_offset} "
            f"--renderer {renderer} --variant {variant}")


def run_shards(root: Path, jobs: list[ShardJob], workers: int, progress: bool,
               renderer: str = "pybullet", executor: Executor | None = None) -> list[dict]:
    """Make and write every shard of `jobs`; one summary dict per shard (in the jobs' order)."""
    with tqdm(total=sum(j.count for j in jobs), unit="img", desc="datagen",
              disable=not progress) as bar:
        if executor is not None and executor.kind == "ray":
            return _ray_shards(root, jobs, executor, renderer, bar)
        if workers <= 1 or len(jobs) <= 1:
            from ravens_env.env import TabletopEnv

            drawer = make_renderer(renderer, threads=0)
            with TabletopEnv() as env, drawer or nullcontext():
                return [run_job(root, j, env, lambda: bar.update(1), drawer) for j in jobs]
        ctx = mp.get_context("spawn")
        ticks = ctx.Queue()
        processes = min(workers, len(jobs))
        threads = max(1, (os.cpu_count() or 1) // processes)  # Cycles' share of the cores
        pool = ctx.Pool(processes, _init_worker, (ticks, renderer, threads))
        try:
            result = pool.map_async(_worker_job, [(str(root), j) for j in jobs], chunksize=1)
            while not result.ready():
                _drain(ticks, bar, 0.2)
            pool.close()  # let workers exit on their own: a killed one may hold the queue
            pool.join()
            _drain(ticks, bar, 0.0)
            return result.get()
        finally:
            pool.terminate()
            ticks.close()
            ticks.join_thread()


def _ray_shards(root: Path, jobs: list[ShardJob], executor: Executor, renderer: str,
                bar: tqdm) -> list[dict]:
    """The shards as Ray tasks; the bar moves a shard at a time (a worker on another node has
    no queue to tick). A shard whose worker died is made again from its seed; its atomic
    write means a half-written one never counts."""
    done: dict[int, dict] = {}
    threads = max(1, int(executor.cpus_per_job))  # Cycles' share: the CPUs a task asks for
    for i, summary in imap_unordered(_worker_job, [(str(root), j) for j in jobs], executor,
                                     setup=_init_worker, setup_args=(None, renderer, threads)):
        done[i] = summary
        bar.update(summary["images"])
    return [done[i] for i in range(len(jobs))]


def make_renderer(renderer: str, threads: int) -> BlenderRenderer | None:
    """The renderer object `make_shard` wants: None for PyBullet (the env renders), else a
    started Blender worker with `threads` Cycles threads (0 = all cores)."""
    if renderer == "pybullet":
        return None
    from datagen.render_blender import BlenderRenderer

    return BlenderRenderer(threads=threads)


def run_job(root: Path, job: ShardJob, env, tick: Callable[[], None] | None = None,
            renderer: BlenderRenderer | None = None) -> dict:
    """Make one shard in `env` (drawn by `renderer`, None = PyBullet) and write it atomically;
    its summary. CPU seconds include the Blender worker's, which run in another process."""
    started, cpu = time.perf_counter(), time.process_time()
    render_cpu = renderer.cpu_seconds if renderer is not None else 0.0
    records = make_shard(env, job, tick, renderer)
    seconds = time.perf_counter() - started
    write_shard(root, job, records, seconds)
    render_cpu = (renderer.cpu_seconds - render_cpu) if renderer is not None else 0.0
    return {"family": job.family, "shard": job.name, "images": len(records),
            "questions": sum(len(r.questions) for r in records), "seconds": seconds,
            "cpu_seconds": time.process_time() - cpu + render_cpu}


def _init_worker(ticks, renderer: str = "pybullet", threads: int = 0) -> None:
    global _ENV, _RENDERER, _TICKS
    from ravens_env.env import TabletopEnv

    _ENV, _TICKS = TabletopEnv(), ticks
    try:
        _RENDERER = make_renderer(renderer, threads)
    except Exception as e:  # raised from the job instead: a failing initializer makes the
        _RENDERER = e  # pool start new workers for ever
        return
    if _RENDERER is not None:  # run at the worker's normal exit (atexit is not, under spawn)
        multiprocessing.util.Finalize(_RENDERER, _RENDERER.close, exitpriority=10)


def _worker_job(args: tuple[str, ShardJob]) -> dict:
    root, job = args
    if isinstance(_RENDERER, Exception):
        raise RuntimeError(f"the {job.renderer} renderer did not start: {_RENDERER}")
    tick = (lambda: _TICKS.put(1)) if _TICKS is not None else None
    return run_job(Path(root), job, _ENV, tick, _RENDERER)


def _drain(ticks, bar: tqdm, timeout: float) -> None:
    try:
        bar.update(ticks.get(timeout=timeout) if timeout else ticks.get_nowait())
        while True:
            bar.update(ticks.get_nowait())
    except queue.Empty:
        pass


def _per_hour(count: int, seconds: float) -> float:
    return round(count * 3600 / seconds, 1) if seconds > 0 else 0.0
