"""Token pruning (`prune_below`): the encoder reads only the image tokens the patch head says
hold an object. Reading fewer tokens must be the same as masking the dropped ones out, the
choice must follow the patch head, batches must answer as single questions do, and the
command that turns it on keeps every weight and names a model that cannot prune."""

from __future__ import annotations

import json

import numpy as np
import torch

from vrs.ofa.checkpoint import load_checkpoint, save_checkpoint
from vrs.ofa.config import preset
from vrs.ofa.model import OfaVqa, images_to_tensor
from vrs.ofa.reasoner import OfaReasoner

QUESTIONS = ["is the red block in the blue bowl?", "how many blocks are there?",
             "what color is the block in the red bowl?", "what objects are on the table?"]


def _model(tokenizer, small_ofa, **overrides) -> OfaVqa:
    torch.manual_seed(5)
    config = preset("tiny", vocab_size=tokenizer.vocab_size, patch_labels=6,
                    **{**small_ofa, **overrides})
    model = OfaVqa(config).eval()
    with torch.no_grad():  # off the init, so the encoder's outputs differ per token
        for p in model.parameters():
            p.add_(0.05 * torch.randn_like(p))
    return model


def test_reading_fewer_tokens_equals_masking_the_dropped_ones(tokenizer, small_ofa,
                                                              monkeypatch):
    model = _model(tokenizer, small_ofa, prune_below=0.5)
    n = model.config.image_tokens
    keep = torch.zeros(2, n, dtype=torch.bool)
    keep[0, [1, 4, 9, 17]] = True  # image 0 keeps 4 tokens, image 1 keeps 7
    keep[1, [0, 2, 3, 30, 31, 32, 50]] = True
    monkeypatch.setattr(model, "image_keep", lambda tokens: keep)
    tokens = torch.randn(2, n, model.config.d_model)
    index = torch.tensor([0, 1, 1])
    questions = torch.tensor([tokenizer.encode_question(q) + [0] * 2 for q in
                              ("how many blocks are there?",) * 3])
    with torch.no_grad():
        memory, mask = model.encode(tokens, index, questions)
        assert memory.shape[1] == 7 + questions.shape[1]  # the largest kept count, not n
        # reference: every token in, the dropped ones masked out as keys
        text = (model.text_embed(questions) + model.text_pos[:questions.shape[1]]
                + model.type_embed.weight[1])
        x = torch.cat([tokens[index], text], dim=1)
        seen = torch.cat([keep[index], questions != 0], dim=1)
        for block in model.encoder:
            x = block(x, seen[:, None, None, :])
        reference = model.encoder_norm(x)
    for b, image in enumerate(index.tolist()):
        kept = keep[image].nonzero().squeeze(1)
        got = memory[b, :len(kept)]
        assert torch.allclose(got, reference[b, kept], atol=1e-5)
        assert torch.allclose(memory[b, 7:], reference[b, n:], atol=1e-5)
        assert mask[b, 0, 0, :7].sum() == len(kept)  # padding is never attended


def test_the_patch_head_chooses_and_grow_adds_the_neighbours(tokenizer, small_ofa):
    model = _model(tokenizer, small_ofa, prune_below=0.5, prune_grow=0)
    rows, cols = model.config.grid
    with torch.no_grad():
        model.patch_head.weight.zero_()
        model.patch_head.weight[2, 0] = 1.0
        model.patch_head.bias.fill_(-5.0)
    tokens = torch.zeros(1, rows * cols, model.config.d_model)
    tokens[0, cols * 3 + 4, 0] = 10.0  # one token whose class 2 is likely (sigmoid(5))
    assert model.image_keep(tokens)[0].nonzero().flatten().tolist() == [cols * 3 + 4]
    grown = _model(tokenizer, small_ofa, prune_below=0.5, prune_grow=1)
    grown.patch_head.load_state_dict(model.patch_head.state_dict())
    kept = grown.image_keep(tokens)[0].nonzero().flatten().tolist()
    assert kept == [cols * r + c for r in (2, 3, 4) for c in (3, 4, 5)]
    assert _model(tokenizer, small_ofa).image_keep(tokens) is None  # off by default


def test_a_pruned_reasoner_answers_a_batch_as_it_answers_each_image(tokenizer, small_ofa):
    rng = np.random.default_rng(4)
    items = [(rng.integers(0, 256, (240, 320, 3), dtype=np.uint8), QUESTIONS)
             for _ in range(3)]
    probe = _model(tokenizer, small_ofa)
    with torch.no_grad():
        tokens = probe.encode_images(images_to_tensor([i for i, _ in items], probe.config))
        likely = torch.sigmoid(probe.patch_head(tokens)).amax(-1)  # (3, N)
    values = likely.flatten().sort().values
    half = len(values) // 2  # about half of the tokens go, the cut midway between two of them
    below = float(values[half - 1] + values[half]) / 2  # (not on one: float noise would flip it)
    reasoner = OfaReasoner(_model(tokenizer, small_ofa, prune_below=below, prune_grow=0),
                           tokenizer, precision="fp32")
    counts = reasoner.model.image_keep(tokens).sum(dim=1).tolist()
    assert len(set(counts)) > 1 and 0 < min(counts) and max(counts) < tokens.shape[1]
    together = reasoner.ask_many(items)
    for (image, questions), answers in zip(items, together, strict=True):
        alone = reasoner.ask(image, questions)
        assert [a.text for a in answers] == [a.text for a in alone]
        assert np.allclose([a.score for a in answers], [a.score for a in alone], atol=1e-4)


def test_the_prune_command_keeps_the_weights_and_names_a_bad_setting(tokenizer, small_ofa,
                                                                     tmp_path, capsys):
    from runtime.cli import main

    save_checkpoint(tmp_path / "src", _model(tokenizer, small_ofa), tokenizer=tokenizer)
    assert main(["ofa", "prune", str(tmp_path / "src"), str(tmp_path / "out"),
                 "--below", "0.3", "--grow", "2"]) == 0
    assert json.loads(capsys.readouterr().out)["prune_below"] == 0.3
    src, _ = load_checkpoint(tmp_path / "src")
    out, _ = load_checkpoint(tmp_path / "out")
    assert (out.config.prune_below, out.config.prune_grow) == (0.3, 2)
    for key, value in src.state_dict().items():
        assert torch.equal(value, out.state_dict()[key]), key
    assert main(["ofa", "prune", str(tmp_path / "src"), str(tmp_path / "x"),
                 "--below", "1.5"]) == 2
    assert "prune_below 1.5 must be in [0, 1)" in capsys.readouterr().err
    assert main(["ofa", "prune", str(tmp_path / "src"), str(tmp_path / "x"),
                 "--below", "0.3", "--grow", "-1"]) == 2
    assert "prune_grow -1 must be >= 0" in capsys.readouterr().err
    plain = OfaVqa(preset("tiny", vocab_size=tokenizer.vocab_size, **small_ofa))
    save_checkpoint(tmp_path / "plain", plain, tokenizer=tokenizer)
    assert main(["ofa", "prune", str(tmp_path / "plain"), str(tmp_path / "y"),
                 "--below", "0.3"]) == 2
    assert "needs the patch head" in capsys.readouterr().err
