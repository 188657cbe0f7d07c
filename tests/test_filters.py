"""Each filter on a hand-made table of sets, with the expected survivors worked out by hand."""

import numpy as np
import pytest
from sacrebleu.metrics import BLEU

from tapaco.core.text_column import TextColumn
from tapaco.filters import FilterOptions, Rows, apply_filters

TEXTS = [
    "Lonely.",                                   # 0: set 0 alone
    "I ate the cheese.", "I eat cheese.",       # 1, 2: set 1
    "Don't stop!", "DON’T STOP.", "Keep going.",  # 3, 4, 5: set 2, 4 near-identical to 3
    "Je suis là.", "Je suis là !",              # 6, 7: set 3 (fr), near-identical pair
    "The cat sleeps on the red mat today.",     # 8: set 4
    "The cat sleeps on the red mat now.",       # 9: BLEU about 75 against 8 -> dropped
    "A dog runs.",                              # 10
]


def _rows(groups, langs, vertices=None):
    vertices = np.arange(len(groups)) if vertices is None else np.asarray(vertices)
    return Rows(vertices, np.asarray(langs), np.asarray(groups))


@pytest.mark.parametrize("workers", [1, 2])
def test_filters_in_order_with_funnel(workers):
    rows = _rows([0, 1, 1, 2, 2, 2, 3, 3, 4, 4, 4], [0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0])
    kept, funnel = apply_filters(rows, TEXTS, ["en", "fr"], FilterOptions(min_sets=1),
                                 workers=workers)
    assert kept.vertex.tolist() == [1, 2, 3, 5, 8, 10]
    steps = {step["step"][:3]: step for step in funnel.steps}
    # every sentence and set gone in a step counts, those of dissolved sets included
    assert steps["(a)"]["sentences_removed"] == 1 and steps["(a)"]["sets_dissolved"] == 1
    assert steps["(c)"]["sentences_removed"] == 3 and steps["(c)"]["sets_dissolved"] == 1
    assert steps["(d)"]["sentences_removed"] == 1 and steps["(d)"]["sets_dissolved"] == 0
    assert steps["(d)"]["per_language"] == {"en": {"sets": 3, "sentences": 6}}


def test_max_set_size_and_min_sets():
    rows = _rows([1, 1, 2, 2, 2], [0, 0, 0, 0, 0], [1, 2, 3, 5, 10])
    kept, _ = apply_filters(rows, TEXTS, ["en"], FilterOptions(max_set_size=2, min_sets=1))
    assert kept.vertex.tolist() == [1, 2]
    kept, funnel = apply_filters(rows, TEXTS, ["en"], FilterOptions(min_sets=3))
    assert kept.vertex.tolist() == [] and funnel.steps[-1]["sets"] == 0


def test_bleu_threshold_is_strictly_greater():
    bleu = BLEU(smooth_method="floor", smooth_value=0.1, effective_order=True)
    score = bleu.sentence_score(TEXTS[9], [TEXTS[8]]).score
    assert 70 < score < 80
    rows = _rows([4, 4], [0, 0], [8, 9])
    kept, _ = apply_filters(rows, TEXTS, ["en"], FilterOptions(bleu_max=score, min_sets=1))
    assert kept.vertex.tolist() == [8, 9]
    kept, _ = apply_filters(rows, TEXTS, ["en"], FilterOptions(bleu_max=score - 1e-9,
                                                                min_sets=1))
    assert kept.vertex.tolist() == []


def test_near_identical_keys_chunked_by_whole_sets(monkeypatch):
    import tapaco.filters

    texts = ["Hello!", "hello", "Bye.", "bye", "HELLO", "Other", "other!", "x"]
    group = np.array([0, 0, 0, 1, 1, 1, 2, 2])
    rows = tapaco.filters.Rows(np.array([0, 1, 2, 4, 3, 5, 6, 7]), np.zeros(8, np.int64), group)
    # set 0: Hello!, hello (dropped), Bye.; set 1: HELLO, bye, Other; set 2: other!, x
    expected = [True, False, True, True, True, True, True, True]
    for size in (1, 2, 3, 1 << 20):
        monkeypatch.setattr(tapaco.filters, "_CHUNK_ROWS", size)
        kept = tapaco.filters._near_identical_kept(group, TextColumn.of(texts), rows.vertex, 2)
        assert kept.tolist() == expected


def test_filters_on_several_threads_decide_as_on_one(monkeypatch):
    """(c) and (d) in many chunks on three threads: same rows and funnel as on one, with
    Chinese (tokenizer zh) and 13a sets."""
    import random

    import tapaco.bleu
    import tapaco.filters

    rng = random.Random(6)
    words = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran", "我", "们", "去", "了"]
    texts = [" ".join(rng.choices(words, k=rng.randint(1, 6))) + rng.choice([".", "!", ""])
             for _ in range(3000)]
    lang = np.array(sorted(rng.choices([0, 1, 2], k=3000)))
    group = lang * 10_000 + np.sort(rng.choices(range(400), k=3000))
    group = np.concatenate([np.sort(group[lang == k]) for k in range(3)])
    rows = tapaco.filters.Rows(np.array(rng.sample(range(3000), 3000)), lang, group)
    options = tapaco.filters.FilterOptions(min_sets=1)
    results = []
    for workers, chunk in ((1, 1 << 20), (3, 50)):
        monkeypatch.setattr(tapaco.filters, "_CHUNK_ROWS", chunk)
        monkeypatch.setattr(tapaco.bleu, "_CHUNK_ROWS", chunk)
        kept, funnel = tapaco.filters.apply_filters(rows, texts, ["cmn", "en", "fr"], options,
                                                    workers=workers)
        results.append((kept.vertex.tolist(), kept.group.tolist(), funnel.steps))
    assert results[0] == results[1]
    steps = {step["step"]: step for step in results[0][2]}
    assert steps["(c) near-identical sentences"]["sentences_removed"] > 0
    assert steps["(d) sentence BLEU over 50"]["sentences_removed"] > 0


def test_bleu_compares_only_with_sentences_that_survive_near_identity():
    texts = ["The cat sleeps on the red mat today.",
             "THE CAT SLEEPS ON THE RED MAT TODAY!",  # near-identical to 0: (c) removes it
             "THE CAT SLEEPS ON THE RED MAT NOW!",    # BLEU high against 1 only
             "A dog runs."]
    from tapaco.normalize import near_identical_key

    assert near_identical_key(texts[0]) == near_identical_key(texts[1])
    bleu = BLEU(smooth_method="floor", smooth_value=0.1, effective_order=True)
    assert bleu.sentence_score(texts[2], [texts[1]]).score > 50
    assert bleu.sentence_score(texts[2], [texts[0]]).score < 50
    kept, _ = apply_filters(_rows([0, 0, 0, 0], [0, 0, 0, 0]), texts, ["en"],
                            FilterOptions(min_sets=1))
    assert kept.vertex.tolist() == [0, 2, 3]


@pytest.mark.parametrize("group", [[], [4], [1, 2, 3], [1, 1, 2], [1, 2, 2], [0, 0, 1, 2, 2, 2, 3],
                                   [7, 7, 7, 7]])
def test_rows_in_pairs_are_those_of_groups_of_two_or_more(group):
    from itertools import groupby

    from tapaco.filters import _in_pairs

    expected = []
    for _, run in groupby(group):
        size = len(list(run))
        expected += [size >= 2] * size
    assert _in_pairs(np.array(group, np.int64)).tolist() == expected
