"""The official OFA checkpoint converter (`vrs.ofa.official*`, `codeplan ofa convert`).

Nothing is downloaded: an official-looking ofa-tiny directory is generated here with exactly
the official key names and shapes (`official_key_shapes`, random values, fixed seed), an
official config.json and a BART-layout vocab.json + merges.txt (a BPE trained on the question
language, padded to BART's 50265 entries, so the 8192 code and 1000 location tokens land on
the official ids). The other sizes are checked by shape alone (no tensor is allocated)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch

from runtime.cli import main as codeplan
from vrs.ofa.official import (
    convert_official,
    convert_state_dict,
    is_official_directory,
    load_converted,
)
from vrs.ofa.official_config import SIZES, config_from_official, size_config
from vrs.ofa.official_keys import (
    INTEGER_KEYS,
    RECOMPUTED,
    TIED,
    official_key_shapes,
    parameter_count,
)
from vrs.ofa.official_layers import image_buckets, token_buckets
from vrs.ofa.official_model import OfficialOfa
from vrs.ofa.official_tokenizer import OfficialTokenizer

TINY_CONFIG = {  # an official ofa-tiny config.json (OFAConfig fields; the rest default)
    "model_type": "ofa", "architectures": ["OFAModel"], "vocab_size": 59457, "d_model": 256,
    "encoder_layers": 4, "decoder_layers": 4, "encoder_attention_heads": 4,
    "decoder_attention_heads": 4, "encoder_ffn_dim": 1024, "decoder_ffn_dim": 1024,
    "resnet_type": "resnet50", "dropout": 0.1, "normformer": True, "pad_token_id": 1,
    "bos_token_id": 0, "eos_token_id": 2, "token_bucket_size": 256, "image_bucket_size": 42,
}
SMALL = dict(image_height=64, image_width=64, dropout=0.0)  # 4x4 patches: fast on a CPU
QUESTIONS = ["is the red block in the blue bowl?", "what objects are on the table?",
             "how many blocks are there?", "what color is the block in the red bowl?"]


def _state_dict(seed: int = 0) -> dict[str, torch.Tensor]:
    """Random tensors under every official ofa-tiny key; the tied embedding shared."""
    g = torch.Generator().manual_seed(seed)
    state = {}
    for key, shape in official_key_shapes("ofa-tiny").items():
        last = key.rsplit(".", 1)[-1]
        if last in INTEGER_KEYS:
            state[key] = torch.zeros(shape, dtype=torch.long)
        elif last == "running_var":
            state[key] = 0.5 + torch.rand(shape, generator=g)
        elif len(shape) == 1 and (last in ("weight", "c_attn")):  # norm scales, head scales
            state[key] = 1 + 0.1 * torch.randn(shape, generator=g)
        else:
            state[key] = 0.05 * torch.randn(shape, generator=g)
    for key in TIED:
        state[key] = state["encoder.embed_tokens.weight"]
    return state


def _write_vocab(directory) -> None:
    """vocab.json + merges.txt in BART's layout: <s> <pad> </s> <unk>, a byte-level BPE
    learned on the question language, unused fillers, <mask> at 50264."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    from vrs.ofa.tokenizer import training_corpus

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=700, min_frequency=1, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    bpe.train_from_iterator([f" {t}?" for t in training_corpus(n_questions=500)], trainer)
    learned_dir = directory / "learned"
    learned_dir.mkdir()
    bpe.model.save(str(learned_dir))
    learned = json.loads((learned_dir / "vocab.json").read_text())
    tokens = ["<s>", "<pad>", "</s>", "<unk>", *sorted(learned, key=learned.get)]
    tokens += [f"<unused_{i}>" for i in range(len(tokens), 50264)] + ["<mask>"]
    (directory / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(tokens)}))
    shutil.copy(learned_dir / "merges.txt", directory / "merges.txt")
    shutil.rmtree(learned_dir)


@pytest.fixture(scope="module")
def official(tmp_path_factory):
    """(directory, state dict) of a generated official ofa-tiny checkpoint."""
    directory = tmp_path_factory.mktemp("OFA-tiny")
    state = _state_dict()
    torch.save(state, directory / "pytorch_model.bin")
    (directory / "config.json").write_text(json.dumps(TINY_CONFIG))
    _write_vocab(directory)
    return directory, state


@pytest.fixture(scope="module")
def converted(official, tmp_path_factory):
    """The generated checkpoint converted by the command line (64x64 input)."""
    out = tmp_path_factory.mktemp("converted") / "ofa-tiny"
    assert codeplan(["ofa", "convert", str(official[0]), str(out), "--image-size", "64x64",
                     "--json"]) == 0
    return out


# -- the official layout ------------------------------------------------------------------
@pytest.mark.parametrize("size", list(SIZES))
def test_key_shapes_match_the_published_parameter_count_and_the_rebuilt_network(size):
    shapes = official_key_shapes(size)
    published = SIZES[size].published_params
    assert abs(parameter_count(shapes) - published) / published < 0.03
    with torch.device("meta"):  # shapes only, nothing allocated
        ours = {k: tuple(v.shape) for k, v in OfficialOfa(size_config(size)).state_dict().items()}
    official_weights = {k: s for k, s in shapes.items()
                        if k.rsplit(".", 1)[-1] not in RECOMPUTED
                        and k != "decoder.output_projection.weight"}
    assert ours == official_weights


def test_the_relative_position_buckets_follow_ofa():
    buckets = token_buckets(256, 1024)
    assert buckets[3, 0] == 255 + 3 and buckets[0, 100] == 255 - 100  # exact within +-128
    # beyond: ceil(log(500 / 128) / log(1023 / 128) * 127) + 128 = 212 buckets from the middle
    assert buckets[500, 0] == 255 + 212 and buckets[0, 500] == 255 - 212
    grid = image_buckets(2, 3, 42)  # patch 0 = (0, 0), patch 4 = (1, 1)
    assert grid[0, 4] == (41 - 1) * 83 + (41 - 1) and grid[4, 0] == 42 * 83 + 42
    assert grid.diagonal().eq(41 * 83 + 41).all()


# -- conversion -----------------------------------------------------------------------------
def test_conversion_consumes_every_key_and_keeps_every_value(official):
    _, state = official
    model, report = convert_state_dict(state, config_from_official(TINY_CONFIG, **SMALL))
    assert sorted(report.loaded + report.ignored) == sorted(state)
    assert sorted(report.ignored) == sorted(k for k in state if k in TIED
                                            or k.rsplit(".", 1)[-1] in RECOMPUTED)
    ours = model.state_dict()
    for key in report.loaded:
        assert torch.equal(ours[key], state[key]), key
    assert model.decoder.embed_tokens.weight is model.encoder.embed_tokens.weight
    assert model.config.preset == "ofa-tiny"


def test_the_tokenizer_has_the_official_layout_and_location_range(official):
    tok = OfficialTokenizer.from_files(official[0] / "vocab.json", official[0] / "merges.txt")
    assert tok.vocab_size == 59457 and (tok.bos_id, tok.pad_id, tok.eos_id) == (0, 1, 2)
    assert tok.code_tokens == range(50265, 58457)
    assert tok.location_tokens == range(58457, 59457) and tok.location_bins == 1000
    assert tok.location_token(0, 320) == 58457 and tok.location_token(320, 320) == 59456
    assert tok.location_token(160, 320) == 58457 + 500  # round(0.5 * 999)
    ids = tok.encode_question("Is the red block in the blue bowl?")
    assert ids[0] == tok.bos_id and ids[-1] == tok.eos_id
    assert tok.decode(ids) == "is the red block in the blue bowl?"  # OFA's " question?"
    assert tok.encode_answer("<bin_3><bin_7> red block") == [
        58460, 58464, *tok.encode_answer("red block")]  # no lone space token
    assert tok.decode(tok.encode_answer("blue block, red block")) == "blue block, red block"


def test_a_forward_pass_gives_logits_over_the_whole_vocabulary(official):
    model, tok = convert_official(official[0], **SMALL)
    questions = torch.tensor([tok.encode_question(q) for q in QUESTIONS[:1]] * 2)
    answer_in = torch.tensor([[tok.bos_id, *tok.encode_answer("yes")]] * 2)
    images = torch.randint(0, 256, (2, 3, 64, 64), dtype=torch.uint8)
    with torch.no_grad():
        logits = model(images, torch.tensor([0, 1]), questions, answer_in)
    assert logits.shape == (2, answer_in.shape[1], 59457) and logits.isfinite().all()
    assert not torch.allclose(logits[0], logits[1])  # two images, two answers


def test_padding_and_later_tokens_do_not_change_the_outputs(official):
    model, tok = convert_official(official[0], **SMALL)
    image = torch.randint(0, 256, (1, 3, 64, 64), dtype=torch.uint8)
    q = tok.encode_question(QUESTIONS[0])
    with torch.no_grad():
        tokens = model.encode_images(image)
        short = model.encode(tokens, torch.tensor([0]), torch.tensor([q]))
        padded = model.encode(tokens, torch.tensor([0]), torch.tensor([q + [tok.pad_id] * 3]))
        answer = torch.tensor([[tok.bos_id, *tok.encode_answer("red block")]])
        a = model.decode(*short, answer)
        b = model.decode(*padded, answer)
        c = model.decode(*short, answer[:, :2])
    assert torch.allclose(a, b, atol=1e-5)  # pads are masked
    assert torch.allclose(a[:, :2], c, atol=1e-5)  # causal: later tokens unseen


def test_a_fine_tuning_step_lowers_the_loss(official):
    from training.ofa.data import IGNORE
    from training.ofa.train import vqa_loss

    torch.manual_seed(0)
    model, tok = convert_official(official[0], **SMALL)
    answers = ["yes", "blue bowl, red block", "3", "green"]
    batch = {"images": torch.randint(0, 256, (2, 3, 64, 64), dtype=torch.uint8),
             "image_index": torch.tensor([0, 0, 1, 1]),
             "questions": _pad([tok.encode_question(q) for q in QUESTIONS], tok.pad_id),
             "answer_in": _pad([[tok.bos_id, *tok.encode_answer(a)] for a in answers], tok.pad_id),
             "answer_out": _pad([[*tok.encode_answer(a), tok.eos_id] for a in answers], IGNORE)}
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    model.train()
    losses = []
    for _ in range(3):
        loss = vqa_loss(model, batch)["loss"]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0] - 0.5, losses
    stats = official[1]["encoder.embed_images.layer1.0.bn2.running_var"]
    assert torch.equal(model.stem.layer1[0].bn2.running_var, stats)  # frozen BatchNorm
    assert model.stem.layer1[0].bn2.weight.grad is not None  # ... whose scale still learns


def _pad(rows: list[list[int]], value: int) -> torch.Tensor:
    width = max(len(r) for r in rows)
    return torch.tensor([r + [value] * (width - len(r)) for r in rows])


# -- the converted checkpoint -------------------------------------------------------------
def test_the_command_writes_a_checkpoint_that_reloads_with_identical_outputs(official,
                                                                              converted, capsys):
    from vrs.loading import load_reasoner
    from vrs.ofa.checkpoint import load_init
    from vrs.ofa.reasoner import OfaReasoner

    config = json.loads((converted / "config.json").read_text())
    assert config["kind"] == "ofa-official" and config["preset"] == "ofa-tiny"
    assert {p.name for p in converted.iterdir()} == {"config.json", "model.safetensors",
                                                     "tokenizer.json"}
    direct, tok = convert_official(official[0], image_height=64, image_width=64)
    loaded, tok2 = load_converted(converted)
    assert tok2.to_str() == tok.to_str() and loaded.config == direct.config
    image = np.random.default_rng(0).integers(0, 256, (240, 320, 3), dtype=np.uint8)
    before = OfaReasoner(direct, tok).ask(image, QUESTIONS)
    after = load_reasoner(converted).ask(image, QUESTIONS)  # through vrs.loading's "kind"
    assert before == after and all(a.score > 0 for a in after)
    images = torch.randint(0, 256, (1, 3, 64, 64), dtype=torch.uint8)
    questions = torch.tensor([tok.encode_question(QUESTIONS[1])])
    answer_in = torch.tensor([[tok.bos_id, *tok.encode_answer("blue bowl, red block")]])
    model, _ = load_init(converted)
    assert isinstance(model, OfficialOfa)
    with torch.no_grad():
        expected = direct(images, torch.tensor([0]), questions, answer_in)
        assert torch.equal(model(images, torch.tensor([0]), questions, answer_in), expected)


def test_the_command_prints_the_size_parameters_and_location_range(official, tmp_path, capsys):
    assert codeplan(["ofa", "convert", str(official[0]), str(tmp_path / "out"),
                     "--image-size", "64x64"]) == 0
    out = capsys.readouterr().out
    assert "converted ofa-tiny (d_model 256, 4+4 layers, resnet50): 33,488,336 parameters" in out
    assert "<bin_0>..<bin_999>: ids 58457..59456 of a 59457-token vocabulary" in out


def test_train_init_accepts_an_official_directory(official):
    from vrs.ofa.checkpoint import load_init

    assert is_official_directory(official[0])
    model, tok = load_init(official[0])
    assert isinstance(model, OfficialOfa) and isinstance(tok, OfficialTokenizer)
    assert model.config.grid == (15, 20)  # the default input: 240x320 frames


# -- bad input --------------------------------------------------------------------------------
def test_a_state_dict_that_does_not_fit_is_refused_naming_the_keys(official):
    _, state = official
    config = config_from_official(TINY_CONFIG, **SMALL)
    wrong = {**state, "encoder.layers.2.fc1.weight": torch.zeros(1024, 255)}
    with pytest.raises(ValueError, match=r"wrong shape: encoder\.layers\.2\.fc1\.weight "
                                         r"\(1024, 255\) \(expected \(1024, 256\)\)"):
        convert_state_dict(wrong, config)
    with pytest.raises(ValueError, match=r"1 unexpected: encoder\.layers\.9\.fc1\.weight"):
        convert_state_dict({**state, "encoder.layers.9.fc1.weight": torch.zeros(2)}, config)
    missing = {k: v for k, v in state.items() if k != "decoder.layers.0.cross_attn.c_attn"}
    with pytest.raises(ValueError, match=r"1 missing: decoder\.layers\.0\.cross_attn\.c_attn"):
        convert_state_dict(missing, config)
    untied = {**state, "decoder.output_projection.weight": torch.zeros(59457, 256)}
    with pytest.raises(ValueError, match=r"tied copies that differ.*output_projection"):
        convert_state_dict(untied, config)
    with pytest.raises(ValueError, match=r"does not fit ofa-medium"):
        convert_state_dict(state, size_config("ofa-medium", **SMALL))


def test_a_model_prefix_and_absent_tied_copies_are_accepted(official):
    _, state = official
    prefixed = {f"model.{k}": v for k, v in state.items() if k not in TIED}
    model, _ = convert_state_dict(prefixed, config_from_official(TINY_CONFIG, **SMALL))
    assert torch.equal(model.decoder.embed_tokens.weight, state["decoder.embed_tokens.weight"])


def test_bad_directories_are_refused_naming_the_problem(official, tmp_path):
    from vrs.ofa.checkpoint import load_init

    src = tmp_path / "partial"
    src.mkdir()
    for name in ("config.json", "merges.txt"):
        shutil.copy(official[0] / name, src / name)
    with pytest.raises(FileNotFoundError, match=r"missing vocab\.json, model\.safetensors or "
                                                r"pytorch_model\.bin"):
        convert_official(src)
    assert codeplan(["ofa", "convert", str(src), str(tmp_path / "out")]) == 2
    with pytest.raises(ValueError, match="normformer=False"):
        config_from_official({**TINY_CONFIG, "normformer": False})
    other = tmp_path / "bert"
    other.mkdir()
    (other / "config.json").write_text(json.dumps({"model_type": "bert"}))
    with pytest.raises(ValueError, match="model_type 'bert'"):
        load_init(other)
    with pytest.raises(FileNotFoundError, match=r"no config\.json"):
        load_init(tmp_path)


def test_a_tokenizer_that_does_not_fit_the_model_is_refused(official, tmp_path):
    src = tmp_path / "other-vocab"
    src.mkdir()
    for name in ("merges.txt", "pytorch_model.bin"):
        (src / name).symlink_to(official[0] / name)
    (src / "config.json").write_text(json.dumps(TINY_CONFIG))
    vocab = json.loads((official[0] / "vocab.json").read_text())
    tokens = [t for t in sorted(vocab, key=vocab.get) if t != "<unused_50000>"]
    (src / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(tokens)}))
    with pytest.raises(ValueError, match=r"tokenizer has 59456 tokens.*config\.json says 59457"):
        convert_official(src)
