"""The VQA model's tokenizer: a BPE trained on the question language itself, offline.

Why our own: OFA uses GPT-2's BPE, but that needs a download and spends most of its 50k
vocabulary on words no question here can contain. The question language is closed, so a
byte-level BPE (GPT-2's scheme, trained with the Hugging Face `tokenizers` library) on
questions rendered from random programs plus every answer covers it with ~500 tokens, and with
that budget every word ends up a single token (short sequences, cheap decoding). A checkpoint
stores the result as tokenizer.json, so a model never depends on retraining.

Byte-level, not a whitespace pre-tokenizer with an end-of-word suffix: the trainer gives
suffixed symbols ids in hash-map order, so that variant differs from run to run; with the fixed
256-byte alphabet the merges (ties broken by pair ids) come out the same every time (tested).
Every word carries the space marker (`add_prefix_space`), so an object name is the same tokens
first in a list answer or after the ", " separator, which the answer trie relies on.

Location tokens (OFA's scheme, Wang et al. 2022): `location_bins` > 0 appends "<bin_0>" ..
"<bin_{n-1}>" after the BPE vocabulary, one token per quantised image coordinate (x over the
width, y over the height), for the multi-task stage's detection and grounding sequences
(`training.ofa.tasks`); their prompts join the BPE corpus so every prompt word is one token.

Questions are `normalize`d first (lower case, no trailing '?', 'grey' -> 'gray', 'an' -> 'a'),
exactly what the parser sees. Answers are strings of `answer_vocabulary()`; a `list_objects`
answer is object names joined by ", " (sorted by name, as `vrs.question_exec` writes it).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Self

import numpy as np
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

from ravens_env.colors import ALL_COLORS
from vrs.question_program import Question
from vrs.question_templates import TEMPLATES
from vrs.question_vocab import KINDS, NOTHING, TABLE, normalize
from vrs.questions import render_question

PAD, BOS, EOS, UNK = "[PAD]", "[BOS]", "[EOS]", "[UNK]"
SPECIALS = (PAD, BOS, EOS, UNK)  # ids 0, 1, 2, 3
LIST_SEPARATOR = ", "
VOCAB_SIZE = 1024  # a budget: the trainer stops early when every word is one token
CORPUS_QUESTIONS = 6000
CORPUS_SEED = 0
LOCATION_BINS = 100  # location tokens of a multi-task model (OFA has 1,000 over 480-512 px)
MAX_COUNT = 2 * len(ALL_COLORS) + 1  # every block and bowl color plus the stand


def object_names() -> list[str]:
    """Every object name a scene can hold ("blue block", ..., "stand"), sorted."""
    return sorted(KINDS["obj"].values)


def answer_vocabulary() -> dict[str, list[str]]:
    """Answers per answer type; 'objects' lists the items of a list answer (plus 'nothing')."""
    names = object_names()
    return {"yes/no": ["yes", "no"],
            "color": [*ALL_COLORS, NOTHING],
            "count": [str(n) for n in range(MAX_COUNT + 1)],
            "object": [*names, TABLE, NOTHING],
            "objects": [*names, NOTHING]}


def _random_program(rng: np.random.Generator) -> Question:
    """A random valid program: a said phrasing of a random template, its slots filled."""
    template = TEMPLATES[int(rng.integers(len(TEMPLATES)))]
    phrasings = [p for p in template.phrasings if not p.parse_only]
    phrasing = phrasings[int(rng.integers(len(phrasings)))]
    params = dict(phrasing.fixed)
    for slot in phrasing.slots:
        if slot.optional and rng.random() < 0.5:
            continue
        values = slot.kind.values
        params[slot.name] = values[int(rng.integers(len(values)))]
    return Question(template.id, params)


def location_token(k: int) -> str:
    """The text of location token `k` ("<bin_k>")."""
    return f"<bin_{k}>"


def training_corpus(n_questions: int = CORPUS_QUESTIONS, seed: int = CORPUS_SEED,
                    prompts: tuple[str, ...] = ()) -> list[str]:
    """Normalized questions rendered from random programs (with synonyms), every answer, list
    answers and `prompts` (the multi-task prompts); a pure function of its arguments."""
    rng = np.random.default_rng(seed)
    questions = [normalize(render_question(_random_program(rng), rng))
                 for _ in range(n_questions)]
    answers = [a for values in answer_vocabulary().values() for a in values]
    names = object_names()
    lists = [LIST_SEPARATOR.join(sorted(rng.choice(names, size=int(rng.integers(2, 8)),
                                                   replace=False))) for _ in range(200)]
    return questions + answers + lists + [normalize(p) for p in prompts]


class TokenizerFile:
    """What both tokenizer families share: a `tokenizers.Tokenizer` kept as tokenizer.json.
    A subclass is built from the Tokenizer alone (`cls(tokenizer)`)."""

    tokenizer: Tokenizer

    def to_str(self) -> str:
        """tokenizer.json content."""
        return self.tokenizer.to_str()

    def save(self, path: str | Path) -> None:
        """Write tokenizer.json (to a temporary name, then renamed: never half a file)."""
        path = Path(path)
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        tmp.write_text(self.to_str())
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str | Path) -> Self:
        """Read tokenizer.json."""
        return cls(Tokenizer.from_file(str(path)))


class QuestionTokenizer(TokenizerFile):
    """A trained `tokenizers.Tokenizer` with the ids the model needs (pad 0, bos 1, eos 2)."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        ids = [tokenizer.token_to_id(t) for t in SPECIALS]
        if ids != [0, 1, 2, 3]:
            raise ValueError(f"special tokens {SPECIALS} must have ids 0-3, got {ids}")
        self.pad_id, self.bos_id, self.eos_id, self.unk_id = ids
        self.separator_id = self._separator()
        self.location_ids = self._locations()

    def _locations(self) -> list[int]:
        """Ids of "<bin_0>", "<bin_1>", ... (consecutive; empty for a tokenizer without)."""
        ids = []
        while (i := self.tokenizer.token_to_id(location_token(len(ids)))) is not None:
            ids.append(i)
        if ids and ids != list(range(ids[0], ids[0] + len(ids))):
            raise ValueError("location tokens must have consecutive ids")
        return ids

    @property
    def location_bins(self) -> int:
        """How many location tokens the vocabulary holds (0: none)."""
        return len(self.location_ids)

    @property
    def vocab_size(self) -> int:
        """Number of token ids, specials included."""
        return self.tokenizer.get_vocab_size()

    def _separator(self) -> int:
        """The id of ',' between list items: "stand, stand" must be stand + ',' + stand."""
        ids = self.tokenizer.encode(f"stand{LIST_SEPARATOR}stand", add_special_tokens=False).ids
        if len(ids) != 3 or ids[0] != ids[2]:
            raise ValueError(f"the list separator {LIST_SEPARATOR!r} is not one token: {ids}")
        return ids[1]

    def encode_question(self, text: str) -> list[int]:
        """Token ids of a question, normalized as the parser sees it (no BOS / EOS)."""
        return self.tokenizer.encode(normalize(text), add_special_tokens=False).ids

    def encode_questions(self, texts: list[str]) -> list[list[int]]:
        """`encode_question` for many questions at once (the library batches it)."""
        encodings = self.tokenizer.encode_batch([normalize(t) for t in texts],
                                                add_special_tokens=False)
        return [e.ids for e in encodings]

    def encode_answer(self, text: str) -> list[int]:
        """Token ids of an answer string (no BOS / EOS)."""
        return self.tokenizer.encode(text, add_special_tokens=False).ids

    def decode(self, ids: list[int]) -> str:
        """Text of token ids (specials dropped, the leading space marker stripped)."""
        return self.tokenizer.decode([i for i in ids if i >= len(SPECIALS)]).strip()



def train_tokenizer(vocab_size: int = VOCAB_SIZE, n_questions: int = CORPUS_QUESTIONS,
                    seed: int = CORPUS_SEED, location_bins: int = 0,
                    prompts: tuple[str, ...] = ()) -> QuestionTokenizer:
    """Train the BPE on `training_corpus` (with `prompts`), then append `location_bins`
    location tokens; same arguments, same tokenizer.json."""
    tok = Tokenizer(models.BPE(unk_token=UNK))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=1,
                                  special_tokens=list(SPECIALS), show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(training_corpus(n_questions, seed, prompts), trainer)
    if location_bins:
        tok.add_tokens([location_token(k) for k in range(location_bins)])
    return QuestionTokenizer(tok)
