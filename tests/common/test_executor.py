"""common.executor: every job's result exactly once, wherever the jobs run.

The Ray tests start one local Ray instance with 2 CPUs for the module (a few seconds) and
check what a user relies on when pointing a command at a cluster: the same results as the
local path, a setup per worker process rather than per job, an error raised as itself, and a
worker that dies mid-job retried without losing or duplicating its job.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from common.executor import Executor, imap_unordered


def _square(x: int) -> tuple[int, int]:
    return x * x, os.getpid()


def _log_setup(path: str) -> None:
    with open(path, "a") as f:
        f.write(f"{os.getpid()}\n")


def _missing_checkpoint(path: str) -> None:
    raise FileNotFoundError(f"no checkpoint at {path}")


def _dies_once(job: tuple[int, str]) -> int:
    """Job 3 kills its own worker process the first time it runs (a node lost, an OOM kill)."""
    n, marker = job
    if n == 3 and not os.path.exists(marker):
        Path(marker).write_text("died")
        os._exit(1)
    return n * 10


def _results(jobs, executor, **kw) -> dict[int, object]:
    out: dict[int, object] = {}
    for i, result in imap_unordered(_square, jobs, executor, **kw):
        assert i not in out, f"job {i} came back twice"
        out[i] = result
    return out


@pytest.mark.parametrize("workers", [1, 2])
def test_local_returns_every_job_once_and_runs_setup_once_per_worker(tmp_path, workers):
    log = tmp_path / "setup.log"
    out = _results(list(range(8)), Executor("local", workers), setup=_log_setup,
                   setup_args=(str(log),))
    assert {i: r[0] for i, r in out.items()} == {i: i * i for i in range(8)}
    setups = log.read_text().split()
    assert len(setups) == len(set(setups))  # never twice in one process
    assert {str(pid) for _, pid in out.values()} <= set(setups)  # every job's process set up
    assert len(setups) <= workers


def test_a_setup_error_reaches_the_driver_as_itself():
    with pytest.raises(FileNotFoundError, match="no checkpoint at /nowhere"):
        list(imap_unordered(_square, [1, 2, 3], Executor("local", 2),
                            setup=_missing_checkpoint, setup_args=("/nowhere",)))


def test_bad_settings_are_named():
    with pytest.raises(ValueError, match="unknown executor 'slurm'"):
        Executor("slurm")
    with pytest.raises(ValueError, match="workers must be an integer >= 1, got 0"):
        Executor("local", 0)
    with pytest.raises(ValueError, match="--ray-address is for --executor ray"):
        Executor("local", 2, "auto")
    assert Executor("ray", 2).describe() == "ray, local instance with 2 CPU(s)"
    assert Executor("ray", 2, "auto").describe() == "ray at auto"


def test_without_ray_installed_the_error_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match=r"pip install -e '\.\[scale\]'"):
        list(imap_unordered(_square, [1], Executor("ray", 2)))
    from runtime.cli import main  # the command says so in one line, before any work

    assert main(["datagen", "demos", "--task", "put-block-in-bowl", "--n", "1", "--out",
                 "/nonexistent/never-written", "--executor", "ray"]) == 2
    assert "pip install -e '.[scale]'" in capsys.readouterr().err


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    here = Path(__file__).resolve().parent  # Ray workers import this module's job functions
    path = os.pathsep.join([str(here), str(here.parents[1]), os.environ.get("PYTHONPATH", "")])
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR",
             runtime_env={"env_vars": {"PYTHONPATH": path}})
    yield ray
    ray.shutdown()


def test_ray_gives_the_local_results_and_one_setup_per_worker(local_ray, tmp_path):
    log = tmp_path / "setup.log"
    jobs = list(range(12))
    ray_out = _results(jobs, Executor("ray", 2), setup=_log_setup, setup_args=(str(log),))
    local_out = _results(jobs, Executor("local", 1))
    assert {i: r[0] for i, r in ray_out.items()} == {i: r[0] for i, r in local_out.items()}
    setups = log.read_text().split()
    assert len(setups) == len(set(setups))
    assert {str(pid) for _, pid in ray_out.values()} <= set(setups)


def test_a_ray_worker_that_dies_has_its_job_run_again_exactly_once(local_ray, tmp_path):
    marker = tmp_path / "died"
    jobs = [(n, str(marker)) for n in range(6)]
    seen: list[int] = []
    results = {}
    for i, result in imap_unordered(_dies_once, jobs, Executor("ray", 2)):
        seen.append(i)
        results[i] = result
    assert marker.read_text() == "died"  # job 3's first worker really died
    assert sorted(seen) == list(range(6))  # none lost, none twice
    assert results == {n: n * 10 for n in range(6)}


def test_a_job_error_in_ray_is_not_retried_and_reaches_the_driver(local_ray):
    with pytest.raises(FileNotFoundError, match="no checkpoint at /nowhere"):
        list(imap_unordered(_square, [1, 2], Executor("ray", 2),
                            setup=_missing_checkpoint, setup_args=("/nowhere",)))
