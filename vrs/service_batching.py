"""Micro-batching for the reasoning service: concurrent requests share one forward pass.

Why: a learned reasoner answers 16 images in one batched pass in little more time than one,
and the model must never be called from two threads at once (PyTorch modules and the NS
reasoner's parse cache are not thread-safe). So every request becomes a `_Job` on a queue, and
ONE worker thread owns the model: it takes the first waiting job, keeps collecting until it has
`max_batch_images` images or `max_wait_ms` have passed since that first job, and answers the
whole batch with `reasoner.ask_many` (or `ask` per image when the reasoner has no `ask_many`).
While the model runs, new requests queue up, so under load batches fill without waiting.

The wait is only for requests already on their way: the handler holds `arriving()` while it
reads and decodes a request, and the worker stops waiting as soon as no request is arriving
and the queue is empty. A lone sequential caller therefore pays no `max_wait_ms` at all.

Each request awaits an asyncio future that the worker resolves from its own thread
(`loop.call_soon_threadsafe`). If a batch raises, each of its images is retried alone, so one
image that breaks the model fails only its own request.

`stop()` lets the worker finish the batch it is running; every request still queued then fails
with `ServiceStopping`, and new ones are refused with it until the worker has ended, so a
request never waits on a worker that is gone and there is never a second worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from vrs.reasoner import Answer, Reasoner


class QueueFull(Exception):
    """More requests are waiting than the service accepts; the caller should retry later."""


class ReasonerFailure(Exception):
    """The reasoner raised, or returned the wrong number of answers, for valid input."""


class ServiceStopping(Exception):
    """The service is shutting down: the request was refused, or dropped from the queue."""


@dataclass
class BatchResult:
    """Answers for one request, and how many images shared its forward pass."""

    answers: list[Answer]
    batch_size: int


@dataclass
class _Job:
    image: np.ndarray
    questions: list[str]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future
    enqueued: float = field(default_factory=time.monotonic)


_STOP = object()
_POLL_S = 0.0005  # how often a waiting worker looks again at who is arriving


class MicroBatcher:
    """Queue of pending requests plus the one thread that runs the model (module docstring)."""

    def __init__(self, reasoner: Reasoner, max_batch_images: int = 16, max_wait_ms: float = 5,
                 max_queue: int = 1024, batch_history: int = 1024) -> None:
        if max_batch_images < 1:
            raise ValueError(f"max_batch_images must be at least 1, got {max_batch_images}")
        if max_wait_ms < 0:
            raise ValueError(f"max_wait_ms must be >= 0, got {max_wait_ms}")
        self.reasoner = reasoner
        self.max_batch_images = max_batch_images
        self.max_wait_s = max_wait_ms / 1000.0
        self._queue: queue.Queue = queue.Queue(maxsize=max_queue)
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._arriving = 0
        self._stopping = False  # set by stop(), cleared by the worker as it ends
        # The sizes of the last `batch_history` batches (for stats and tests); bounded, as a
        # server runs for weeks.
        self.batch_sizes: deque[int] = deque(maxlen=batch_history)

    @contextlib.contextmanager
    def arriving(self) -> Iterator[None]:
        """Hold while a request is being read and decoded, until `enqueue` (module docstring)."""
        with self._lock:
            self._arriving += 1
        try:
            yield
        finally:
            with self._lock:
                self._arriving -= 1

    def enqueue(self, image: np.ndarray, questions: list[str]) -> asyncio.Future:
        """Queue one image; the future (of the running event loop) gets its BatchResult or a
        ReasonerFailure or ServiceStopping. QueueFull if too many requests are waiting,
        ServiceStopping while the service shuts down."""
        loop = asyncio.get_running_loop()
        job = _Job(image, questions, loop, loop.create_future())
        with self._lock:  # with start/stop's checks, so no job lands behind a worker's end
            self._start_locked()
            try:
                self._queue.put_nowait(job)
            except queue.Full:
                raise QueueFull(f"{self._queue.maxsize} requests are already waiting") from None
        return job.future

    async def submit(self, image: np.ndarray, questions: list[str]) -> BatchResult:
        """Answers for one image, computed in some batch by the worker thread."""
        return await self.enqueue(image, questions)

    def start(self) -> None:
        """Start the worker thread if it is not running (idempotent, thread-safe);
        ServiceStopping while a stopped worker has not ended yet."""
        with self._lock:
            self._start_locked()

    def _start_locked(self) -> None:
        """Start a worker unless one runs. Why refuse while stopping: the old worker may still be
        inside the model (stop's join timed out), and a second one would call the model from
        two threads at once. The worker clears `_stopping` as it ends (`_end`)."""
        if self._stopping:
            raise ServiceStopping("the reasoning service is shutting down")
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="vrs-model-worker",
                                             daemon=True)
            self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Let the worker finish the batch it is running, then end it; the requests still
        queued fail with ServiceStopping. Waits up to `timeout_s` for the worker to end."""
        with self._lock:
            thread = self._thread
            if thread is None:
                return
            if not self._stopping:
                self._stopping = True
                # Wakes an idle worker. A full queue means a busy worker, which sees the flag
                # after its batch. Put under the lock, so no stale _STOP outlives this worker.
                with contextlib.suppress(queue.Full):
                    self._queue.put_nowait(_STOP)
        thread.join(timeout_s)

    def _run(self) -> None:
        try:
            while not self._stopping:
                batch, stop = self._collect()
                if batch:
                    self._answer(batch)
                if stop:
                    return
        finally:
            self._end()

    def _end(self) -> None:
        """The worker's last act. Why: without it the requests still queued would await
        futures no thread will ever resolve; failing them now answers them at once. Clearing
        `_thread` and `_stopping` under the lock lets a later start() run a fresh worker."""
        with self._lock:
            pending = []
            while True:
                try:
                    job = self._queue.get_nowait()
                except queue.Empty:
                    break
                if job is not _STOP:
                    pending.append(job)
            self._thread = None
            self._stopping = False
        for job in pending:
            _resolve(job, ServiceStopping("the reasoning service is shutting down; the request "
                                          "was not answered"))

    def _collect(self) -> tuple[list[_Job], bool]:
        """The next batch: block for one job, then gather more until full or out of time."""
        first = self._queue.get()
        if first is _STOP:
            return [], True
        batch = [first]
        deadline = time.monotonic() + self.max_wait_s
        while len(batch) < self.max_batch_images:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or (self._arriving == 0 and self._queue.empty()):
                remaining = 0  # nobody else is on the way: take what is queued, then go
            try:
                job = self._queue.get(timeout=min(remaining, _POLL_S)) if remaining > 0 \
                    else self._queue.get_nowait()
            except queue.Empty:
                if remaining > 0:
                    continue
                break
            if job is _STOP:
                return batch, True
            batch.append(job)
        return batch, False

    def _answer(self, batch: list[_Job]) -> None:
        live = [j for j in batch if not j.future.done()]  # skip requests already cancelled
        if not live:
            return
        self.batch_sizes.append(len(live))
        try:
            results = self._run_model(live)
        except Exception as error:
            if len(live) == 1:
                _resolve(live[0], _failure(error))
                return
            for job in live:  # find the image that breaks the model; the others still work
                try:
                    _resolve(job, BatchResult(self._run_model([job])[0], 1))
                except Exception as e:
                    _resolve(job, _failure(e))
            return
        for job, answers in zip(live, results, strict=True):
            _resolve(job, BatchResult(answers, len(live)))

    def _run_model(self, jobs: list[_Job]) -> list[list[Answer]]:
        ask_many = getattr(self.reasoner, "ask_many", None)
        if callable(ask_many):
            results = list(ask_many([(j.image, j.questions) for j in jobs]))
        else:
            results = [list(self.reasoner.ask(j.image, j.questions)) for j in jobs]
        if len(results) != len(jobs):
            raise ReasonerFailure(f"reasoner returned answers for {len(results)} images, "
                                  f"asked about {len(jobs)}")
        for job, answers in zip(jobs, results, strict=True):
            if len(answers) != len(job.questions):
                raise ReasonerFailure(f"reasoner returned {len(answers)} answers for "
                                      f"{len(job.questions)} questions")
        return results


def _failure(error: BaseException) -> ReasonerFailure:
    if isinstance(error, ReasonerFailure):
        return error
    return ReasonerFailure(f"reasoner failed: {type(error).__name__}: {error}")


def _resolve(job: _Job, outcome: BatchResult | BaseException) -> None:
    """Hand the outcome to the request's event loop (the future may have been cancelled)."""

    def settle() -> None:
        if job.future.done():
            return
        if isinstance(outcome, BaseException):
            job.future.set_exception(outcome)
        else:
            job.future.set_result(outcome)

    try:
        job.loop.call_soon_threadsafe(settle)
    except RuntimeError:  # the loop is closed: the server is shutting down
        pass
