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
