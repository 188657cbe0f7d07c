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


def _by_hand(text: str) -> str:
    """The rule written out independently: drop trailing tokens made only of . ! ? … ; : and
    end with one "?" if any of them held a "?", else with one "."."""
    tokens = text.split()
    dropped = []
    while tokens and all(character in ".!?…;:" for character in tokens[-1]):
        dropped.append(tokens.pop())
    if dropped:
        tokens.append("?" if any("?" in token for token in dropped) else ".")
    return " ".join(tokens)


def test_the_batch_form_agrees_with_the_rule_on_random_texts():
    import random

    from opusparcus.normalize import normalize_final_punctuations

    rng = random.Random(7)
    alphabets = [list("ab.!?…;: ") + ["x", "?", ".", " ", " "],
                 list("ab.!?…;: ") + ["\t", "\xa0", "\u3000", "\x1c", "\U0001F600", "  "]]
    for alphabet in alphabets:
        texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
                 for _ in range(20000)]
        texts += ["Really ? !", "Wait ...", "Hello", "", "?", ". . .", "a.b .", "Hi..", " a .",
                  "a . ", "a  .", "… ?", ".", "! .", "x! .", " ", "? a", "Что ?!", "a\nb ."]
        assert normalize_final_punctuations(texts) == [_by_hand(text) for text in texts]
