import pytest
from hypothesis import given
from hypothesis import strategies as st

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
