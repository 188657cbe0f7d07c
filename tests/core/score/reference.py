"""An independent computation of the vectors backend's score, written from its definition:
lowercase, sacrebleu's own 13a tokenizer, split on spaces, mean of the known words' vectors
(parsed from the file's text), cosine; in plain Python floats."""

from __future__ import annotations

import math
from pathlib import Path

from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

_TOKENIZE = Tokenizer13a()


def read_vectors(path: Path) -> dict[str, list[float]]:
    vectors: dict[str, list[float]] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    if len(lines[0].split(" ")) == 2:
        lines = lines[1:]
    for line in lines:
        word, *values = line.rstrip(" ").split(" ")
        vectors.setdefault(word, [float(value) for value in values])
    return vectors


def mean_vector(text: str, vectors: dict[str, list[float]]) -> list[float] | None:
    known = [vectors[token] for token in _TOKENIZE(text.lower()).split() if token in vectors]
    if not known:
        return None
    return [sum(column) / len(known) for column in zip(*known)]


def cosine(a: list[float] | None, b: list[float] | None) -> float | None:
    if a is None or b is None:
        return None
    dot = sum(x * y for x, y in zip(a, b))
    norms = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norms if norms else None


def written(score: float | None) -> str:
    """As the score column writes it."""
    if score is None:
        return ""
    text = f"{score:.6f}"
    return "0.000000" if text == "-0.000000" else text


def pair_score(left: str, right: str, vectors: dict[str, list[float]]) -> str:
    return written(cosine(mean_vector(left, vectors), mean_vector(right, vectors)))


def set_member_scores(texts: list[str], vectors: dict[str, list[float]]) -> list[str]:
    means = [mean_vector(text, vectors) for text in texts]
    scores = []
    for at, mean in enumerate(means):
        others = [other for k, other in enumerate(means) if k != at and other is not None]
        if mean is None or not others:
            scores.append("")
            continue
        average = [sum(column) / len(others) for column in zip(*others)]
        scores.append(written(cosine(mean, average)))
    return scores
