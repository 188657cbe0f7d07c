#!/usr/bin/env python3
"""Benchmark TaPaCo's BLEU filter (`tapaco.bleu.bleu_keep_mask`) against sacrebleu pair by pair.

Builds synthetic paraphrase sets (5-12 words from a Zipfian vocabulary, half of each set near
copies of its first sentence, sizes mostly 2-10), times the vectorised keep mask on all of them,
and times sacrebleu's sentence BLEU on a sample of the same pairs to extrapolate the pairwise
cost. Also checks that both give the same decisions on a subset.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tapaco.bleu import bleu_keep_mask, sentence_bleu


def synthetic_sets(rows: int, seed: int) -> tuple[np.ndarray, list[str]]:
    """Group ids (contiguous) and texts of about `rows` sentences."""
    rng = np.random.default_rng(seed)
    vocabulary = [f"w{n}" for n in range(5000)]
    weights = 1 / np.arange(1, 5001)
    weights /= weights.sum()
    groups, texts = [], []
    group = 0
    while len(texts) < rows:
        size = int(min(rng.zipf(1.6) + 1, 100))
        base = list(rng.choice(vocabulary, int(rng.integers(5, 13)), p=weights))
        for member in range(size):
            words = list(base) if member % 2 else list(
                rng.choice(vocabulary, int(rng.integers(5, 13)), p=weights))
            if member % 2 and len(words) > 2:
                words[int(rng.integers(len(words)))] = vocabulary[int(rng.integers(5000))]
            texts.append(" ".join(words).capitalize() + rng.choice([".", "?", "!"]))
            groups.append(group)
        group += 1
    return np.array(groups, np.int64), texts


def pair_count(groups: np.ndarray) -> int:
    sizes = np.bincount(groups)
    return int((sizes * (sizes - 1) // 2).sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--sample-pairs", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    groups, texts = synthetic_sets(arguments.rows, arguments.seed)
    pairs = pair_count(groups)
    start = time.perf_counter()
    mask = bleu_keep_mask(groups, texts, "13a")
    vectorised = time.perf_counter() - start
    rng = np.random.default_rng(arguments.seed)
    sample = rng.integers(0, len(texts) - 1, arguments.sample_pairs)
    start = time.perf_counter()
    for row in sample.tolist():
        sentence_bleu(texts[row + 1], texts[row])
    per_pair = (time.perf_counter() - start) / len(sample)
    check = slice(0, int(np.searchsorted(groups, groups[min(len(groups) - 1, 5_000)])))
    reference = np.ones(check.stop, bool)
    for j in range(check.stop):
        earlier = range(j - 1, -1, -1)
        for i in (i for i in earlier if groups[i] == groups[j]):
            if reference[i] and sentence_bleu(texts[j], texts[i]) > 50:
                reference[j] = False
                break
    same = bool((reference == mask[check]).all())
    print(f"{len(texts):,} sentences in {groups[-1] + 1:,} sets, {pairs:,} same-set pairs")
    print(f"bleu_keep_mask: {vectorised:.1f} s ({pairs / vectorised:,.0f} pairs/s), "
          f"kept {mask.sum():,}")
    print(f"sacrebleu pair by pair: {per_pair * 1e6:.1f} us/pair -> {per_pair * pairs:.0f} s "
          f"for all pairs ({per_pair * pairs / vectorised:.0f}x slower)")
    print(f"same decisions as the pairwise walk on the first {check.stop:,} rows: {same}")


if __name__ == "__main__":
    main()
