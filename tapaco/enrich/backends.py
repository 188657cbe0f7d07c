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

A source longer than the model's positions (512 for Marian models) is cut there, as Marian
does, instead of failing. `BackendOptions` checks the settings on creation; `check_model` checks
a folder and the installed libraries without loading anything. torch, transformers, ctranslate2
and sentencepiece are imported lazily; a missing one is a `MissingDependency` that says how to
install the 'enrich' extra.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from tapaco.core.errors import MissingDependency, OptionError
from tapaco.core.json_input import read_json
from tapaco.core.options import check_range

EOS = "</s>"
WORD_START = "\u2581"
BACKENDS = ("auto", "ctranslate2", "transformers")
DEVICES = ("auto", "cpu", "cuda")
# CTranslate2's compute types; transformers runs only the float ones (default: float32)
COMPUTE_TYPES = ("default", "auto", "float32", "float16", "bfloat16", "int8", "int8_float32",
                 "int8_float16", "int8_bfloat16", "int16")
TRANSFORMERS_COMPUTE_TYPES = ("default", "auto", "float32", "float16", "bfloat16")
# positions of a Marian model (OPUS-MT's max_position_embeddings); longer sources are cut there
MARIAN_POSITIONS = 512
MODULES = {"ctranslate2": ("ctranslate2", "sentencepiece"),
           "transformers": ("torch", "transformers", "sentencepiece")}
DESCRIPTIONS = {"ctranslate2": "CTranslate2 model (model.bin)",
                "transformers": "MarianMT checkpoint (config.json and weights)"}


def missing_extra(module: str) -> MissingDependency:
    return MissingDependency(
        f"{module} is not installed; NMT enrichment needs the 'enrich' extra: pip install "
        "'pivot-paraphrase-miner[enrich]' (in a checkout: pip install -e '.[enrich]'; on a "
        "machine without a GPU install torch's CPU build first)")


@dataclass(frozen=True)
class BackendOptions:
    """Which backend runs the model, where, in which precision, and how many sentences each
    decoding call takes at most (the pipeline's token budget cuts batches first)."""

    backend: str = "auto"
    device: str = "auto"
    compute_type: str = "default"
    batch_size: int = 64

    def __post_init__(self) -> None:
        for option, value, allowed in (("--backend", self.backend, BACKENDS),
                                       ("--device", self.device, DEVICES),
                                       ("--compute-type", self.compute_type, COMPUTE_TYPES)):
            if value not in allowed:
                raise OptionError(option, f"expected one of {', '.join(allowed)}, got {value!r}")
        check_range("--batch-size", self.batch_size, 1, whole=True)


class ModelFolderError(ValueError):
    """The model folder is not what the chosen backend reads."""

    def __init__(self, folder: Path, problem: str) -> None:
        self.folder = folder
        self.problem = problem
        super().__init__(f"{folder}: {problem}")


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
        raise missing_extra(name) from exc


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def detect_backend(model_dir: Path) -> str:
    """"ctranslate2" for a CTranslate2 model folder, "transformers" for a MarianMT checkpoint."""
    model_dir = Path(model_dir)
    if (model_dir / "model.bin").is_file():
        return "ctranslate2"
    weights = ("pytorch_model.bin", "model.safetensors", "model.safetensors.index.json")
    if (model_dir / "config.json").is_file() and any((model_dir / w).is_file() for w in weights):
        return "transformers"
    raise ModelFolderError(model_dir, "neither a CTranslate2 model (model.bin) nor a MarianMT "
                           "checkpoint (config.json + pytorch_model.bin/model.safetensors)")


def check_model(model_dir: Path, options: BackendOptions) -> str:
    """The backend that will read `model_dir`, checked without loading anything: the folder
    holds that backend's files and the sentencepiece models, its libraries are installed and
    the compute type is one it runs. Raises ModelFolderError, MissingDependency, OptionError."""
    model_dir = Path(model_dir)
    if not model_dir.is_dir():
        raise ModelFolderError(model_dir, "no such folder (a local MarianMT checkpoint or its "
                               "CTranslate2 conversion)")
    found = detect_backend(model_dir)
    backend = found if options.backend == "auto" else options.backend
    if backend != found:
        raise ModelFolderError(model_dir, f"is a {DESCRIPTIONS[found]}, not a "
                               f"{DESCRIPTIONS[backend]}; use --backend {found} (or auto)")
    needed = ["source.spm", "target.spm"] + (["vocab.json"] if backend == "transformers" else [])
    missing = [name for name in needed if not (model_dir / name).is_file()]
    if missing:
        raise ModelFolderError(model_dir, f"has no {', '.join(missing)} (a Marian model's "
                               "sentencepiece files; ct2-transformers-converter --copy_files "
                               "source.spm target.spm copies them)")
    for module in MODULES[backend]:
        if not _installed(module):
            raise missing_extra(module)
    if backend == "transformers" and options.compute_type not in TRANSFORMERS_COMPUTE_TYPES:
        raise OptionError("--compute-type", f"{options.compute_type} is CTranslate2's; the "
                          f"transformers backend runs {', '.join(TRANSFORMERS_COMPUTE_TYPES)}")
    return backend


def resolve_device(backend: str, device: str = "auto") -> str:
    """"auto" => "cuda" when the backend sees a GPU, else "cpu"; "cuda" needs a GPU."""
    if backend == "ctranslate2":
        has_gpu = _import("ctranslate2").get_cuda_device_count() > 0
    else:
        has_gpu = _import("torch").cuda.is_available()
    if device == "cuda" and not has_gpu:
        raise OptionError("--device", f"cuda: no CUDA device is visible to {backend}; use "
                          "--device cpu (or auto)")
    if device != "auto":
        return device
    return "cuda" if has_gpu else "cpu"


def resolve_compute_type(device: str, compute_type: str = "default") -> str:
    """CTranslate2 compute type: "default" => int8 on CPU, float16 on CUDA (when supported)."""
    supported = _import("ctranslate2").get_supported_compute_types(device)
    if compute_type not in ("default", "auto"):
        if compute_type not in supported:
            raise OptionError("--compute-type", f"{compute_type} is not supported on {device} "
                              f"here (supported: {', '.join(sorted(supported))})")
        return compute_type
    if compute_type == "auto":
        return "auto"
    wanted = "float16" if device == "cuda" else "int8"
    return wanted if wanted in supported else "default"


def load_translator(model_dir: Path, options: BackendOptions | None = None,
                    **settings: Any) -> Translator:
    """Load a MarianMT checkpoint or its CTranslate2 conversion from a local folder.

    `options` or the same fields as keywords (`backend`, `device`, `compute_type`,
    `batch_size`); the folder is checked first (`check_model`).
    """
    options = options or BackendOptions(**settings)
    translator = (CTranslate2Translator if check_model(model_dir, options) == "ctranslate2"
                  else TransformersTranslator)
    return translator(Path(model_dir), options.device, options.compute_type, options.batch_size)


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


class _GroupedTranslator:
    """Translate by groups of sources sharing their suppressed words, in chunks of batch_size:
    both libraries apply a ban to a whole batch."""

    batch_size: int

    def translate(self, texts: list[str], beam_size: int = 4, num_hypotheses: int = 1,
                  suppressed_words: list[list[str]] | None = None,
                  max_length: int = 256) -> list[list[Hypothesis]]:
        if beam_size < 1 or num_hypotheses < 1:
            raise ValueError("beam_size and num_hypotheses must be >= 1")
        beam = max(beam_size, num_hypotheses)
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
        limit = MARIAN_POSITIONS - 1  # room for </s>
        source = [self.pieces.encode(text)[:limit] + [EOS] for text in texts]
        outputs = self.model.translate_batch(
            source, beam_size=beam, num_hypotheses=num_hypotheses,
            suppress_sequences=constraints, max_decoding_length=max_length,
            min_decoding_length=0, length_penalty=1.0, return_scores=True,
            max_batch_size=self.batch_size, max_input_length=0)
        return [[Hypothesis(self.pieces.decode(h), float(score))
                 for h, score in zip(output.hypotheses, output.scores)] for output in outputs]


def _ct2_target_vocabulary(model_dir: Path) -> frozenset[str]:
    """Target tokens of a CTranslate2 model folder (shared or target vocabulary, json or txt)."""
    for stem in ("shared_vocabulary", "target_vocabulary"):
        if (model_dir / f"{stem}.json").is_file():
            tokens = read_json(model_dir / f"{stem}.json")
            if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
                raise ModelFolderError(model_dir, f"{stem}.json is not a list of tokens")
            return frozenset(tokens)
        if (model_dir / f"{stem}.txt").is_file():
            text = (model_dir / f"{stem}.txt").read_text(encoding="utf-8")
            return frozenset(text.splitlines())
    raise ModelFolderError(model_dir, "no shared_vocabulary or target_vocabulary file")


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
        self.max_source_length = int(getattr(model.config, "max_position_embeddings", 0)
                                     or MARIAN_POSITIONS)

    def _constraints(self, words: Sequence[str]) -> list[list[int]]:
        vocab = self.tokenizer.get_vocab()
        sequences = suppress_sequences(self.pieces, words, vocab)
        return [[self.pad_id]] + [[vocab[p] for p in sequence] for sequence in sequences]

    def _decode(self, texts: list[str], beam: int, num_hypotheses: int,
                bad_words: list[list[int]], max_length: int) -> list[list[Hypothesis]]:
        batch = self.tokenizer(texts, return_tensors="pt", padding=True, truncation=True,
                               max_length=self.max_source_length).to(self.device)
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
