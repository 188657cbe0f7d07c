"""Straightforward dictionary counting of the Opusparcus scores, to check the vectorised code."""

from __future__ import annotations

import math
from collections import Counter, defaultdict


def bitext_statistics(links: list[tuple[str, str]], max_fanout: int | None = None):
    """S(t1,t2) (t1 < t2), c(t), N for one bitext given as (target, pivot) pairs."""
    pair_count = Counter(links)
    target_count = Counter(t for t, _ in links)
    pivot_count = Counter(f for _, f in links)
    targets_of = defaultdict(list)
    for (t, f) in pair_count:
        targets_of[f].append(t)
    shared: dict[tuple[str, str], float] = defaultdict(float)
    for f, targets in targets_of.items():
        if max_fanout is not None and len(targets) > max_fanout:
            continue
        for t1 in targets:
            for t2 in targets:
                if t1 < t2:
                    shared[t1, t2] += pair_count[t1, f] * pair_count[t2, f] / pivot_count[f]
    return shared, target_count, len(links)


def scores(bitexts: dict[str, list[tuple[str, str]]], max_fanout: int | None = None) -> dict:
    """Every scheme for every pair: {(t1, t2): {scheme: value, 'expected': .., 'pivots': ..}}."""
    per_pivot = {pivot: bitext_statistics(links, max_fanout) for pivot, links in bitexts.items()}
    merged_count = Counter()
    merged_links = 0
    for _, counts, links in per_pivot.values():
        merged_count.update(counts)
        merged_links += links
    result = {}
    pairs = {pair for shared, _, _ in per_pivot.values() for pair in shared}
    for t1, t2 in pairs:
        summed, expected, pivots = 0.0, 0.0, 0
        for shared, counts, links in per_pivot.values():
            if (t1, t2) in shared:
                s = shared[t1, t2]
                summed += math.log(links * s / (counts[t1] * counts[t2]))
                expected += s
                pivots += 1
        c1, c2 = merged_count[t1], merged_count[t2]
        pmi = math.log(merged_links * expected / (c1 * c2))
        result[t1, t2] = {
            "summed-pmi": summed, "expected": expected, "pivots": pivots,
            "joint": expected / merged_links, "pmi": pmi,
            "joint-pmi": expected / merged_links * pmi,
            "conditional": min(expected / c1, expected / c2),
        }
    return result
