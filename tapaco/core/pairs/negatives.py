"""Hard negatives: for an anchor, the sentences of its language that share the most (rare)
words with it and that the caller's relation says are unrelated to it.

Retrieval is by word postings: the anchor's words are read rarest first, at most `cap`
postings of any word (a word in more sentences is read from a seeded place on, so frequent
words cost no more than rare ones) and `budget` postings in all. A candidate's score is the
sum of the inverse document frequencies, log((n + 1) / df), of the words it was found by; the
best `k` candidates win, ties broken by a seeded key. Unrelated means: the two sentences'
components differ (component -1 is unknown: two unknowns are never taken as unrelated), and
their pivot lists (sorted ids, e.g. the translations each is aligned to) share nothing.
Random negatives (for the overlap statistics) obey the same relation.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tapaco.core.forked import map_on_threads, usable_cores
from tapaco.core.pairs.seeded import seeded_key
from tapaco.core.pairs.words import WordSets

CAP = 32
BUDGET = 256
CHUNK = 1 << 14
RANDOM_TRIES = 64


@njit(nogil=True, cache=True)
def _disjoint(values, a_start, a_end, b_start, b_end) -> bool:
    while a_start < a_end and b_start < b_end:
        if values[a_start] == values[b_start]:
            return False
        if values[a_start] < values[b_start]:
            a_start += 1
        else:
            b_start += 1
    return True


@njit(nogil=True, cache=True)
def unrelated(component, pivot_offsets, pivots, a, b) -> bool:
    """Whether sentences a and b are known to be unrelated (see the module's notes)."""
    if a == b or component[a] == component[b] or (component[a] < 0 and component[b] < 0):
        return False
    return _disjoint(pivots, pivot_offsets[a], pivot_offsets[a + 1], pivot_offsets[b],
                     pivot_offsets[b + 1])


@njit(nogil=True, cache=True)
def _best(touched, count, score, k, seed, anchor, out, row):
    """The `k` best of touched[:count] into out[row] (score, then seeded key)."""
    for slot in range(k):
        best, best_score, best_key = -1, -1.0, np.int64(0)
        for t in range(count):
            c = touched[t]
            if c < 0:
                continue
            key = seeded_key(seed, anchor, c)
            if score[c] > best_score or (score[c] == best_score and key < best_key):
                best, best_score, best_key = t, score[c], key
        if best < 0:
            return
        out[row, slot] = touched[best]
        touched[best] = -1


@njit(nogil=True, cache=True)
def _scan(postings, start, df, first, take, anchor, row, component, pivot_offsets, pivots,
          weight, score, stamp, touched, count) -> int:
    """Add `weight` to the unrelated sentences of postings[start + first:] (wrapping round
    the word's `df` postings, `take` of them); returns the new count of touched sentences."""
    for j in range(take):
        at = first + j
        c = postings[start + (at if at < df else at - df)]
        if not unrelated(component, pivot_offsets, pivots, anchor, c):
            continue
        if stamp[c] != row:
            stamp[c], score[c] = row, 0.0
            touched[count] = c
            count += 1
        score[c] += weight
    return count


@njit(nogil=True, cache=True)
def _hard_negatives(offsets, ids, posting_offsets, postings, component, pivot_offsets, pivots,
                    anchors, k, cap, budget, seed):
    n = len(offsets) - 1
    score = np.zeros(n, np.float64)
    stamp = np.full(n, -1, np.int64)
    touched = np.empty(budget, np.int64)
    frequency = np.empty(np.max(np.diff(offsets)) if n else 0, np.int64)
    out = np.full((len(anchors), k), -1, np.int64)
    for row in range(len(anchors)):
        a = anchors[row]
        size = offsets[a + 1] - offsets[a]
        for at in range(size):
            w = ids[offsets[a] + at]
            frequency[at] = posting_offsets[w + 1] - posting_offsets[w]
        count, read = 0, 0
        for w_at in np.argsort(frequency[:size], kind="mergesort"):
            w, df = ids[offsets[a] + w_at], frequency[w_at]
            take = min(df, cap, budget - read)
            if df <= 1:
                continue
            if take <= 0:
                break
            first = seeded_key(seed, a, w) % df if df > take else 0
            count = _scan(postings, posting_offsets[w], df, first, take, a, row, component,
                          pivot_offsets, pivots, np.log((n + 1) / df), score, stamp, touched,
                          count)
            read += take
        _best(touched, count, score, k, seed, a, out, row)
    return out


def hard_negatives(words: WordSets, anchors: np.ndarray, k: int, seed: int,
                   component: np.ndarray, pivot_offsets: np.ndarray | None = None,
                   pivots: np.ndarray | None = None, cap: int = CAP,
                   budget: int = BUDGET) -> np.ndarray:
    """For each anchor (a sentence index), its `k` hard negatives (-1 where fewer were
    found), best first, on the threads the machine has."""
    if pivot_offsets is None:
        pivot_offsets, pivots = np.zeros(words.sentences + 1, np.int64), np.zeros(0, np.int64)
    anchors = np.asarray(anchors, np.int64)
    parts = [anchors[start:start + CHUNK] for start in range(0, len(anchors), CHUNK)]

    def part(chosen: np.ndarray) -> np.ndarray:
        return _hard_negatives(words.offsets, words.ids, words.posting_offsets, words.postings,
                               component, pivot_offsets, pivots, chosen, k, cap, budget, seed)

    found = map_on_threads(part, parts, usable_cores())
    return np.concatenate(found) if found else np.full((0, k), -1, np.int64)


@njit(nogil=True, cache=True)
def _random_negatives(n, component, pivot_offsets, pivots, anchors, seed, tries):
    out = np.full(len(anchors), -1, np.int64)
    for row in range(len(anchors)):
        for attempt in range(tries):
            c = seeded_key(seed, anchors[row], -1 - attempt) % n
            if unrelated(component, pivot_offsets, pivots, anchors[row], c):
                out[row] = c
                break
    return out


def random_negatives(sentences: int, anchors: np.ndarray, seed: int, component: np.ndarray,
                     pivot_offsets: np.ndarray | None = None,
                     pivots: np.ndarray | None = None) -> np.ndarray:
    """For each anchor, a seeded random unrelated sentence (-1 if none was hit)."""
    if pivot_offsets is None:
        pivot_offsets, pivots = np.zeros(sentences + 1, np.int64), np.zeros(0, np.int64)
    return _random_negatives(sentences, component, pivot_offsets, pivots,
                             np.asarray(anchors, np.int64), seed, RANDOM_TRIES)
