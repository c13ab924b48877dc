"""Trie-constrained answer decoding: it can never leave the answer vocabulary."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from vrs.ofa.config import preset
from vrs.ofa.model import OfaVqa
from vrs.ofa.reasoner import OfaReasoner
from vrs.ofa.tokenizer import (
    LIST_SEPARATOR,
    _random_program,
    answer_vocabulary,
    object_names,
)
from vrs.ofa.trie import build_tries, constrained_greedy
from vrs.questions import answer_type, parse_question, render_question


@pytest.fixture(scope="module")
def tries(tokenizer):
    return build_tries(tokenizer)


def _in_vocabulary(text: str, kind: str) -> bool:
    vocab = answer_vocabulary()
    if kind == "any":
        if any(text in v for v in vocab.values()):
            return True
        kind = "objects"
    if text in vocab[kind]:
        return True
    items = text.split(LIST_SEPARATOR)
    return (kind == "objects" and len(items) > 1 and items == sorted(set(items))
            and all(i in object_names() for i in items))


def _random_logits(seed: int, bias: dict[int, float] | None = None):
    gen = torch.Generator().manual_seed(seed)

    def next_logits(prefix: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        logits = 4 * torch.randn(len(rows), 600, generator=gen)  # (A, V) wider than the vocab
        for token, value in (bias or {}).items():
            logits[:, token] += value
        return logits

    return next_logits


@pytest.mark.parametrize("seed", range(4))
def test_random_logits_always_decode_to_vocabulary_answers(tries, tokenizer, seed):
    kinds = [k for k in tries for _ in range(40)]
    out = constrained_greedy(_random_logits(seed), [tries[k] for k in kinds],
                             tokenizer.bos_id, tokenizer.pad_id)
    for kind, (text, score) in zip(kinds, out, strict=True):
        assert _in_vocabulary(text, kind), (kind, text)
        assert 0.0 < score <= 1.0


def test_a_model_that_loves_the_separator_still_ends_with_a_sorted_list(tries, tokenizer):
    bias = {tokenizer.separator_id: 50.0, tokenizer.eos_id: -50.0}
    out = constrained_greedy(_random_logits(0, bias), [tries["objects"]] * 5,
                             tokenizer.bos_id, tokenizer.pad_id)
    for text, _ in out:  # the list ends only when no name sorts after its last item
        items = text.split(LIST_SEPARATOR)
        assert items == sorted(set(items)) and items[-1] == max(object_names())
        assert set(items) <= set(object_names())


def test_the_yes_no_trie_allows_only_yes_and_no_and_scores_their_softmax(tries, tokenizer):
    trie = tries["yes/no"]
    yes, no = tokenizer.encode_answer("yes")[0], tokenizer.encode_answer("no")[0]
    assert sorted(trie.allowed(trie.start())) == sorted([yes, no])

    def next_logits(prefix: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        logits = torch.zeros(len(rows), tokenizer.vocab_size)
        logits[:, yes], logits[:, tokenizer.unk_id] = 1.0, 100.0  # unk is masked away
        return logits

    [(text, score)] = constrained_greedy(next_logits, [trie], tokenizer.bos_id,
                                         tokenizer.pad_id)
    assert text == "yes"
    assert score == pytest.approx(np.e / (np.e + 1), rel=1e-5)  # then EOS is forced: p = 1


def test_a_token_that_is_not_allowed_is_refused(tries, tokenizer):
    trie = tries["color"]
    cursor = trie.start()
    with pytest.raises(ValueError):
        trie.advance(cursor, tokenizer.encode_answer("yes")[0])
    with pytest.raises(ValueError):
        trie.advance(cursor, tokenizer.separator_id)


def test_a_random_model_answers_many_questions_inside_their_answer_type(tokenizer, small_ofa):
    rng = np.random.default_rng(7)
    questions = [render_question(_random_program(rng), rng) for _ in range(300)]
    for seed in range(2):
        torch.manual_seed(seed)
        config = preset("tiny", vocab_size=tokenizer.vocab_size, **small_ofa)
        reasoner = OfaReasoner(OfaVqa(config), tokenizer)
        image = rng.integers(0, 256, (240, 320, 3), dtype=np.uint8)
        for q, a in zip(questions, reasoner.ask(image, questions), strict=True):
            kind = answer_type(parse_question(q))
            assert _in_vocabulary(a.text, kind), (q, a)
            assert 0.0 < a.score <= 1.0
