"""Where a command's independent jobs run: this process, local worker processes, or Ray.

Why one seam: `eval closed-loop`, `eval actor`, `datagen vqa` and `datagen demos` each turn
into a list of independent jobs (an episode, a shard) whose results the driver alone writes.
The commands differ only in what a job is; where it runs is chosen here, by `--executor`:

- `local` (default): `workers` processes of this machine (one: this process, no pool).
- `ray`: each job is a Ray task asking for `cpus_per_job` CPUs, on the cluster at `address`
  (`ray start --head` / `ray start --address ...` on each node), or, with no address, on a
  Ray instance started here with `workers` CPUs and stopped at the end.

Both give the same results for the same jobs (a job's result depends on the job alone), and
both yield `(index, result)` as jobs end, not in order, so that the driver writes each record
at once and a stopped run keeps what it finished. A Ray worker that dies (killed, out of
memory, its node lost) has its job run again, up to `retries` times; the driver takes exactly
one result per job, so an episode is neither lost nor counted twice. A job that *raises* is
not retried (a bug is not a crash): its error reaches the driver as in the local path.

`setup(*setup_args)` runs once in each worker process before its first job (load a model,
open a simulator, set torch's threads), not once per job; in a Ray worker, once per process
per distinct setup, since Ray keeps worker processes for many tasks.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

EXECUTORS = ("local", "ray")
RAY_HINT = "pip install -e '.[scale]' (Ray 2.60)"


@dataclass(frozen=True)
class Executor:
    """How to run jobs; ValueError names a bad field."""

    kind: str = "local"
    workers: int = 1  # local processes, or the CPUs of a Ray instance started here
    address: str | None = None  # a running Ray cluster ("auto", "ray://host:10001", ...)
    cpus_per_job: float = 1.0  # a Ray task's CPU request
    retries: int = 3  # runs of a job again after its Ray worker died

    def __post_init__(self) -> None:
        if self.kind not in EXECUTORS:
            raise ValueError(f"unknown executor {self.kind!r}; executors: {', '.join(EXECUTORS)}")
        if isinstance(self.workers, bool) or not isinstance(self.workers, int) \
                or self.workers < 1:
            raise ValueError(f"workers must be an integer >= 1, got {self.workers!r}")
        if self.address and self.kind != "ray":
            raise ValueError("--ray-address is for --executor ray; with --executor local the "
                             "jobs run on this machine")
        if not self.cpus_per_job > 0:
            raise ValueError(f"cpus per job must be > 0, got {self.cpus_per_job!r}")

    @property
    def parallel(self) -> bool:
        """Whether jobs run outside this process (a setup then runs in each worker)."""
        return self.kind == "ray" or self.workers > 1

    def describe(self) -> str:
        """One line for logs and reports: where the jobs ran."""
        if self.kind == "local":
            return f"local, {self.workers} process(es)"
        return f"ray at {self.address}" if self.address else \
            f"ray, local instance with {self.workers} CPU(s)"


def imap_unordered(fn: Callable[[Any], Any], jobs: Sequence[Any], executor: Executor,
                   setup: Callable[..., None] | None = None, setup_args: tuple = (),
                   mp_context: str | None = None) -> Iterator[tuple[int, Any]]:
    """`(i, fn(jobs[i]))` for every job, as each ends. `fn` and `setup` must be module-level
    functions (they are sent to other processes by reference); `mp_context` picks the local
    pool's start method ("spawn" where a forked simulator would be unsafe)."""
    if not jobs:
        return
    if executor.kind == "ray":
        yield from _ray_map(fn, jobs, executor, setup, setup_args)
    elif executor.workers <= 1:
        if setup is not None:  # here, once per call (a later call may have closed its state)
            setup(*setup_args)
        for i, job in enumerate(jobs):
            yield i, fn(job)
    else:
        yield from _local_map(fn, jobs, executor.workers, setup, setup_args, mp_context)


def _local_map(fn, jobs, workers, setup, setup_args, mp_context):
    import multiprocessing as mp

    n = min(workers, len(jobs))
    context = mp.get_context(mp_context) if mp_context else None
    with ProcessPoolExecutor(max_workers=n, mp_context=context) as pool:
        futures = {pool.submit(_in_worker, fn, setup, setup_args, job): i
                   for i, job in enumerate(jobs)}
        for future in as_completed(futures):
            yield futures[future], future.result()


_READY: set[tuple] = set()  # the setups this worker process has run (a Ray worker serves
# many runs, so the key is the setup and its arguments, not just "done")


def _in_worker(fn, setup, setup_args, job):
    """A job's body in a worker process: the worker's setup (once), then the job. Why not a
    pool initializer: one that raises breaks the pool with no word of why, while an error
    raised here reaches the driver as itself (a missing checkpoint stays FileNotFoundError)."""
    if setup is not None:
        key = (setup.__module__, setup.__qualname__, repr(setup_args))
        if key not in _READY:
            setup(*setup_args)
            _READY.add(key)
    return fn(job)


def _ray_map(fn, jobs, executor: Executor, setup, setup_args):
    ray = import_ray()
    with _ray_session(ray, executor):
        task = ray.remote(num_cpus=executor.cpus_per_job, max_retries=executor.retries,
                          retry_exceptions=False)(_in_worker)
        fn_ref = ray.put(fn)  # sent once, not with every job
        refs = {task.remote(fn_ref, setup, setup_args, job): i for i, job in enumerate(jobs)}
        pending = list(refs)
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    yield refs[ref], ray.get(ref)
        finally:
            for ref in pending:  # the driver stopped early (an error, Ctrl-C): stop the rest
                ray.cancel(ref, force=True)


def import_ray() -> Any:
    """The `ray` module, or an ImportError that says how to install it."""
    try:
        import ray
    except ImportError:
        raise ImportError(f"--executor ray needs Ray, which is not installed: {RAY_HINT}") \
            from None
    return ray


@contextlib.contextmanager
def _ray_session(ray, executor: Executor):
    """Connect to `executor.address`, or start a local instance with `workers` CPUs; shut it
    down at the end only if this call started it (a notebook's own `ray.init` is kept)."""
    if ray.is_initialized():
        yield
        return
    # log_to_driver off: a worker's prints (PyBullet's banner, tqdm) would otherwise land on
    # the driver's stdout and break `--json`; they stay in Ray's session logs
    # (/tmp/ray/session_latest/logs), and a job's error still reaches the driver.
    options = {"include_dashboard": False, "logging_level": "ERROR", "log_to_driver": False,
               "runtime_env": {"env_vars": {"PYTHONPATH": _project_path()}}}
    # Ray prints its own notices (a worker died, a task is retried) on the driver's stdout,
    # which must hold nothing but a command's answer (`--json`): they go to stderr instead.
    with contextlib.redirect_stdout(sys.stderr):
        if executor.address:
            ray.init(address=executor.address, **options)
        else:
            ray.init(num_cpus=executor.workers, **options)
        try:
            yield
        finally:
            ray.shutdown()


def _project_path() -> str:
    """PYTHONPATH for Ray workers: the project's root first, so that a worker imports the
    same code as the driver whether codeplan is installed or run from a checkout."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
