"""The oracle reasoner: answers questions from the simulator's ground truth, not from pixels.

It exists for ablations and upper bounds ("how well would the controller do with a perfect
VQA model?") and for testing the controller without a model. It is NOT a system under test:
it ignores the image and reads the ground-truth scene graph. To keep `vrs` free of the
simulator it is given a zero-argument callable returning the current Scene, e.g.
`OracleReasoner(lambda: env.scene(visibility=False))`.

An image does pick the moment, though: the oracle remembers the scene it read when it first
saw an image (by the image's bytes), so a question about an older image — the controller's
`at_start` questions about the first camera image — is answered from the scene of that moment,
as a model looking at that image would. The first image ever seen is never forgotten.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from vrs.questions import UnknownObject, UnsupportedQuestion, answer_question, read_question
from vrs.reasoner import Answer

if TYPE_CHECKING:
    from ravens_env.scene_graph import Scene


MOMENTS_KEPT = 8  # images whose scene the oracle remembers (the first one always)


class OracleReasoner:
    """Reasoner protocol backed by ground truth; every understood answer has score 1.0.

    A question it cannot parse, or one naming an object the scene lacks, gets a score-0 Answer
    whose text starts with "unsupported question:" or "unknown object:" and carries the reason,
    so that one bad question cannot crash a batch; callers tell such answers by the score.
    """

    name = "oracle"

    def __init__(self, scene: Callable[[], Scene]) -> None:
        if not callable(scene):
            raise TypeError("OracleReasoner takes a zero-argument callable returning the Scene, "
                            "e.g. OracleReasoner(lambda: env.scene(visibility=False))")
        self._scene = scene
        self._moments: OrderedDict[bytes, Scene] = OrderedDict()  # image digest -> its scene
        self._first: bytes | None = None

    def ask(self, image: np.ndarray | None, questions: list[str]) -> list[Answer]:
        """One Answer per question, in order, from the scene of the image's moment (see the
        module docstring); the scene is read once per call, so a batch sees one moment."""
        if isinstance(questions, str):
            raise TypeError("ask() takes a list of questions, got a single string")
        scene = self._scene_of(image)
        return [_answer(q, scene) for q in questions]

    def _scene_of(self, image: np.ndarray | None) -> Scene:
        if image is None:
            return self._scene()
        key = hashlib.blake2b(np.ascontiguousarray(image).tobytes(), digest_size=16).digest()
        if key not in self._moments:
            self._moments[key] = self._scene()
            self._first = self._first or key
            while len(self._moments) > MOMENTS_KEPT:
                oldest = next(k for k in self._moments if k != self._first)
                del self._moments[oldest]
        self._moments.move_to_end(key)
        return self._moments[key]


def _answer(text: str, scene: Scene) -> Answer:
    try:
        return Answer(answer_question(read_question(text), scene), 1.0)
    except UnsupportedQuestion as e:
        return Answer(f"unsupported question: {e}", 0.0)
    except UnknownObject as e:
        return Answer(f"unknown object: {e}", 0.0)
