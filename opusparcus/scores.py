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
import pandas as pd

from opusparcus.counting import LinkCounts, SharedPairs, unpack_pairs

SCHEMES = ("summed-pmi", "joint", "pmi", "joint-pmi", "conditional")


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


def _bitext_pmi(pairs: SharedPairs, counts: LinkCounts) -> np.ndarray:
    denominator = counts.target_count[pairs.left] * counts.target_count[pairs.right]
    return np.log(counts.links * pairs.shared / denominator)


def _merged_score(scheme: str, shared: np.ndarray, left: np.ndarray, right: np.ndarray,
                  per_bitext: list[tuple[SharedPairs, LinkCounts]]) -> np.ndarray:
    target_count = np.sum([counts.target_count for _, counts in per_bitext], axis=0)
    links = sum(counts.links for _, counts in per_bitext)
    first, second = target_count[left], target_count[right]
    if scheme == "joint":
        return shared / links
    if scheme == "pmi":
        return np.log(links * shared / (first * second))
    if scheme == "joint-pmi":
        return shared / links * np.log(links * shared / (first * second))
    if scheme == "conditional":
        return np.minimum(shared / first, shared / second)
    raise ValueError(f"unknown scoring scheme {scheme!r}; choose from {', '.join(SCHEMES)}")


def score_pairs(per_bitext: list[tuple[SharedPairs, LinkCounts]],
                scheme: str = "summed-pmi") -> ScoredPairs:
    """Combine the pairs of every bitext of one split and score them with `scheme`."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scoring scheme {scheme!r}; choose from {', '.join(SCHEMES)}")
    frame = pd.DataFrame({
        "key": np.concatenate([pairs.keys for pairs, _ in per_bitext] or [np.zeros(0, np.uint64)]),
        "pmi": np.concatenate([_bitext_pmi(p, c) for p, c in per_bitext] or [np.zeros(0)]),
        "shared": np.concatenate([p.shared for p, _ in per_bitext] or [np.zeros(0)]),
    })
    grouped = frame.groupby("key", sort=True).agg(pmi=("pmi", "sum"), shared=("shared", "sum"),
                                                  pivots=("pmi", "size"))
    keys = grouped.index.to_numpy(np.uint64)
    summed_pmi = grouped["pmi"].to_numpy(np.float64)
    shared = grouped["shared"].to_numpy(np.float64)
    if scheme == "summed-pmi":
        score = summed_pmi
    else:
        left, right = unpack_pairs(keys)
        score = _merged_score(scheme, shared, left, right, per_bitext)
    return ScoredPairs(keys, summed_pmi, shared, grouped["pivots"].to_numpy(np.int64), score)
