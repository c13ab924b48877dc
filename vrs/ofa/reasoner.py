"""`OfaReasoner`: the Reasoner protocol on top of the OFA-style VQA network.

Why batching is built in: the controller asks several questions about one frame, and the HTTP
service gathers requests from several clients; one forward pass for all of them costs little
more than one question. The image stem runs once per image, the encoder and the trie-constrained
greedy decoder once per batch of (image, question) pairs.

Each question is parsed first: `parse_question` fixes the answer type (so a yes/no question
can only be answered yes or no; a question only `read_question` understands is put to the model
in its program's canonical words), and a question neither reads gets a score-0
Answer("unsupported question: ...") like the oracle's, so one bad question cannot spoil a batch.
`score` is the probability of the decoded answer under the constrained softmax (see
`vrs.ofa.trie.constrained_greedy`), never 0 for a real answer.

Precision: on a CPU that multiplies bfloat16 in hardware (AVX512-BF16 or AMX), the forward
pass runs under bf16 autocast: the matrix products and convolutions in bf16, the logits read
back in fp32. Elsewhere, and where `CODEPLAN_OFA_PRECISION=fp32` asks, it runs in fp32:
emulated bf16 would be slower than fp32. What it changed on this project's 2-core VM
(answers and latency): docs/RESULTS.md, "OFA at bf16".
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import torch

from vrs.ofa.checkpoint import load_checkpoint
from vrs.ofa.model import OfaVqa, images_to_tensor
from vrs.ofa.tokenizer import QuestionTokenizer
from vrs.ofa.trie import AnswerTrie, build_tries, constrained_greedy
from vrs.questions import (
    UnsupportedQuestion,
    answer_type,
    parse_question,
    read_question,
    render_question,
)
from vrs.reasoner import Answer

MAX_QUESTIONS_PER_PASS = 256  # larger batches are split (bounded memory, same answers)
PRECISION_ENV = "CODEPLAN_OFA_PRECISION"
PRECISIONS = ("auto", "fp32", "bf16")


def native_bf16() -> bool:
    """Whether this CPU multiplies bf16 in hardware (torch's own checks; False where this
    torch build cannot tell)."""
    checks = (getattr(torch.cpu, "_is_avx512_bf16_supported", None),
              getattr(torch.cpu, "_is_amx_tile_supported", None))
    return any(bool(check()) for check in checks if check is not None)


def resolve_precision(precision: str | None, device: torch.device) -> str:
    """'fp32' or 'bf16' for `precision` (default: $CODEPLAN_OFA_PRECISION, else 'auto': bf16
    on a CPU with native bf16, fp32 on anything else). bf16 is CPU-only here: a GPU run asks
    for its own precision through `accelerate`."""
    choice = (precision or os.environ.get(PRECISION_ENV) or "auto").strip().lower()
    if choice not in PRECISIONS:
        raise ValueError(f"OFA precision {choice!r} (from the argument or ${PRECISION_ENV}) "
                         f"is not one of {', '.join(PRECISIONS)}")
    if device.type != "cpu":
        return "fp32"
    if choice == "auto":
        return "bf16" if native_bf16() else "fp32"
    return choice


def pad_batch(rows: list[list[int]], pad_id: int = 0) -> torch.Tensor:
    """Token id lists -> (B, L) long tensor, right-padded with `pad_id`."""
    width = max((len(r) for r in rows), default=0)
    out = torch.full((len(rows), max(width, 1)), pad_id, dtype=torch.long)
    for i, r in enumerate(rows):
        out[i, :len(r)] = torch.tensor(r, dtype=torch.long)
    return out


@torch.inference_mode()
def answer_batch(model: OfaVqa, tokenizer: QuestionTokenizer, images: torch.Tensor,
                 image_index: list[int], questions: list[list[int]], tries: list[AnswerTrie],
                 bf16: bool = False) -> list[tuple[str, float]]:
    """(text, score) per question: images (I, 3, h, w) uint8 at the model's input size,
    image_index[i] the image of question i, questions token ids, tries the answer trie of each
    question; `bf16` runs the CPU forward pass under bf16 autocast. The model must be in eval
    mode; everything runs on the model's device."""
    device = next(model.parameters()).device
    limit = model.config.max_question_tokens
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16 and device.type == "cpu"):
        tokens = model.encode_images(images.to(device))  # (I, N, d), once per image
        index = torch.tensor(image_index, dtype=torch.long, device=device)  # (B,)
        ids = pad_batch([q[:limit] for q in questions], tokenizer.pad_id).to(device)  # (B, L)
        memory, mask = model.encode(tokens, index, ids)  # (B, K + L, d), (B, 1, 1, K + L)

        def next_logits(prefix: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
            return model.decode(memory[rows], mask[rows], prefix)[:, -1].float()  # (A, V)

        return constrained_greedy(next_logits, tries, tokenizer.bos_id, tokenizer.pad_id,
                                  device)


class OfaReasoner:
    """Answers questions about images with a trained OfaVqa (see the module docstring)."""

    def __init__(self, model: OfaVqa, tokenizer: QuestionTokenizer,
                 precision: str | None = None) -> None:
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.config = model.config
        self.tries = build_tries(tokenizer)
        self.name = f"ofa-vqa-{self.config.preset}"
        self.precision = resolve_precision(precision, next(model.parameters()).device)

    def ask(self, image: np.ndarray, questions: list[str]) -> list[Answer]:
        """`image` (H, W, 3) uint8; one Answer per question, in order."""
        return self.ask_many([(image, questions)])[0]

    def ask_many(self, items: list[tuple[np.ndarray, list[str]]]) -> list[list[Answer]]:
        """Answers for several (image, questions) items, batched into as few passes as the
        size limit allows; the same answers as asking each item alone."""
        out: list[list[Answer | None]] = []
        jobs: list[tuple[int, int, str, str]] = []  # (item, question, text, answer type)
        for i, (_, questions) in enumerate(items):
            if isinstance(questions, str):
                raise TypeError("ask() takes a list of questions, got a single string")
            out.append([None] * len(questions))
            for j, text in enumerate(questions):
                try:
                    jobs.append((i, j, *_model_text(text)))
                except UnsupportedQuestion as e:
                    out[i][j] = Answer(f"unsupported question: {e}", 0.0)
        for start in range(0, len(jobs), MAX_QUESTIONS_PER_PASS):
            chunk = jobs[start:start + MAX_QUESTIONS_PER_PASS]
            for (i, j, _, _), (text, score) in zip(chunk, self._run(items, chunk), strict=True):
                out[i][j] = Answer(text, score)
        return out  # every slot is filled: parsed questions by _run, the rest above

    def _run(self, items: list[tuple[np.ndarray, list[str]]],
             jobs: list[tuple[int, int, str, str]]) -> list[tuple[str, float]]:
        used = list(dict.fromkeys(i for i, _, _, _ in jobs))  # images asked about, in order
        slot = {item: k for k, item in enumerate(used)}
        images = images_to_tensor([items[i][0] for i in used], self.config)  # (I, 3, h, w)
        questions = self.tokenizer.encode_questions([text for _, _, text, _ in jobs])
        tries = [self.tries[kind] for _, _, _, kind in jobs]
        return answer_batch(self.model, self.tokenizer, images, [slot[i] for i, *_ in jobs],
                            questions, tries, bf16=self.precision == "bf16")


def load_ofa_reasoner(path: str | Path, device: str = "cpu") -> OfaReasoner:
    """The reasoner stored in a checkpoint directory (`vrs.loading`'s loader for 'ofa-vqa')."""
    model, tokenizer = load_checkpoint(path, device)
    reasoner = OfaReasoner(model, tokenizer)
    name = Path(path).name  # two checkpoints of one preset must not share a table row's name
    reasoner.name = name if name.startswith("ofa") else f"{reasoner.name}-{name}"
    return reasoner


def load_official_reasoner(path: str | Path, device: str = "cpu") -> OfaReasoner:
    """The reasoner of a converted official OFA checkpoint (`vrs.loading`'s loader for
    'ofa-official'; `vrs.ofa.official` holds the network and the conversion)."""
    from vrs.ofa.official import load_converted

    return OfaReasoner(*load_converted(path, device))


def _model_text(text: str) -> tuple[str, str]:
    """(the words the model reads, the answer type). A question the grammar hears goes in as
    asked (the model was trained on such words); one only the question reader understands goes
    in as its program's canonical words, which the model knows."""
    try:
        return text, answer_type(parse_question(text))
    except UnsupportedQuestion:
        q = read_question(text)
        return render_question(q), answer_type(q)
