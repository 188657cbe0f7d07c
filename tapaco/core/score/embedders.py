"""The two backends of the paraphrase score, each an :class:`Embedder` turning sentences into
vectors, and :func:`open_embedder`, which picks one from what `--model` names.

- **vectors** (a word-vector file; numpy only): a sentence is lowercased (`str.lower`),
  tokenized by sacrebleu's 13a tokenizer and split on spaces; its vector is the mean of its
  tokens' vectors, tokens the file does not hold skipped (ParaNMT's averaged word embeddings).
  A sentence with no known token has no vector.
- **sentence-transformers** (a model folder holding `modules.json`; the `score` extra): the
  model's own `encode`, with its pooling and normalisation, batched by length.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
import pandas as pd

from tapaco.core.errors import InputError, OptionError, usage_error
from tapaco.core.forked import map_on_threads, usable_cores
from tapaco.core.interruptible import in_background
from tapaco.core.score.embedding_kernels import pair_cosines, set_cosines
from tapaco.core.score.similarity import EmbeddingCache, pair_scores, set_scores
from tapaco.core.score.word_vectors import WordVectors, read_word_vectors
from tapaco.core.tokenize_13a import token_ids
from tapaco.core.versions import library_versions

BACKENDS = ("vectors", "sentence-transformers")
DEVICES = ("auto", "cpu", "cuda")


class Embedder(Protocol):
    """Sentences to scores: of pairs (`left[k]`, `right[k]`) and of set members (set s: texts
    `set_offsets[s]` to `set_offsets[s + 1]`); NaN where there is no score."""

    backend: str
    model: Path

    def pair_scores(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray: ...

    def set_scores(self, texts: Sequence[str], set_offsets: np.ndarray) -> np.ndarray: ...

    def description(self) -> dict: ...


@dataclass
class VectorsEmbedder:
    """The vectors backend over a word-vector file read once; the cosines are computed by
    kernels on all cores, from each sentence's word rows."""

    model: Path
    vectors: WordVectors = field(repr=False)
    workers: int = field(default_factory=usable_cores)
    backend: str = "vectors"

    def pair_scores(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        codes, distinct = pd.factorize(pd.Series([*left, *right], dtype=object), sort=False)
        rows, offsets = self._word_rows(distinct.tolist())
        first, second = codes[:len(left)], codes[len(left):]
        words = np.diff(offsets)

        def part(bound: tuple[int, int]) -> np.ndarray:
            chosen = slice(*bound)
            return in_background(pair_cosines, rows, offsets, self.vectors.matrix, first[chosen],
                                 second[chosen], size=int(words[first[chosen]].sum()
                                                          + words[second[chosen]].sum()))

        parts = map_on_threads(part, _ranges(len(left), self.workers), self.workers)
        return np.concatenate([np.zeros(0), *parts])

    def set_scores(self, texts: Sequence[str], set_offsets: np.ndarray) -> np.ndarray:
        rows, offsets = self._word_rows(list(texts))
        return in_background(set_cosines, rows, offsets, self.vectors.matrix, set_offsets,
                             size=len(rows))

    def _word_rows(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Each text's words (lowercased, 13a tokens) as rows of the matrix (-1: unknown), and
        the texts' offsets into them; tokenized in parts on all cores."""
        lowered = [text.lower() for text in texts]
        parts = map_on_threads(lambda bound: token_ids(lowered[bound[0]:bound[1]]),
                               _ranges(len(lowered), self.workers), self.workers)
        rows = [self.vectors.rows(part.tokens())[part.ids] for part in parts]
        starts = np.cumsum([0, *(len(part) for part in rows)])
        offsets = [part.offsets[:-1] + start for part, start in zip(parts, starts)]
        return np.concatenate([np.zeros(0, np.int64), *rows]), \
            np.concatenate([*offsets, starts[-1:]]).astype(np.int64)

    def description(self) -> dict:
        return {"model": str(self.model), "backend": self.backend,
                "words": len(self.vectors.row_of), "dimensions": self.vectors.dimensions,
                "versions": library_versions("numpy", "sacrebleu")}


def _ranges(count: int, parts: int) -> list[tuple[int, int]]:
    cuts = np.linspace(0, count, max(1, min(parts, count)) + 1).astype(int).tolist()
    return list(zip(cuts[:-1], cuts[1:]))


@dataclass
class SentenceTransformersEmbedder:
    """The sentence-transformers backend: the model's own `encode`, each distinct sentence
    encoded once while the cache holds it."""

    model: Path
    device: str
    batch_size: int
    encoder: object = field(repr=False)
    backend: str = "sentence-transformers"

    def __post_init__(self) -> None:
        self.cache = EmbeddingCache(self._encoded)

    def _encoded(self, texts: list[str]) -> np.ndarray:
        return self.encoder.encode(texts, batch_size=self.batch_size, convert_to_numpy=True,
                                   show_progress_bar=False)

    def _dimension(self) -> int:
        """The embedding's size (sentence-transformers 6 renamed the method that says it)."""
        named = getattr(self.encoder, "get_embedding_dimension", None)
        return (named or self.encoder.get_sentence_embedding_dimension)()

    def pair_scores(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        return pair_scores(self.cache, left, right)

    def set_scores(self, texts: Sequence[str], set_offsets: np.ndarray) -> np.ndarray:
        return set_scores(self.cache, texts, set_offsets)

    def description(self) -> dict:
        return {"model": str(self.model), "backend": self.backend, "device": self.device,
                "dimensions": int(self._dimension()),
                "versions": library_versions("sentence-transformers", "torch",
                                             "transformers")}


def backend_of(model: Path) -> str:
    """The backend `model` calls for: a folder holding `modules.json` is a sentence-transformers
    model, a file is a word-vector file."""
    if model.is_dir():
        if (model / "modules.json").is_file():
            return "sentence-transformers"
        raise usage_error(model, "is a folder without modules.json: not a sentence-transformers "
                                 "model folder (a word-vector file is a file)")
    if model.is_file():
        return "vectors"
    raise InputError(model, "not found: --model names a word-vector file or a "
                            "sentence-transformers model folder", kind="missing file")


def open_embedder(model: Path, backend: str | None = None, device: str = "auto",
                  batch_size: int = 256, vectors_cache: Path | None = None) -> Embedder:
    """Load the model `--model` names with the backend it calls for (or `backend`);
    `vectors_cache`: a folder keeping converted copies of word-vector files."""
    found = backend_of(Path(model))
    chosen = backend or found
    if chosen not in BACKENDS:
        raise OptionError("--backend", f"{chosen}: choose one of {', '.join(BACKENDS)}")
    if chosen != found:
        raise OptionError("--backend", f"{chosen} cannot read {model}: it is a "
                                       f"{'model folder' if Path(model).is_dir() else 'file'}")
    if device not in DEVICES:
        raise OptionError("--device", f"{device}: choose one of {', '.join(DEVICES)}")
    if device == "cuda" and chosen == "vectors":
        raise OptionError("--device", "cuda: the vectors backend (a word-vector file) runs on "
                                      "the CPU; --device is for sentence-transformers models")
    if chosen == "vectors":
        return VectorsEmbedder(Path(model), read_word_vectors(Path(model), vectors_cache))
    return _sentence_transformers(Path(model), device, batch_size)


def _sentence_transformers(model: Path, device: str, batch_size: int) -> Embedder:
    try:
        library = importlib.import_module("sentence_transformers")
        torch = importlib.import_module("torch")
    except ImportError as error:
        raise OptionError("--model", f"{model} is a sentence-transformers model: install the "
                                     "'score' extra (pip install "
                                     "'pivot-paraphrase-miner[score]')") from error
    has_gpu = torch.cuda.is_available()
    if device == "cuda" and not has_gpu:
        raise OptionError("--device", "cuda: no CUDA device is visible to torch; use --device "
                                      "cpu (or auto)")
    chosen = "cuda" if device == "auto" and has_gpu else ("cpu" if device == "auto" else device)
    try:
        encoder = library.SentenceTransformer(str(model), device=chosen, local_files_only=True)
    except (OSError, ValueError) as error:
        raise InputError(model, f"cannot be loaded as a sentence-transformers model: "
                                f"{str(error).splitlines()[0]}") from error
    return SentenceTransformersEmbedder(model, chosen, batch_size, encoder)
