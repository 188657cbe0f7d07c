"""Agreement between two annotators: Cohen's kappa, shared by Opusparcus pair labels and TaPaCo
set checks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence


def cohen_kappa(pairs: Sequence[tuple[Hashable, Hashable]]) -> float:
    """Cohen's kappa of two annotators' labels (1.0 when both always agree on one label); NaN
    for fewer than two items, where agreement by chance cannot be told from real agreement."""
    if len(pairs) < 2:
        return float("nan")
    observed = sum(a == b for a, b in pairs) / len(pairs)
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(first[label] * second[label] for label in first) / len(pairs) ** 2
    return 1.0 if expected == 1 else (observed - expected) / (1 - expected)
