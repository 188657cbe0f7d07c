import pytest

from tapaco.normalize import near_identical_key, surface_key, surface_keys


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
