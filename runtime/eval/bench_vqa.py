"""`codeplan bench vqa`: CPU latency and throughput of a reasoner, from one command.

Latency is per question at batch 1: one question per `ask` call, and every call on a *new*
image, so nothing is reused between calls (`latency_ms`). Reasoners that cache the last
image's parse are also timed answering a second question about the same image
(`same_image_latency_ms`: the controller's typical follow-up). Throughput is questions per
second when `ask_many` gets `images_per_batch` images with all their questions at once.
Images and questions come from a datagen output, so the work is the real work.
"""

from __future__ import annotations

import os
import time

import numpy as np
import torch

from common.stats import summarize_times
from vrs.reasoner import Reasoner
from vrs.scoring import by_image


def _items(data: dict, n_images: int) -> list[tuple[np.ndarray, list[str]]]:
    items = []
    for dataset in data.values():
        for img, rows in by_image(dataset):
            items.append((img, [r["question"] for r in rows]))
            if len(items) >= n_images:
                return items
    if not items:
        raise ValueError("the dataset has no images")
    return items


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def _follow_up(reasoner: Reasoner, image: np.ndarray, questions: list[str]) -> float:
    """ms for a second question about an image the reasoner has just seen."""
    reasoner.ask(image, questions[:1])
    return _timed(lambda: reasoner.ask(image, questions[-1:]))


def bench_vqa(reasoner: Reasoner, data: dict, questions: int = 200,
              images_per_batch: int = 16, warmup: int = 5) -> dict:
    """{'latency_ms', 'same_image_latency_ms', 'throughput_qps', ...}; times in ms."""
    items = _items(data, max(questions, images_per_batch * 4) + warmup)
    for img, qs in items[:warmup]:
        reasoner.ask(img, qs[:1])
    cold = [_timed(lambda it=it: reasoner.ask(it[0], it[1][:1]))
            for it in items[warmup:warmup + questions]]
    warm = [_follow_up(reasoner, img, qs) for img, qs in items[warmup:warmup + questions]]
    batches = [b for b in (items[i:i + images_per_batch]
                           for i in range(0, images_per_batch * 4, images_per_batch)) if b]
    ask_many = getattr(reasoner, "ask_many", None) or (lambda b: [reasoner.ask(*x) for x in b])
    begin = time.perf_counter()
    for batch in batches:
        ask_many(batch)
    seconds = time.perf_counter() - begin
    n_q = sum(len(qs) for batch in batches for _, qs in batch)
    return {"model": reasoner.name, "questions": len(cold),
            "latency_ms": _percentiles(cold), "same_image_latency_ms": _percentiles(warm),
            "throughput_qps": round(n_q / seconds, 1), "throughput_questions": n_q,
            "images_per_batch": images_per_batch, "torch_threads": torch.get_num_threads(),
            "cpu_count": os.cpu_count()}


def _percentiles(times: list[float]) -> dict:
    s = summarize_times(times)
    return {"p50": round(float(np.percentile(times, 50)), 3),
            "p90": round(float(np.percentile(times, 90)), 3),
            "p50_ci95": [round(x, 3) for x in s.get("median_ci95", [])], "n": len(times)}
