"""`codeplan bench service`: what more server processes buy `codeplan serve vrs`.

For each worker count the real service is started (`codeplan serve vrs --workers N` in a
process group of its own, on a free port) and, once `/healthz` answers, `clients` threads of
this process send requests through the project's own client (`HttpReasoner`), one after
another each, until `requests` have been answered; the first `warmup` are not timed (a
worker's first request loads lazily built state). Every request is a new simulator image
(front camera, one scene per seed) with `questions` questions about its own objects, so each
is the real work: a parse per image, then the answers. Reported per worker count: requests
and questions per second over the timed requests, and per-request latency p50 / p90.

The clients share the machine with the server: on 2 cores their JSON and base64 work is part
of what the figure measures, as it is for any caller on the same machine.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import numpy as np

from common.stats import summarize_times


def scene_images(n: int, task: str = "put-blocks-in-matching-bowls"
                 ) -> list[tuple[np.ndarray, list[str]]]:
    """`n` front-camera images of distinct scenes (seeds 0..n-1), each with questions about
    its own objects."""
    from ravens_env.env import TabletopEnv

    items = []
    with TabletopEnv() as env:
        for seed in range(n):
            obs = env.reset(task, seed)
            blocks = [o for o in env.scene(visibility=False).names() if o.endswith("block")]
            items.append((obs.front_rgb, ["what objects are on the table?",
                                          *[f"what is below the {b}?" for b in blocks]]))
    return items


def bench_service(model: str = "default", workers: tuple[int, ...] = (1, 2),
                  clients: int = 8, requests: int = 200, warmup: int = 16,
                  images: int = 32, questions: int = 4) -> dict:
    """Throughput and latency of the service per worker count (see the module doc)."""
    if requests <= warmup:
        raise ValueError(f"--requests ({requests}) must exceed the untimed warmup ({warmup})")
    pool = [(img, qs[:questions]) for img, qs in scene_images(images)]
    rows = []
    for n in workers:
        with _service(model, n) as url:
            rows.append({"workers": n, **_load(url, pool, clients, requests, warmup)})
    base = rows[0]["requests_per_s"]
    for row in rows:
        row["speedup"] = round(row["requests_per_s"] / base, 2) if base else None
    return {"model": model, "clients": clients, "requests": requests, "warmup": warmup,
            "questions_per_request": questions, "images": images,
            "cpu_count": os.cpu_count(), "rows": rows}


def _load(url: str, pool: list, clients: int, requests: int, warmup: int) -> dict:
    """Send `requests` requests from `clients` threads; figures over those after `warmup`."""
    from vrs.client import HttpReasoner

    lock, latencies, sent = threading.Lock(), [], [0]
    started: list[float] = []

    def client() -> None:
        with HttpReasoner(url, timeout_s=120) as reasoner:
            while True:
                with lock:
                    k = sent[0]
                    if k >= requests:
                        return
                    sent[0] += 1
                    if k == warmup:
                        started.append(time.perf_counter())
                image, qs = pool[k % len(pool)]
                t = time.perf_counter()
                reasoner.ask(image, qs)
                if k >= warmup:
                    with lock:
                        latencies.append((time.perf_counter() - t) * 1000)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    seconds = time.perf_counter() - started[0]
    n_q = sum(len(pool[k % len(pool)][1]) for k in range(warmup, requests))
    times = summarize_times(latencies)
    return {"requests_per_s": round(len(latencies) / seconds, 2),
            "questions_per_s": round(n_q / seconds, 1), "seconds": round(seconds, 2),
            "latency_ms_p50": round(float(np.percentile(latencies, 50)), 1),
            "latency_ms_p90": round(float(np.percentile(latencies, 90)), 1),
            "latency_ms_p50_ci95": [round(x, 1) for x in times.get("median_ci95", [])]}


@contextlib.contextmanager
def _service(model: str, workers: int, ready_s: float = 180.0) -> Iterator[str]:
    """`codeplan serve vrs --workers N` on a free port; its URL once /healthz answers (as
    many times as there are workers, so that every worker has loaded its model)."""
    import requests

    port = _free_port()
    argv = [sys.executable, "-c", "import sys; from runtime.cli import main; sys.exit(main())",
            "serve", "vrs", "--model", model, "--port", str(port), "--workers", str(workers),
            "--log-level", "warning"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + ready_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"`codeplan serve vrs --workers {workers}` exited: "
                                   f"{proc.stderr.read().decode()[-2000:]}")
            with contextlib.suppress(requests.RequestException):
                if requests.get(f"{url}/healthz", timeout=5).ok:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"the service did not answer /healthz in {ready_s:.0f} s")
            time.sleep(0.5)
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def format_service(result: dict) -> str:
    """A markdown table, one row per worker count."""
    lines = [f"`codeplan serve vrs --model {result['model']}`, {result['clients']} clients, "
             f"{result['requests'] - result['warmup']} timed requests of "
             f"{result['questions_per_request']} questions (new image each), "
             f"{result['cpu_count']} CPU cores", "",
             "| workers | requests/s | questions/s | latency p50 [95% CI] / p90 (ms) | speed-up |",
             "|---|---|---|---|---|"]
    for r in result["rows"]:
        ci = r["latency_ms_p50_ci95"]
        ci_text = f" [{ci[0]}–{ci[1]}]" if ci else ""
        lines.append(f"| {r['workers']} | {r['requests_per_s']} | {r['questions_per_s']} | "
                     f"{r['latency_ms_p50']}{ci_text} / {r['latency_ms_p90']} | "
                     f"{r['speedup']}x |")
    return "\n".join(lines)
