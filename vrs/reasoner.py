"""The reasoner seam: `ask(image, questions) -> answers`, whatever answers them.

The controller only ever talks to this protocol, so the ground-truth oracle, the learned VQA
model in-process and the HTTP service client are interchangeable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np


@dataclass(frozen=True)
class Answer:
    """One answer: `text` is an answer-vocabulary string ("yes", "red", "3", "blue bowl",
    "nothing"); `score` is the model's confidence in 0-1 (1.0 for the oracle)."""

    text: str
    score: float = 1.0


class Reasoner(Protocol):
    """Answers natural-language questions about one image."""

    name: str

    def ask(self, image: np.ndarray, questions: list[str]) -> list[Answer]:
        """`image` (H, W, 3) uint8 from the front camera; one Answer per question, in order."""
        ...
