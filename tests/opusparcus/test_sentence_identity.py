import pytest

from opusparcus.normalize import normalize_final_punctuation, normalize_sentences


@pytest.mark.parametrize("text, expected", [
    ("Really ? !", "Really ?"), ("Wait ...", "Wait ."), ("Hello", "Hello"), ("Oui .", "Oui ."),
    ("What ?!", "What ?"), ("Stop ! ! !", "Stop ."), ("a ; b :", "a ; b ."), ("Wait …", "Wait ."),
    ("No ; ?", "No ?"), ("3.5 km", "3.5 km"),
])
def test_final_punctuation(text, expected):
    assert normalize_final_punctuation(text) == expected


def test_raw_text_is_moses_tokenised_once_per_sentence():
    assert normalize_sentences(["Don't go!!", "What?!", "Yes..."], "en", tokenized=False) == [
        "Don 't go .", "What ?", "Yes ."]
    assert normalize_sentences(["C' est quoi ?"], "fr", tokenized=True) == ["C' est quoi ?"]


def test_parallel_normalisation_gives_the_serial_result(monkeypatch):
    import opusparcus.normalize as normalize

    texts = [f"Sentence number {n}, isn't it?!" for n in range(50)] + ["Mr. Smith went."]
    serial = normalize_sentences(texts, "en", tokenized=False)
    monkeypatch.setattr(normalize, "PARALLEL_MINIMUM", 10)
    assert normalize_sentences(texts, "en", tokenized=False, workers=2) == serial
    assert serial[0] == "Sentence number 0 , isn 't it ?"
