"""The ranking schemes of Opusparcus (paper section 3) over the pairs of several pivot bitexts.

For a pair (t1, t2) and a bitext L: S_L = sum_f c(t1,f) c(t2,f) / c(f), N_L its links.
- `summed-pmi` (eq. 5, the release's ranking): sum over bitexts of ln(N_L S_L / (c_L(t1) c_L(t2))),
  a bitext where the pair has no common pivot adding 0;
- on the merged bitext (all pivots one corpus; S = sum_L S_L, c(t) = sum_L c_L(t),
  N = sum_L N_L): `joint` S/N (eq. 2), `pmi` ln(N S / (c(t1) c(t2))) (eq. 3), `joint-pmi`
  their product (eq. 4), `conditional` min(S/c(t1), S/c(t2)) (eq. 1 made symmetric).
The expected co-alignment count is S on the merged bitext; `pivots` counts bitexts with S_L > 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from opusparcus.counting import LinkCounts, SharedPairs, count_product, unpack_pairs
from tapaco.core.arrays import ordered_group_sums

SCHEMES = ("summed-pmi", "joint", "pmi", "joint-pmi", "conditional")
FIELDS = ("keys", "summed_pmi", "expected", "pivots", "score")
PIVOTS_TYPE = np.int16  # a pair's number of pivot bitexts: OPUS releases have under 100 languages


@dataclass
class ScoredPairs:
    """Pairs (packed uint64 keys, left code < right code) with the release's fields and a score."""

    keys: np.ndarray
    summed_pmi: np.ndarray
    expected: np.ndarray
    pivots: np.ndarray
    score: np.ndarray

    def __len__(self) -> int:
        return len(self.keys)

    def take(self, chosen: np.ndarray) -> ScoredPairs:
        return ScoredPairs(self.keys[chosen], self.summed_pmi[chosen], self.expected[chosen],
                           self.pivots[chosen], self.score[chosen])


def bitext_pmi(links: int | np.ndarray, shared: np.ndarray, left_count: np.ndarray,
               right_count: np.ndarray) -> np.ndarray:
    """ln(N_L S_L / (c_L(t1) c_L(t2))) of pairs in one bitext (counts of any integer type)."""
    return np.log(links * shared / count_product(left_count, right_count))


def merged_score(scheme: str, shared: np.ndarray, first: np.ndarray, second: np.ndarray,
                 links: int | np.ndarray) -> np.ndarray:
    """A merged-bitext scheme's score from S, c(t1), c(t2) (int64) and N of all bitexts."""
    if scheme == "joint":
        return shared / links
    if scheme == "pmi":
        return np.log(links * shared / (first * second))
    if scheme == "joint-pmi":
        return shared / links * np.log(links * shared / (first * second))
    if scheme == "conditional":
        return np.minimum(shared / first, shared / second)
    raise ValueError(f"unknown scoring scheme {scheme!r}; choose from {', '.join(SCHEMES)}")


def combine_bitexts(keys: np.ndarray, pmi: np.ndarray,
                    shared: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per distinct key (sorted): summed PMI, summed S and the number of bitexts, each sum
    taken over that key's rows alone in the order they come (bitext order), so the engines and
    partitions that see a key's rows together get the same sums."""
    distinct, sizes, (summed_pmi, summed_shared) = ordered_group_sums(keys, pmi, shared)
    return distinct.astype(np.uint64), summed_pmi, summed_shared, sizes


def _joined(per_bitext: list[tuple[SharedPairs, LinkCounts]], name: str,
            empty: np.ndarray) -> np.ndarray:
    """A field of every bitext's pairs in one array, each bitext's own let go."""
    joined = np.concatenate([getattr(pairs, name) for pairs, _ in per_bitext] or [empty])
    for pairs, _ in per_bitext:
        setattr(pairs, name, getattr(pairs, name)[:0].copy())
    return joined


def score_pairs(per_bitext: list[tuple[SharedPairs, LinkCounts]],
                scheme: str = "summed-pmi") -> ScoredPairs:
    """Combine the pairs of every bitext of one split and score them with `scheme`; each
    bitext's pairs are let go once joined (its counts stay)."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scoring scheme {scheme!r}; choose from {', '.join(SCHEMES)}")
    pmi = np.concatenate([bitext_pmi(c.links, p.shared, c.target_count[p.left],
                                     c.target_count[p.right]) for p, c in per_bitext]
                         or [np.zeros(0)])
    joined = [_joined(per_bitext, name, empty) for name, empty in (
        ("keys", np.zeros(0, np.uint64)), ("shared", np.zeros(0)))]
    keys, summed_pmi, shared, pivots = combine_bitexts(joined[0], pmi, joined[1])
    del joined, pmi
    if scheme == "summed-pmi":
        score = summed_pmi
    else:
        left, right = unpack_pairs(keys)
        target_count = np.sum([counts.target_count for _, counts in per_bitext], axis=0)
        links = sum(counts.links for _, counts in per_bitext)
        score = merged_score(scheme, shared, target_count[left], target_count[right], links)
    return ScoredPairs(keys, summed_pmi, shared, pivots.astype(PIVOTS_TYPE), score)
