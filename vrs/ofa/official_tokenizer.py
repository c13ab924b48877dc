"""The official OFA tokenizer (BART's byte-level BPE + image codes + location bins), offering
what `QuestionTokenizer` offers to the reasoner, the trainer and the answer trie.

Why rebuilt with the `tokenizers` library from vocab.json + merges.txt: those two files are
what an official checkpoint directory ships, and the `transformers` OFA tokenizer lives on a
branch that is not a package. What it must reproduce (OFA-Sys/OFA, branch
feature/add_transformers, tokenization_ofa.py; main branch, tasks/ofa_task.py and
data/mm_data/*.py):

- `OFATokenizer` is `BartTokenizer` (GPT-2's byte-level BPE; ids from vocab.json: <s> 0,
  <pad> 1, </s> 2, <unk> 3, <mask> last of BART's 50265) plus, added in this order,
  `<code_0>`..`<code_8191>` (image codes) and `<bin_0>`..`<bin_999>` (location bins): 59457 ids
  with the official vocab.json, the bins at 58457..59456. When vocab.json already lists them,
  their ids are kept.
- a location is a bin: coordinate / image size * (bins - 1), rounded (refcoco_dataset.py);
  `location_token` does that. OFA writes location tokens space-separated and outside the BPE
  (`use_bpe=False`), so here they absorb the space before them (`lstrip`): " <bin_3> red"
  is <bin_3> + BPE(" red"), with no lone space token.
- VQA inputs (vqa_gen_dataset.py): source = <s> + BPE(" " + question + "?") + </s> (a
  missing '?' is appended); target = BPE(" " + answer) + </s>, decoder input <s> + answer.
  Questions are first `normalize`d as this project's parser sees them (lower case, no '?').
"""

from __future__ import annotations

from pathlib import Path

from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

from vrs.ofa.tokenizer import TokenizerFile
from vrs.question_vocab import normalize

BOS, PAD, EOS, UNK, MASK = "<s>", "<pad>", "</s>", "<unk>", "<mask>"
NUM_CODES, NUM_BINS = 8192, 1000
LIST_SEPARATOR = ", "


def _token_range(tokenizer: Tokenizer, pattern: str, count: int) -> range:
    """The ids of pattern.format(0..count-1), which must be consecutive."""
    ids = [tokenizer.token_to_id(pattern.format(i)) for i in range(count)]
    missing = [pattern.format(i) for i, t in enumerate(ids) if t is None]
    if missing:
        raise ValueError(f"tokenizer lacks {len(missing)} of {pattern.format('N')}, "
                         f"e.g. {missing[0]}")
    if ids != list(range(ids[0], ids[0] + count)):
        raise ValueError(f"{pattern.format('N')} ids are not consecutive")
    return range(ids[0], ids[0] + count)


class OfficialTokenizer(TokenizerFile):
    """A `tokenizers.Tokenizer` laid out as OFA's, with the ids the model and trie need."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        ids = {t: tokenizer.token_to_id(t) for t in (BOS, PAD, EOS, UNK, MASK)}
        missing = [t for t, i in ids.items() if i is None]
        if missing:
            raise ValueError(f"tokenizer lacks the special tokens {missing}")
        self.bos_id, self.pad_id, self.eos_id = ids[BOS], ids[PAD], ids[EOS]
        self.unk_id, self.mask_id = ids[UNK], ids[MASK]
        self.special_ids = frozenset(ids.values())
        self.code_tokens = _token_range(tokenizer, "<code_{}>", NUM_CODES)
        self.location_tokens = _token_range(tokenizer, "<bin_{}>", NUM_BINS)
        self.separator_id = self._separator()

    @classmethod
    def from_files(cls, vocab: str | Path, merges: str | Path) -> OfficialTokenizer:
        """Build from an official checkpoint's vocab.json and merges.txt."""
        tok = Tokenizer(models.BPE.from_file(str(vocab), str(merges)))
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        tok.add_special_tokens([AddedToken(t, special=True, normalized=False)
                                for t in (BOS, PAD, EOS, UNK, MASK)])
        for pattern, count in (("<code_{}>", NUM_CODES), ("<bin_{}>", NUM_BINS)):
            tok.add_tokens([AddedToken(pattern.format(i), normalized=False, lstrip=True)
                            for i in range(count)])
        return cls(tok)

    @property
    def location_ids(self) -> list[int]:
        """Ids of "<bin_0>" .. "<bin_999>" (as `QuestionTokenizer.location_ids`)."""
        return list(self.location_tokens)

    @property
    def location_bins(self) -> int:
        """How many location tokens the vocabulary holds."""
        return len(self.location_tokens)

    @property
    def vocab_size(self) -> int:
        """Number of token ids, added tokens included."""
        return self.tokenizer.get_vocab_size(with_added_tokens=True)

    def _separator(self) -> int:
        """The id of ',' between list items ("stand, stand" must be stand + ',' + stand)."""
        ids = self.encode_answer(f"stand{LIST_SEPARATOR}stand")
        if len(ids) != 3 or ids[0] != ids[2]:
            raise ValueError(f"the list separator {LIST_SEPARATOR!r} is not one token: {ids}")
        return ids[1]

    def location_token(self, coordinate: float, size: float) -> int:
        """The id of the bin of a coordinate (px) along an image side of `size` px."""
        if not 0 <= coordinate <= size:
            raise ValueError(f"coordinate {coordinate} outside [0, {size}]")
        return self.location_tokens[round(coordinate / size * (NUM_BINS - 1))]

    @staticmethod
    def _source_text(text: str) -> str:
        return f" {normalize(text)}?"

    def encode_question(self, text: str) -> list[int]:
        """<s> + BPE(" " + normalized question + "?") + </s>, as OFA's VQA source."""
        ids = self.tokenizer.encode(self._source_text(text), add_special_tokens=False).ids
        return [self.bos_id, *ids, self.eos_id]

    def encode_questions(self, texts: list[str]) -> list[list[int]]:
        """`encode_question` for many questions at once (the library batches it)."""
        encodings = self.tokenizer.encode_batch([self._source_text(t) for t in texts],
                                                add_special_tokens=False)
        return [[self.bos_id, *e.ids, self.eos_id] for e in encodings]

    def encode_answer(self, text: str) -> list[int]:
        """BPE(" " + answer), no <s> / </s> (OFA's VQA target before its </s>)."""
        return self.tokenizer.encode(f" {text}", add_special_tokens=False).ids

    def decode(self, ids: list[int]) -> str:
        """Text of token ids (special tokens dropped, the leading space stripped)."""
        return self.tokenizer.decode([i for i in ids if i not in self.special_ids],
                                     skip_special_tokens=False).strip()

