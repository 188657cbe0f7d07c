import pytest

from tapaco.normalize import near_identical_key, near_identical_keys, surface_key, surface_keys


@pytest.mark.parametrize("text, key", [
    ("Don’t stop!", "Don't stop."),
    ("‘Hi’, he said…", "'Hi', he said..."),
    ("“Yes” – «no» „maybe“", "Yes - no maybe"),
    ('He said "go!"', "He said go."),
    ("Это «правда»!", "Это правда."),
    ("我饿了！", "我饿了."),
    ("Plain text.", "Plain text."),
])
def test_surface_key(text, key):
    assert surface_key(text) == key


@pytest.mark.parametrize("text, key", [
    ("Don't stop!", "dontstop"),
    ("DON’T  STOP", "dontstop"),
    ("Ｔｏｍ！", "tom"),
    ("Straße, bitte.", "strassebitte"),
    ("Это «правда»!", "этоправда"),
    ("我饿了！", "我饿了"),
])
def test_near_identical_key(text, key):
    assert near_identical_key(text) == key


def test_surface_keys_of_many_texts_are_the_keys_of_each():
    texts = ["Don’t stop!", "‘Hi’, he said…", 'He said "go!"', "我饿了！", "", "¿Qué?", "a\nb"]
    assert surface_keys(texts) == ["Don't stop.", "'Hi', he said...", "He said go.", "我饿了.",
                                   "", "?Qué?", "a\nb"]
    assert surface_keys([]) == []


def reference_surface_hash(text: str) -> int:
    """The surface hash written out with Python ints: sum of the key's UTF-8 bytes times powers
    of the base modulo 2**64, xor its length times the length constant, as a signed int64."""
    data = surface_key(text).encode("utf-8", "surrogatepass")
    total = sum(byte * pow(0x100000001B3, i, 2**64) for i, byte in enumerate(data)) % 2**64
    value = total ^ (len(data) * 0x9E3779B97F4A7C15 % 2**64)
    return value - 2**64 if value >= 2**63 else value


def test_surface_hashes_are_the_same_in_every_interpreter_and_batch(monkeypatch):
    """Hashes made by another interpreter (another str hash salt) equal this one's, whatever the
    batches; texts with newlines are hashed one by one; each hash is the written-out one."""
    import os
    import subprocess
    import sys

    import numpy as np

    from tapaco import normalize
    from tapaco.graph import surface_edges
    from tapaco.normalize import SurfaceHashes

    texts = ["Go!", "Go.", "“Go.”", "", "a\nb", "Tom’s «book»", "\ud800", "x" * 3000, "日本語！"]
    here = SurfaceHashes.of(texts)
    assert here.hashes.tolist() == [reference_surface_hash(text) for text in texts]
    probe = ("from tapaco.normalize import SurfaceHashes; import sys; "
             f"print(SurfaceHashes.of({texts!r}).hashes.tolist())")
    for seed in ("1", "2"):
        run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                             env=os.environ | {"PYTHONHASHSEED": seed}, check=True)
        assert run.stdout.strip() == str(here.hashes.tolist())
    monkeypatch.setattr(normalize, "_HASH_TEXTS", 2)
    batched = SurfaceHashes.of(iter(texts))
    assert np.array_equal(batched.hashes, here.hashes)
    assert np.array_equal(batched.nonempty, here.nonempty)
    parts = SurfaceHashes.concatenate([SurfaceHashes.of(texts[:4]), SurfaceHashes.of(texts[4:])])
    assert np.array_equal(parts.hashes, here.hashes)
    assert surface_edges(np.zeros(4, np.int64), texts[:4]).tolist() == [[1, 0], [2, 0]]


def test_near_identical_keys_drop_what_the_regex_class_of_punctuation_and_space_matches():
    """The translate table against the definition: NFKC, casefold, then every match of the
    regex module's [\\p{P}\\s] removed; on random texts rich in punctuation and spaces of every
    block (each text holds one character above ASCII, so it takes the Unicode path)."""
    import random
    import sys
    import unicodedata

    import regex

    rng = random.Random(4)
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    marked = regex.findall(r"[\p{P}\s\p{Mn}\p{Lu}]", every)
    pool = [chr(code) for code in rng.sample(range(sys.maxunicode + 1), 20000)] + marked
    pattern = regex.compile(r"[\p{P}\s]+")
    for _ in range(3000):
        text = "é" + "".join(rng.choices(pool, k=rng.randint(0, 12)))
        expected = pattern.sub("", unicodedata.normalize("NFKC", text).casefold())
        assert near_identical_key(text) == expected, ascii(text)


@pytest.mark.parametrize("texts", [
    [],
    [""],
    ["", "", "Ｔｏｍ！"],
    ["Don't stop!", "A\x1cB c", "Tom."],
    ["Это «правда»!", "Straße, bitte.", "ﬁ ‐ ǅ", "我饿了！"],
    ["Go!", "Это «правда»!", "", "DON’T  STOP", "x\x00y", "é"],
    ["Go!", "lone \ud800 surrogate", "Это"],
])
def test_near_identical_keys_of_many_texts_are_the_keys_of_each(texts):
    assert near_identical_keys(texts) == [near_identical_key(text) for text in texts]


@pytest.mark.parametrize("batch", [7, 1 << 16])
def test_near_identical_keys_of_random_mixed_texts_are_the_keys_of_each(monkeypatch, batch):
    import random

    from tapaco import normalize

    monkeypatch.setattr(normalize, "_BATCH_TEXTS", batch)

    rng = random.Random(9)
    pool = list("aZ9 ,.!?'-\t\n\x1c\x1f") + ["é", "Ǆ", "ß", "ﬃ", "«", "。", "\u00a0", "\u3000",
                                             "\u0301", "ｱ", "𝐀", "İ", "ς", "Σ"]
    texts = ["".join(rng.choices(pool, k=rng.randint(0, 8))) for _ in range(5000)]
    assert near_identical_keys(texts) == [near_identical_key(text) for text in texts]


def test_surface_hashes_say_which_keys_are_empty():
    from tapaco.normalize import SurfaceHashes

    texts = ["", "“”", '""', "Go!", " ", "!", "«»"]
    hashed = SurfaceHashes.of(texts)
    keys = [surface_key(text) for text in texts]
    assert hashed.nonempty.tolist() == [key != "" for key in keys]
    assert hashed.nonempty.tolist() == [False, False, False, True, True, True, False]
    assert hashed.hashes.tolist() == [reference_surface_hash(text) for text in texts]
