import unicodedata

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from memadmin.curation.detection.candidates.counts import Counts
from memadmin.curation.detection.reading import lexical, tokens


def test_terms_drop_stop_words_and_stem():
    assert lexical.terms("The user prefers scripting in Python") == ("prefe", "scrip", "pytho")


def test_compounds_meet_their_spelled_out_form():
    assert set(lexical.terms("Nothing is port-forwarded")) >= {"port", "forwa"}


def test_chinese_text_becomes_character_bigrams():
    assert lexical.terms("喜欢喝茶") == ("喜欢", "欢喝", "喝茶")


def test_a_subject_shared_by_every_memory_weighs_little():
    tfidf = Counts.of(
        ["Alice lives in Lyon.", "Alice is vegetarian.", "Alice has a cat.", "Alice swims."]
    ).tfidf()

    assert tfidf.weight("alice") < tfidf.weight("veget")
    assert tfidf.containment("Alice is vegetarian.", "Alice has a cat.") < 0.4


def test_containment_is_one_when_the_shorter_text_is_inside_the_longer():
    longer = "Alice's cat Miso is an orange tabby."
    tfidf = Counts.of(["Has a cat called Miso.", longer, "Alice lives in Lyon."]).tfidf()

    assert tfidf.containment("The cat Miso.", longer) == pytest.approx(1.0)
    assert 0.5 < tfidf.containment("Has a cat called Miso.", longer) < 1.0


def test_containment_is_exactly_one_whatever_order_a_set_gives_its_terms():
    # The frame of two texts reads as identical on exactly 1.0. A plain sum over a set
    # rounds by the set's order, which follows Python's string hashes, and gave
    # 0.9999999999999999 under some seeds: detection differed from one process to the next.
    words = [
        f"{stem}word"
        for stem in "alpha bravo charl delta echoo foxtr golfo hotel india julie".split()
    ]
    texts = [" ".join(words[i:j]) for i in range(10) for j in range(i + 1, 11)]
    tfidf = Counts.of(texts).tfidf()

    for shorter in texts:
        for longer in texts:
            if set(shorter.split()) <= set(longer.split()):
                assert tfidf.containment(shorter, longer) == 1.0, (shorter, longer)


def test_cjk_share_tells_chinese_from_latin_text():
    assert lexical.cjk_share("林悦喜欢喝乌龙茶") == 1.0
    assert lexical.cjk_share("Lin likes oolong tea") == 0.0


def terms_as_first_written(text: str) -> tuple[str, ...]:
    """lexical.terms as it read before its ASCII fast path."""
    text = unicodedata.normalize("NFKC", text).casefold()
    found = []
    for token in tokens.TERM.findall(text):
        if any(lexical.is_cjk(char) for char in token):
            found.extend(lexical._cjk_bigrams(token))
            continue
        for word in token.split("-") if token[0].isalpha() else [token]:
            word = word.strip("'")
            if word.endswith("'s"):
                word = word[:-2]
            if not word or word in lexical.STOP_WORDS or (len(word) == 1 and not word.isdigit()):
                continue
            found.append(word[: lexical.STEM_LENGTH] if word.isalpha() else word)
    return tuple(found)


@given(
    st.one_of(
        st.text(alphabet=st.characters(max_codepoint=127), max_size=80),
        st.text(max_size=80),
        st.sampled_from(["port-forwarded", "Alice's cat", "林悦喜欢喝乌龙茶", "x-ray-3 4-5"]),
    )
)
@hypothesis_settings(max_examples=300, deadline=None)
def test_terms_agree_with_the_general_reading_for_every_text(text):
    assert lexical.terms(text) == terms_as_first_written(text)


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=60))
def test_ascii_text_has_the_terms_the_unicode_reading_gives(text):
    # ASCII text takes a faster expression: it must find what the general one finds.
    folded = unicodedata.normalize("NFKC", text).casefold()
    assert list(lexical._terms(text)) == [
        term for word in tokens.TERM.findall(folded) for term in lexical._word_terms(word)
    ]
