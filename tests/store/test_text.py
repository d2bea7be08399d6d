import pytest
from hypothesis import given
from hypothesis import strategies as st

from memadmin.curation.detection.comparing import contrast
from memadmin.store.text import SHORT_WORDS, content_hash, normalise, short


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Prefers Python.", "prefers python"),
        ("Prefers  Python\n", "prefers python!"),
        ("Ｐｒｅｆｅｒｓ Ｐｙｔｈｏｎ", "prefers python"),  # full-width letters (NFKC)
        ("喜欢喝茶。", "喜欢喝茶"),
        ("Uses tabs?!", "uses tabs"),
    ],
)
def test_texts_that_differ_only_in_form_share_a_hash(a, b):
    assert content_hash(a) == content_hash(b)


def test_texts_that_differ_in_words_do_not_share_a_hash():
    assert content_hash("Deployed on Hetzner") != content_hash("Deployed on Railway")


def test_normalise_keeps_inner_punctuation():
    assert normalise("Uses v3.11, not v3.10.") == "uses v3.11, not v3.10"


@given(st.text(alphabet=st.sampled_from("ab \t\n\u3000\u00a0."), max_size=40))
def test_short_is_at_most_eight_words_however_the_text_is_spaced(text):
    assert short(text) == (len(text.split()) <= SHORT_WORDS)


def test_forgetting_texts_empties_every_text_cache_and_keeps_the_word_caches():
    from memadmin.curation.detection.reading import clause as reading
    from memadmin.curation.detection.reading import words
    from memadmin.store.lexicon import language_of
    from memadmin.store.text import forget_texts

    reading.read("Moved to Lyon in 2024")
    contrast.key_token_differences("Port 8080", "Port 9090")
    assert reading.read.cache_info().currsize > 0
    assert language_of.cache_info().currsize > 0
    assert words.lemma.cache_info().currsize > 0

    forget_texts()

    assert reading.read.cache_info().currsize == 0
    assert language_of.cache_info().currsize == 0
    assert contrast.key_token_differences.cache_info().currsize == 0
    assert words.lemma.cache_info().currsize > 0  # a word's lemma holds in every namespace
    # Read again as before: forgetting changes what is cached, never what is read.
    assert reading.read("Moved to Lyon in 2024").predicate.name == "move"
