"""The language of a memory, told cheaply: which namespaces need the second model."""

import re
import subprocess
import sys
import time
import unicodedata

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from memadmin.store.lexicon import (
    TWICE_TOLD,
    _by_dictionary,
    _by_ngrams,
    fold,
    language_of,
    language_told,
    languages_differ,
    lexicon,
    unread_language,
)
from memadmin.store.multilingual import needs_multilingual


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Ana works remotely from Lisbon.", "en"),
        ("Ana arbeitet remote aus Lissabon und mag die Stadt.", "de"),
        ("Ana travaille à distance depuis Lisbonne, dans le quartier de Graça.", "fr"),
        ("安娜在里斯本远程工作。", "zh"),
        ("pve1: 64 GB, ZFS mirror", "en"),  # a technical note: nothing says otherwise
        ("Die API läuft auf Hetzner.", "de"),
        # A short Spanish note by its words, or by the dictionaries where French's tie.
        ("Le gusta el jazz.", "es"),
        ("Odia madrugar.", "es"),
        ("Parle italien.", "fr"),
        ("", "en"),
    ],
)
def test_language_of(text, language):
    assert language_of(text) == language


@pytest.mark.parametrize(
    ("text", "language"),
    [
        # Italian and Portuguese are told by two of their function words, so that a note
        # in one is read in its language and compared with an English one as two are.
        ("Trabalha na Siemens.", "pt"),
        ("Mora em Lisboa.", "pt"),
        ("Abita alla Spezia.", "it"),
        ("Lavora alla Ferrari.", "it"),
        # English notes with a word those languages write too stay English.
        ("Pays 1200 euros rent per month.", "en"),
        ("Blood group: O-.", "en"),
        ("Meeting at 9 in the EU region.", "en"),
        # One such word alone is as often a name: twice, to tell the language.
        ("Mia D. speaks Italian.", "en"),
        ("Uma works at Siemens.", "en"),
    ],
)
def test_italian_and_portuguese_are_told_apart_from_english(text, language):
    assert language_of(text) == language
    assert languages_differ(text, "Works at Bosch.") == (language != "en")


def test_one_loan_word_does_not_make_english_german():
    assert language_of("The die casting line restarts at 6.") == "en"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        # One word another language writes too, in a note the dictionaries know as English.
        ("User's son plays violin.", "en"),
        ("Her son plays cello.", "en"),
        # The same word in a note of its own language, and short notes of one word each.
        ("Son frère s'appelle Paul.", "fr"),
        ("Hat Asthma.", "de"),
        ("Mag Jazz.", "de"),
        # A Spanish note by its verbs: its numbers are read as Spanish ("dos", "tres").
        ("Tiene dos hijos.", "es"),
        ("Tiene dos gatos.", "es"),
    ],
)
def test_a_word_english_writes_too_tells_a_language_only_with_the_dictionaries(text, language):
    assert language_of(text) == language


@pytest.mark.parametrize(
    ("text", "language"),
    [
        # Function words several languages share misread these: "a" is English, "de",
        # "en" and "es" French.
        ("Ana tiene alergia a los cacahuetes.", "es"),
        ("Ana es profesora de matemáticas en Sevilla.", "es"),
        ("Ana duerme unas siete horas y media cada noche.", "es"),
        ("Ana sold her Seat and now drives a Toyota Corolla.", "en"),
    ],
)
def test_a_sentence_is_told_by_its_character_ngrams(text, language):
    assert language_of(text) == language and language_told(text)


def test_two_sentences_of_one_language_are_compared_as_one_language():
    # Told apart, they went to the multilingual model's bar for two languages, where two
    # unrelated sentences of one language pass: proposed as one fact.
    assert not languages_differ(
        "Ana tiene alergia a los cacahuetes.", "Ana duerme unas siete horas y media cada noche."
    )
    assert languages_differ("Ana is allergic to peanuts.", "Ana tiene alergia a los cacahuetes.")


def test_a_short_note_is_told_by_its_function_words_not_its_ngrams():
    # Three words, mostly a name: the n-grams guess French.
    assert _by_ngrams("Supports Olympique Lyonnais.") is None
    assert language_of("Supports Olympique Lyonnais.") == "en"


def test_a_namespace_needs_the_second_model_only_with_two_languages():
    assert not needs_multilingual(["Prefers tea.", "Deploys on Fridays.", "Uses Python 3.12."])
    assert needs_multilingual(["Prefers tea.", "Trinkt lieber Tee und keinen Kaffee."])
    assert needs_multilingual(["Prefers tea.", "喜欢喝茶。"])


def test_telling_the_language_costs_microseconds():
    language_of("Der Satz lädt das Modell der Sprachen einmal.")  # loaded once a process
    # Each text new (no cache hit): a sentence, read by the n-grams, and a short note.
    sentences = [f"Ana arbeitet remote aus Lissabon und mag die Stadt {n}." for n in range(2000)]
    notes = [f"Mag Jazz {n}." for n in range(2000)]
    for texts, bound in ((sentences, 200e-6), (notes, 100e-6)):
        started = time.perf_counter()
        for text in texts:
            language_of(text)
        per_text = (time.perf_counter() - started) / len(texts)
        # Measured about 30 µs a sentence and 10 µs a note (bench/embed.py: 27 µs).
        assert per_text < bound


def test_a_note_with_no_function_word_is_told_without_decoding_a_whole_dictionary():
    # In a fresh process, as a detection worker starts: the dictionaries tell "Raucht."
    # in their low-memory form, and simplemma decodes none whole (the German one alone
    # takes 2.3 s, in every worker of a run).
    script = (
        "from simplemma.strategies.dictionaries import DEFAULT_DICTIONARY_FACTORY as whole\n"
        "from memadmin.store.lexicon import language_of\n"
        "print(language_of('Raucht.'), language_of('Liebt Sushi.'),"
        " whole._get_dictionary.cache_info().currsize)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split() == ["de", "de", "0"]


# --- The fast paths for ASCII text agree with the general one ------------------------------

TEXTS = st.one_of(
    st.text(alphabet=st.characters(max_codepoint=127), max_size=80),
    st.text(max_size=80),
    st.sampled_from(["Ana arbeitet aus Lissabon und mag die Stadt.", "ﬁle Ｆｕｌｌ", "İstanbul"]),
)


@given(TEXTS)
@hypothesis_settings(max_examples=300, deadline=None)
def test_fold_is_nfkc_casefold_for_every_text(text):
    assert fold(text) == unicodedata.normalize("NFKC", text).casefold()


def language_as_first_written(text: str) -> str:
    """language_of as it read before its ASCII fast path: every script counted, every
    word folded, every language's markers scanned."""
    letters = len(re.findall(r"[^\W\d_]", text))
    if (
        letters
        and len(re.findall("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]", text)) / letters >= 0.3
    ):
        if re.search("[\u3040-\u30ff]", text):
            return "ja"
        if re.search("[\uac00-\ud7af]", text) and not re.search("[\u3400-\u9fff]", text):
            return "ko"
        return "zh"
    if letters and len(re.findall("[\u0400-\u04ff]", text)) / letters >= 0.3:
        return "ru"
    found = [fold(w) for w in re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", text)]
    if not found:
        return "en"
    if unread := unread_language(text):
        return unread
    told = _by_ngrams(text)
    if told:
        return told
    markers = {language: set(words) for language, words in lexicon()["languages"].items()}
    scores = {language: sum(w in words for w in found) for language, words in markers.items()}
    scores["fr"] += bool(re.search("[éèêàçùâîôûœë]", text, re.IGNORECASE))
    scores["de"] += bool(re.search("[äöüß]", text, re.IGNORECASE))
    best = max(scores, key=lambda language: (scores[language], language == "en"))
    if best == "en" and not scores["en"]:
        return _by_dictionary(text)
    rival = max((lang for lang in scores if lang != "en"), key=lambda lang: scores[lang])
    if best == "en" and scores[rival] == scores["en"]:
        return rival if _by_dictionary(text) == rival else "en"
    least = 2 if scores["en"] or best in TWICE_TOLD else 1
    if best != "en" and (scores[best] < least or scores[best] <= scores["en"]):
        return "en"
    return best


@given(TEXTS)
@hypothesis_settings(max_examples=300, deadline=None)
def test_language_of_agrees_with_the_general_reading(text):
    assert language_of(text) == language_as_first_written(text)
