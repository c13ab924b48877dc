"""The OFA-style VQA model: tokenizer, configs, network invariants, the reasoner seam."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from vrs.ofa.config import OfaConfig, preset
from vrs.ofa.model import OfaVqa, count_parameters, images_to_tensor
from vrs.ofa.reasoner import OfaReasoner
from vrs.ofa.tokenizer import (
    LIST_SEPARATOR,
    _random_program,
    answer_vocabulary,
    object_names,
    train_tokenizer,
)
from vrs.questions import parse_question, render_question


@pytest.fixture(scope="module")
def model(tokenizer, small_ofa):
    torch.manual_seed(0)
    return OfaVqa(preset("tiny", vocab_size=tokenizer.vocab_size, **small_ofa)).eval()


def test_tokenizer_training_is_deterministic(tokenizer):
    assert train_tokenizer().to_str() == tokenizer.to_str()


def test_tokenizer_round_trips_every_answer_as_one_token_per_word(tokenizer):
    for answers in answer_vocabulary().values():
        for a in answers:
            ids = tokenizer.encode_answer(a)
            assert tokenizer.decode(ids) == a
            assert len(ids) == len(a.split()), a
            assert tokenizer.unk_id not in ids


def test_list_answers_are_items_joined_by_the_separator_token(tokenizer):
    names = object_names()
    items = [names[0], names[5], "stand"]
    ids = tokenizer.encode_answer(LIST_SEPARATOR.join(items))
    expected = []
    for i, item in enumerate(items):
        expected += ([tokenizer.separator_id] if i else []) + tokenizer.encode_answer(item)
    assert ids == expected
    assert tokenizer.decode(ids) == LIST_SEPARATOR.join(items)


def test_every_rendered_question_tokenizes_without_unknown_tokens(tokenizer):
    rng = np.random.default_rng(123)  # another seed than the corpus's
    for _ in range(500):
        q = _random_program(rng)
        text = render_question(q, rng)
        assert parse_question(text) == q
        ids = tokenizer.encode_question(text.upper())  # case does not matter
        assert tokenizer.unk_id not in ids and len(ids) <= preset("tiny").max_question_tokens


def test_base_config_is_ofa_base_sized():
    base = preset("base", vocab_size=500)
    assert (base.d_model, base.encoder_layers, base.decoder_layers, base.heads) == (768, 6, 6, 12)
    assert base.ffn_mult * base.d_model == 3072
    with torch.device("meta"):  # counts without allocating or initialising 100 M weights
        counts = count_parameters(OfaVqa(base))
    assert 95e6 < counts["total"] < 125e6
    assert counts["encoder"] == 6 * 12 * 768 ** 2 + 6 * (9 * 768 + 2 * 768 + 2 * 768)


def test_tiny_is_cpu_sized():
    with torch.device("meta"):
        total = count_parameters(OfaVqa(preset("tiny", vocab_size=500)))["total"]
    assert 2e6 < total < 6e6
    assert preset("tiny").grid == (8, 10)


def test_config_round_trips_and_rejects_unknown_keys():
    c = preset("tiny", vocab_size=300)
    assert OfaConfig.from_dict(c.to_dict()) == c
    with pytest.raises(ValueError, match="bogus"):
        OfaConfig.from_dict({**c.to_dict(), "bogus": 1})
    with pytest.raises(ValueError, match="huge"):
        preset("huge")


def _batch(tokenizer, n_images=2, per_image=3, seed=0):
    gen = torch.Generator().manual_seed(seed)
    c = preset("tiny")
    images = torch.randint(0, 256, (n_images, 3, c.image_height, c.image_width),
                           generator=gen, dtype=torch.uint8)
    index = torch.arange(n_images).repeat_interleave(per_image)
    questions = torch.randint(4, tokenizer.vocab_size, (len(index), 7), generator=gen)
    answers = torch.randint(4, tokenizer.vocab_size, (len(index), 4), generator=gen)
    return images, index, questions, answers


def test_shared_image_encoding_equals_one_image_per_question(model, tokenizer):
    images, index, questions, answers = _batch(tokenizer)
    shared = model(images, index, questions, answers)
    separate = model(images[index], torch.arange(len(index)), questions, answers)
    assert shared.shape == (len(index), 4, tokenizer.vocab_size)
    torch.testing.assert_close(shared, separate, rtol=1e-4, atol=1e-4)


def test_question_padding_is_masked(model, tokenizer):
    images, index, questions, answers = _batch(tokenizer)
    padded = torch.cat([questions, torch.zeros(len(questions), 5, dtype=torch.long)], dim=1)
    torch.testing.assert_close(model(images, index, questions, answers),
                               model(images, index, padded, answers), rtol=1e-4, atol=1e-4)


def test_decoder_is_causal_and_reads_the_image(model, tokenizer):
    images, index, questions, answers = _batch(tokenizer)
    later = answers.clone()
    later[:, -1] = (later[:, -1] + 1) % tokenizer.vocab_size
    a, b = model(images, index, questions, answers), model(images, index, questions, later)
    torch.testing.assert_close(a[:, :-1], b[:, :-1], rtol=1e-4, atol=1e-4)
    other = model(255 - images, index, questions, answers)
    assert not torch.allclose(a, other, atol=1e-3)


def test_images_of_other_sizes_are_resized_and_bad_ones_rejected():
    c = preset("tiny")
    big = np.zeros((480, 640, 4), np.uint8)
    assert images_to_tensor([big], c).shape == (1, 3, c.image_height, c.image_width)
    with pytest.raises(ValueError, match="uint8"):
        images_to_tensor([np.zeros((240, 320, 3), np.float32)], c)


QUESTIONS = ["is the red block in the blue bowl?", "what objects are on the table?",
             "how many blocks are there?", "What colour is the block in the red bowl",
             "what is the red block on?", "make me a sandwich", "is every block in a bowl?"]


def test_reasoner_answers_in_order_and_refuses_bad_questions(model, tokenizer):
    reasoner = OfaReasoner(model, tokenizer)
    image = np.random.default_rng(0).integers(0, 256, (240, 320, 3), dtype=np.uint8)
    answers = reasoner.ask(image, QUESTIONS)
    assert len(answers) == len(QUESTIONS)
    bad = answers[5]
    assert bad.score == 0.0 and bad.text.startswith("unsupported question:")
    good = [a for i, a in enumerate(answers) if i != 5]
    assert all(0.0 < a.score <= 1.0 for a in good)
    assert answers[0].text in ("yes", "no") and answers[2].text.isdigit()
    with pytest.raises(TypeError):
        reasoner.ask(image, "is there a block?")


def test_a_wording_only_the_question_reader_hears_goes_in_as_canonical_words(model, tokenizer):
    """The model reads what it was trained on: a question the grammar refuses but the reader
    reads is asked in its program's canonical words, with that program's answer type."""
    from vrs.ofa.reasoner import _model_text

    said = "the red block, is it inside the blue bowl"
    assert _model_text(said) == ("is the red block in the blue bowl?", "yes/no")
    assert _model_text("how many blocks are there?") == ("how many blocks are there?", "count")
    image = np.random.default_rng(2).integers(0, 256, (240, 320, 3), dtype=np.uint8)
    heard, asked = OfaReasoner(model, tokenizer).ask(image, [said, _model_text(said)[0]])
    assert heard.text in ("yes", "no") and (heard.text, heard.score) == (asked.text, asked.score)


def test_ask_many_equals_asking_each_image_alone(model, tokenizer):
    reasoner = OfaReasoner(model, tokenizer)
    rng = np.random.default_rng(1)
    items = [(rng.integers(0, 256, (240, 320, 3), dtype=np.uint8), QUESTIONS[:4]),
             (rng.integers(0, 256, (120, 160, 3), dtype=np.uint8), QUESTIONS[3:]),
             (rng.integers(0, 256, (240, 320, 3), dtype=np.uint8), ["make me a sandwich"])]
    together = reasoner.ask_many(items)
    for (image, questions), answers in zip(items, together, strict=True):
        alone = reasoner.ask(image, questions)
        assert [a.text for a in answers] == [a.text for a in alone]
        assert np.allclose([a.score for a in answers], [a.score for a in alone], atol=1e-4)


def test_token_stride_keeps_resolution_in_the_later_stem_stages():
    # detector preset: 5 stages on 240x320; stride 16 stops halving after the fourth
    coarse = preset("detector", vocab_size=300)
    fine = preset("detector", vocab_size=300, token_stride=16)
    assert (coarse.grid, coarse.patch_stride) == ((8, 10), 32)
    assert (fine.grid, fine.patch_stride, fine.image_tokens) == ((15, 20), 16, 300)
    assert fine.stage_strides == (2, 2, 2, 2, 1)
    with torch.device("meta"):  # the same weights, so a coarse checkpoint loads into a fine net
        a, b = OfaVqa(coarse).state_dict(), OfaVqa(fine).state_dict()
    changed = {k for k in a if a[k].shape != b[k].shape}
    assert changed == {"stem.row_embed", "stem.col_embed"}
    images = torch.zeros(1, 3, 240, 320, dtype=torch.uint8)
    small = preset("tiny", vocab_size=300, token_stride=8, d_model=32, heads=2,
                   encoder_layers=1, decoder_layers=1, stem_channels=(8, 8, 16, 16))
    assert OfaVqa(small).encode_images(images[..., :120, :160]).shape == (1, 15 * 20, 32)


@pytest.mark.parametrize(("stem", "stride", "why"), [
    ("resnet", 12, "power of two"), ("resnet", 32, "between 2 and 16"),
    ("detector", 8, "already reach stride 16")])
def test_a_token_stride_the_stem_cannot_make_is_refused(stem, stride, why):
    with pytest.raises(ValueError, match=why):
        preset("detector" if stem == "detector" else "tiny", token_stride=stride)
