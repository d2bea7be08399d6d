import pytest

from memadmin.curation import lexical


def test_terms_drop_stop_words_and_stem():
    assert lexical.terms("The user prefers scripting in Python") == ("prefe", "scrip", "pytho")


def test_compounds_meet_their_spelled_out_form():
    assert set(lexical.terms("Nothing is port-forwarded")) >= {"port", "forwa"}


def test_chinese_text_becomes_character_bigrams():
    assert lexical.terms("喜欢喝茶") == ("喜欢", "欢喝", "喝茶")


def test_a_subject_shared_by_every_memory_weighs_little():
    tfidf = lexical.TfIdf(
        ["Alice lives in Lyon.", "Alice is vegetarian.", "Alice has a cat.", "Alice swims."]
    )

    assert tfidf.weight("alice") < tfidf.weight("veget")
    assert tfidf.containment("Alice is vegetarian.", "Alice has a cat.") < 0.4


def test_containment_is_one_when_the_shorter_text_is_inside_the_longer():
    longer = "Alice's cat Miso is an orange tabby."
    tfidf = lexical.TfIdf(["Has a cat called Miso.", longer, "Alice lives in Lyon."])

    assert tfidf.containment("The cat Miso.", longer) == pytest.approx(1.0)
    assert 0.5 < tfidf.containment("Has a cat called Miso.", longer) < 1.0


def test_cjk_share_tells_chinese_from_latin_text():
    assert lexical.cjk_share("林悦喜欢喝乌龙茶") == 1.0
    assert lexical.cjk_share("Lin likes oolong tea") == 0.0
