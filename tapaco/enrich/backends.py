"""Two NMT back-translation backends (MarianMT via transformers, and CTranslate2) behind one API.

``load_translator(model_dir)`` returns a ``Translator`` whose ``translate`` gives, for each source
text, up to ``num_hypotheses`` ``Hypothesis`` objects, best first.

Score: both backends report the *length-normalised log-probability* of a hypothesis, i.e. the sum
of the log-probabilities of the generated target tokens, including the final ``</s>`` (but not
the decoder start token), divided by the number of those tokens. This is exactly what
CTranslate2 returns with ``return_scores=True``, ``length_penalty=1`` and
``min_decoding_length=0`` (a minimum length > 0 renormalises the first step); for transformers it is
recomputed from ``compute_transition_scores`` (beam search scores are already log-softmaxed,
greedy ones are normalised with ``normalize_logits=True``). Decoding uses length penalty 1,
so an output may be empty (just ``</s>``); an output cut at ``max_length`` has no ``</s>`` term.

Negative constraints (ParaBank style): ``suppressed_words[i]`` lists words that must not appear in
the outputs of source ``i``. Each word is mapped to its target-side sentencepiece sequence(s),
with and without the leading "▁", and those sequences are forbidden
(CTranslate2 ``suppress_sequences``, transformers ``bad_words_ids``). Both mechanisms apply to a
whole batch, so sources are grouped by their constraint set before decoding.

torch, transformers, ctranslate2 and sentencepiece are imported lazily.
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

EXTRA_MESSAGE = ("NMT enrichment needs the 'enrich' extra: pip install "
                 "'pivot-paraphrase-miner[enrich]' (and torch==2.13.0 for CPU)")
EOS = "</s>"
WORD_START = "\u2581"


@dataclass
class Hypothesis:
    """One output: detokenised text and its length-normalised log-probability."""

    text: str
    score: float


class Translator(Protocol):
    """What the enrichment pipeline needs from an NMT backend."""

    def translate(self, texts: list[str], beam_size: int = 4, num_hypotheses: int = 1,
                  suppressed_words: list[list[str]] | None = None,
                  max_length: int = 256) -> list[list[Hypothesis]]: ...


def _import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise RuntimeError(EXTRA_MESSAGE) from exc


def detect_backend(model_dir: Path) -> str:
    """"ctranslate2" for a CTranslate2 model folder, "transformers" for a MarianMT checkpoint."""
    model_dir = Path(model_dir)
    if (model_dir / "model.bin").is_file():
        return "ctranslate2"
    weights = ("pytorch_model.bin", "model.safetensors", "model.safetensors.index.json")
    if (model_dir / "config.json").is_file() and any((model_dir / w).is_file() for w in weights):
        return "transformers"
    raise ValueError(f"{model_dir}: neither a CTranslate2 model (model.bin) nor a MarianMT "
                     "checkpoint (config.json + pytorch_model.bin/model.safetensors)")


def resolve_device(backend: str, device: str = "auto") -> str:
    """"auto" => "cuda" when the backend sees a GPU, else "cpu"; other values pass through."""
    if device != "auto":
        return device
    if backend == "ctranslate2":
        has_gpu = _import("ctranslate2").get_cuda_device_count() > 0
    else:
        has_gpu = _import("torch").cuda.is_available()
    return "cuda" if has_gpu else "cpu"


def resolve_compute_type(device: str, compute_type: str = "default") -> str:
    """CTranslate2 compute type: "default" => int8 on CPU, float16 on CUDA (when supported)."""
    if compute_type != "default":
        return compute_type
    wanted = "float16" if device == "cuda" else "int8"
    supported = _import("ctranslate2").get_supported_compute_types(device)
    return wanted if wanted in supported else "default"


def load_translator(model_dir: Path, backend: str = "auto", device: str = "auto",
                    compute_type: str = "default") -> Translator:
    """Load a MarianMT checkpoint or its CTranslate2 conversion from a local folder."""
    model_dir = Path(model_dir)
    if backend == "auto":
        backend = detect_backend(model_dir)
    if backend == "ctranslate2":
        return CTranslate2Translator(model_dir, device, compute_type)
    if backend == "transformers":
        return TransformersTranslator(model_dir, device, compute_type)
    raise ValueError(f"unknown backend {backend!r}: use 'auto', 'transformers' or 'ctranslate2'")


class SentencePieces:
    """Source/target sentencepiece models of a Marian-style model folder."""

    def __init__(self, model_dir: Path) -> None:
        spm = _import("sentencepiece")
        self.source = spm.SentencePieceProcessor(model_file=str(model_dir / "source.spm"))
        self.target = spm.SentencePieceProcessor(model_file=str(model_dir / "target.spm"))

    def encode(self, text: str) -> list[str]:
        return self.source.encode(text, out_type=str)

    def decode(self, pieces: Sequence[str]) -> str:
        return self.target.decode_pieces([p for p in pieces if p != EOS])

    def word_sequences(self, word: str) -> list[list[str]]:
        """Target piece sequences of `word`: word-initial ("▁word") and word-internal."""
        pieces = self.target.encode(word.strip(), out_type=str)
        if not pieces:
            return []
        first = pieces[0].removeprefix(WORD_START)
        inner = ([first] if first else []) + pieces[1:]
        return [pieces] if inner == pieces or not inner else [pieces, inner]


def suppress_sequences(pieces: SentencePieces, words: Sequence[str],
                       vocabulary: Container[str]) -> list[list[str]]:
    """Forbidden target piece sequences for `words` (in-vocabulary pieces only), deduplicated."""
    seen: dict[tuple[str, ...], None] = {}
    for word in words:
        for sequence in pieces.word_sequences(word):
            if all(piece in vocabulary for piece in sequence):
                seen.setdefault(tuple(sequence), None)
    return [list(s) for s in seen]


def constraint_groups(n: int, suppressed_words: list[list[str]] | None
                      ) -> dict[tuple[str, ...], list[int]]:
    """Indices of the sources grouped by their (sorted, deduplicated) suppressed words."""
    if suppressed_words is not None and len(suppressed_words) != n:
        raise ValueError(f"suppressed_words has {len(suppressed_words)} entries for {n} texts")
    groups: dict[tuple[str, ...], list[int]] = {}
    for i in range(n):
        words = tuple(sorted(set(suppressed_words[i]))) if suppressed_words else ()
        groups.setdefault(words, []).append(i)
    return groups


def _chunks(indices: list[int], size: int) -> Iterator[list[int]]:
    for start in range(0, len(indices), size):
        yield indices[start:start + size]


def _check(texts: list[str], beam_size: int, num_hypotheses: int) -> int:
    if beam_size < 1 or num_hypotheses < 1:
        raise ValueError("beam_size and num_hypotheses must be >= 1")
    return max(beam_size, num_hypotheses)


class _GroupedTranslator:
    """Translate by groups of sources sharing their suppressed words, in chunks of batch_size:
    both libraries apply a ban to a whole batch."""

    batch_size: int

    def translate(self, texts: list[str], beam_size: int = 4, num_hypotheses: int = 1,
                  suppressed_words: list[list[str]] | None = None,
                  max_length: int = 256) -> list[list[Hypothesis]]:
        beam = _check(texts, beam_size, num_hypotheses)
        results: list[list[Hypothesis]] = [[] for _ in texts]
        for words, indices in constraint_groups(len(texts), suppressed_words).items():
            constraints = self._constraints(words)
            for chunk in _chunks(indices, self.batch_size):
                outputs = self._decode([texts[i] for i in chunk], beam, num_hypotheses,
                                       constraints, max_length)
                for i, hypotheses in zip(chunk, outputs):
                    results[i] = hypotheses
        return results

    def _constraints(self, words: Sequence[str]) -> Any:
        raise NotImplementedError

    def _decode(self, texts: list[str], beam: int, num_hypotheses: int, constraints: Any,
                max_length: int) -> list[list[Hypothesis]]:
        raise NotImplementedError


class CTranslate2Translator(_GroupedTranslator):
    """A CTranslate2 conversion of a MarianMT model (model.bin + source.spm/target.spm)."""

    def __init__(self, model_dir: Path, device: str = "auto", compute_type: str = "default",
                 batch_size: int = 64, inter_threads: int = 1, intra_threads: int = 0) -> None:
        ctranslate2 = _import("ctranslate2")
        self.device = resolve_device("ctranslate2", device)
        self.compute_type = resolve_compute_type(self.device, compute_type)
        self.pieces = SentencePieces(Path(model_dir))
        self.batch_size = batch_size
        self.vocabulary = _ct2_target_vocabulary(Path(model_dir))
        self.model = ctranslate2.Translator(
            str(model_dir), device=self.device, compute_type=self.compute_type,
            inter_threads=inter_threads, intra_threads=intra_threads)

    def _constraints(self, words: Sequence[str]) -> list[list[str]] | None:
        return suppress_sequences(self.pieces, words, self.vocabulary) or None

    def _decode(self, texts: list[str], beam: int, num_hypotheses: int,
                constraints: list[list[str]] | None, max_length: int) -> list[list[Hypothesis]]:
        source = [self.pieces.encode(text) + [EOS] for text in texts]
        outputs = self.model.translate_batch(
            source, beam_size=beam, num_hypotheses=num_hypotheses,
            suppress_sequences=constraints, max_decoding_length=max_length,
            min_decoding_length=0, length_penalty=1.0, return_scores=True,
            max_batch_size=self.batch_size)
        return [[Hypothesis(self.pieces.decode(h), float(score))
                 for h, score in zip(output.hypotheses, output.scores)] for output in outputs]


def _ct2_target_vocabulary(model_dir: Path) -> frozenset[str]:
    """Target tokens of a CTranslate2 model folder (shared or target vocabulary, json or txt)."""
    for stem in ("shared_vocabulary", "target_vocabulary"):
        if (model_dir / f"{stem}.json").is_file():
            text = (model_dir / f"{stem}.json").read_text(encoding="utf-8")
            return frozenset(json.loads(text))
        if (model_dir / f"{stem}.txt").is_file():
            text = (model_dir / f"{stem}.txt").read_text(encoding="utf-8")
            return frozenset(text.splitlines())
    raise ValueError(f"{model_dir}: no shared_vocabulary or target_vocabulary file")


class TransformersTranslator(_GroupedTranslator):
    """A MarianMT checkpoint run with transformers/torch."""

    def __init__(self, model_dir: Path, device: str = "auto", compute_type: str = "default",
                 batch_size: int = 64) -> None:
        torch = _import("torch")
        transformers = _import("transformers")
        _import("sentencepiece")
        self.torch = torch
        self.device = resolve_device("transformers", device)
        self.batch_size = batch_size
        self.tokenizer = transformers.MarianTokenizer.from_pretrained(str(model_dir))
        model = transformers.MarianMTModel.from_pretrained(str(model_dir))
        dtype = {"float16": torch.float16, "bfloat16": torch.bfloat16}.get(compute_type)
        self.model = (model.to(dtype) if dtype else model).to(self.device).eval()
        self.pieces = SentencePieces(Path(model_dir))
        self.pad_id = self.tokenizer.pad_token_id

    def _constraints(self, words: Sequence[str]) -> list[list[int]]:
        vocab = self.tokenizer.get_vocab()
        sequences = suppress_sequences(self.pieces, words, vocab)
        return [[self.pad_id]] + [[vocab[p] for p in sequence] for sequence in sequences]

    def _decode(self, texts: list[str], beam: int, num_hypotheses: int,
                bad_words: list[list[int]], max_length: int) -> list[list[Hypothesis]]:
        batch = self.tokenizer(texts, return_tensors="pt", padding=True).to(self.device)
        with self.torch.inference_mode():
            out = self.model.generate(
                **batch, num_beams=beam, num_return_sequences=num_hypotheses, do_sample=False,
                max_new_tokens=max_length, bad_words_ids=bad_words, length_penalty=1.0,
                forced_eos_token_id=None, output_scores=True, return_dict_in_generate=True,
                **({"early_stopping": True} if beam > 1 else {}))
        scores = self._mean_logprobs(out, beam)
        sequences = out.sequences[:, 1:]
        decoded = self.tokenizer.batch_decode(sequences, skip_special_tokens=True)
        hypotheses = [Hypothesis(t, s) for t, s in zip(decoded, scores)]
        return [sorted(hypotheses[k:k + num_hypotheses], key=lambda h: -h.score)
                for k in range(0, len(hypotheses), num_hypotheses)]

    def _mean_logprobs(self, out: Any, beam: int) -> list[float]:
        """Sum of generated-token log-probs (</s> included, padding excluded) / token count."""
        transition = self.model.compute_transition_scores(
            out.sequences, out.scores, getattr(out, "beam_indices", None),
            normalize_logits=beam == 1)
        generated = out.sequences[:, 1:1 + transition.shape[1]]
        mask = generated != self.pad_id
        transition = transition.masked_fill(~mask, 0.0)
        totals = transition.sum(dim=1) / mask.sum(dim=1).clamp(min=1)
        return [float(t) if math.isfinite(float(t)) else -math.inf for t in totals.tolist()]
