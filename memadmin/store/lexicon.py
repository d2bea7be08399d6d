"""The word lists of store/lexicon.toml, loaded once and folded for lookup, and the one
test of a text's language every part of memadmin uses.

The language test is cheap: a text with Chinese, Japanese or Korean letters is told by
its script; a Latin sentence of SENTENCE_WORDS words or more by py3langid (character
n-grams, the languages memadmin reads by their words) where it is sure; anything shorter,
or where it is not sure, by its most frequent function words. It runs on every import
line and API write: microseconds a text, never a second embedding (store.multilingual).
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from functools import cache
from pathlib import Path

from memadmin.store.text import text_cache

LEXICON_PATH = Path(__file__).with_name("lexicon.toml")
ENGLISH = "en"


def fold(text: str) -> str:
    """The form every word list is matched in: NFKC, case-folded."""
    if text.isascii():  # NFKC leaves ASCII as it is, and casefold() is lower() there
        return text.lower()
    return unicodedata.normalize("NFKC", text).casefold()


def plain(text: str) -> str:
    """Letters without their accents ("é" -> "e", "München" -> "Munchen")."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


@cache
def lexicon() -> dict:
    """lexicon.toml, every word folded (keys of the units and number tables too)."""
    with LEXICON_PATH.open("rb") as handle:
        raw = tomllib.load(handle)
    return _folded(raw)


def _folded(value):
    if isinstance(value, dict):
        return {fold(k) if isinstance(k, str) else k: _folded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_folded(item) for item in value]
    if isinstance(value, str):
        return fold(value)
    return value


@cache
def words(section: str, key: str = "words") -> frozenset[str]:
    """A word list of the lexicon as a set (`section.key`)."""
    return frozenset(lexicon()[section][key])


@cache
def stop_words() -> frozenset[str]:
    return frozenset(
        word for text in lexicon()["stop_words"].values() for word in text.split() if word
    )


# Chinese, Japanese and Korean characters (kana, Han, Hangul): one class for every reader.
CJK_CHARACTERS = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af"
CJK = re.compile(f"[{CJK_CHARACTERS}]")
# Han characters (Chinese, and the kanji of Japanese).
HAN = re.compile("[\u3400-\u9fff]")
_KANA = re.compile("[\u3040-\u30ff]")
_HANGUL = re.compile("[\uac00-\ud7af]")
_CYRILLIC = re.compile("[\u0400-\u04ff]")
_LETTER = re.compile(r"[^\W\d_]")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


@text_cache
def language_of(text: str) -> str:
    """The text's language as a code: zh, ja, ko, ru by script; one of UNREAD_LANGUAGES
    where py3langid tells it (unread_language); en, de, fr, es by their function words
    (English when nothing tells: short technical notes are mostly that).
    """
    # It runs on every memory of a detection run: ASCII text (most) has no other script
    # to count and folds by lower().
    ascii_only = text.isascii()
    if not ascii_only:
        letters = len(_LETTER.findall(text))
        if letters and len(CJK.findall(text)) / letters >= 0.3:
            if _KANA.search(text):
                return "ja"
            if _HANGUL.search(text) and not HAN.search(text):
                return "ko"
            return "zh"
        if letters and len(_CYRILLIC.findall(text)) / letters >= 0.3:
            return "ru"
    found = _WORD.findall(text.lower() if ascii_only else text)
    if not found:
        return ENGLISH
    if unread := unread_language(text):
        return unread  # "Ik woon in Utrecht.": no reader's, whatever its "in" says
    told = _by_ngrams(text)
    if told:
        return told
    languages_of = _marker_languages()
    scores = dict.fromkeys(_language_markers(), 0)
    for word in found:
        for language in languages_of.get(word if ascii_only else fold(word), ()):
            scores[language] += 1
    if not ascii_only:
        # Letters only one of them writes: "A visité Lisbonne", "Ist Österreicher".
        scores["fr"] += bool(_FRENCH_LETTERS.search(text))
        scores["de"] += bool(_GERMAN_LETTERS.search(text))
    best = max(scores, key=lambda language: (scores[language], language == ENGLISH))
    tie_told = best != ENGLISH and _tie_told(text, scores)
    best = tie_told or best
    if best == ENGLISH and not scores[ENGLISH]:
        # No function word at all ("Liebt Sushi.", "Raucht."): the dictionaries decide.
        return _by_dictionary(text)
    rival = max((lang for lang in scores if lang != ENGLISH), key=lambda lang: scores[lang])
    if best == ENGLISH and scores[rival] == scores[ENGLISH]:
        # As many words of each ("A une voiture": "a" is English and French).
        return rival if _by_dictionary(text) == rival else ENGLISH
    # A German or French note must say so twice (one "die" or "la" in English text is a
    # name or a loan word), or once where English says nothing; and more than English.
    # Italian and Portuguese always twice (TWICE_TOLD): one word of theirs alone is as
    # often a name ("Mia D. speaks Italian.").
    least = 2 if scores[ENGLISH] or (best in TWICE_TOLD and not tie_told) else 1
    if best != ENGLISH and (scores[best] < least or scores[best] <= scores[ENGLISH]):
        return ENGLISH
    if (
        scores[best] == 1
        and _english_too(found, ascii_only)
        and _dictionary_winner(text) == ENGLISH
    ):
        # Its one such word an English word too, and the dictionaries know the note as
        # English outright: "son" in "User's son plays violin.".
        return ENGLISH
    return best


def _tie_told(text: str, scores: dict[str, int]) -> str | None:
    """Of languages whose function words tie ("de" in "Gosta de jogar xadrez.": French,
    Spanish, Portuguese), the one py3langid is SURE_OF_LANGUAGE sure of among them, even
    in a note too short to be told by it outright; else None."""
    tied = {language for language in scores if scores[language] == max(scores.values())}
    if len(tied) < 2 or ENGLISH in tied:
        return None
    ranked = [(language, p) for language, p in _ranked(text) if language in tied]
    total = sum(p for _, p in ranked)
    if not total or ranked[0][1] / total < SURE_OF_LANGUAGE:
        return None
    return ranked[0][0]


def _english_too(found: list[str], ascii_only: bool) -> bool:
    """Whether a word of the text is one of another language's that English writes too
    (lexicon.toml: language_words.english_too). Checked before the dictionaries, which take
    half a millisecond a note."""
    english_too = words("language_words", "english_too")
    return any((word if ascii_only else fold(word)) in english_too for word in found)


# A sentence of this many words or more is told by its character n-grams where they are
# SURE_OF_LANGUAGE sure: function words shared by several languages misread it ("Ana
# tiene alergia a los cacahuetes." was English by "a", "Ana es profesora de matemáticas
# en Sevilla." French by "de", "en" and "es"). A shorter note is mostly names and
# loan words, where the n-grams guess ("Supports Olympique Lyonnais." is French to them).
SENTENCE_WORDS = 5
SURE_OF_LANGUAGE = 0.95
# The languages told so: those the lexicon reads by their words (and lemmatises: simplemma's
# dictionaries of each).
NGRAM_LANGUAGES = LEMMATISED = ("en", "de", "fr", "es", "it", "pt")
# Languages whose note must say so by two of its function words even where English says
# nothing: one alone is as often a name ("Mia D. speaks Italian.").
TWICE_TOLD = ("it", "pt")


@text_cache
def _by_ngrams(text: str) -> str | None:
    """The language of a sentence of SENTENCE_WORDS words or more, where py3langid is
    SURE_OF_LANGUAGE sure of it among the NGRAM_LANGUAGES; None otherwise."""
    if len(_WORD.findall(text)) < SENTENCE_WORDS:
        return None
    # Its probabilities among these alone: those among all it tells, over their sum.
    ranked = [(language, p) for language, p in _ranked(text) if language in NGRAM_LANGUAGES]
    total = sum(p for _, p in ranked)
    if not total:
        return None
    language, probability = ranked[0]
    return language if probability / total >= SURE_OF_LANGUAGE else None


@text_cache
def _ranked(text: str) -> tuple[tuple[str, float], ...]:
    """py3langid's languages for `text`, most likely first, with their probabilities."""
    return tuple(_identifier().rank(text))


@cache
def _identifier():
    """py3langid's model, loaded once a process (about a second), told to choose among
    the languages the readers read and those they do not."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages([*NGRAM_LANGUAGES, *UNREAD_LANGUAGES])
    return identifier


@text_cache
def language_told(text: str) -> bool:
    """Whether the text's language is told by its script, its n-grams or its function
    words, not guessed ("Fume." could be English or French, "Raucht." is German by the
    dictionary alone)."""
    language = language_of(text)
    if language in ("zh", "ja", "ko", "ru", *UNREAD_LANGUAGES):
        return True
    if _by_ngrams(text) == language:
        return True
    found = {w.lower() for w in _WORD.findall(text)}
    if found & _language_markers().get(language, frozenset()):
        return True
    return _dictionary_winner(text) == language  # not a tie of the dictionaries


# Languages no reader here reads, which py3langid tells (with the ones the readers do:
# an English note full of names may look Dutch or Polish to it alone). A note in one of
# them was read as English, word for word: "Jag jobbar som sjuksköterska." ("works as a
# nurse") had "jag" for its verb, two things said of one subject, two facts at 0.95.
UNREAD_LANGUAGES = (
    "nl", "sv", "da", "no", "fi", "pl", "cs", "sk", "tr", "vi", "id", "ms", "ro", "hu",
    "hr", "sl", "lt", "lv", "et", "ca", "el", "ar", "he", "hi", "th",
)  # fmt: skip
SURE_OF_UNREAD = 0.85
# Languages so close that py3langid splits a short note's probability among them.
_KIN = (("sv", "da", "no"), ("id", "ms"), ("cs", "sk"), ("fi", "et"), ("hr", "sl"), ("lt", "lv"))


@text_cache
def unread_language(text: str) -> str | None:
    """The language of a note that no reader here reads, where py3langid is SURE_OF_UNREAD
    sure of it (or of it and its kin) and English's dictionary knows at most half of the
    note's plain words (its first, and those in lower case: names tell nothing; "Anouk
    van der Berg is a pilot." is Dutch to py3langid at 0.85, but "is", "a" and "pilot"
    are English). None otherwise."""
    ranked = _ranked(text)
    language = ranked[0][0]
    if language not in UNREAD_LANGUAGES:
        return None
    # Its share and its kin's: they split it ("Hon har två katter.": Swedish 0.65, Danish
    # 0.19, Norwegian 0.15; "Saya tinggal di Jakarta.": Indonesian and Malay).
    kin = next((group for group in _KIN if language in group), (language,))
    if sum(p for other, p in ranked if other in kin) < SURE_OF_UNREAD:
        return None
    import simplemma

    plain_words = [w.lower() for i, w in enumerate(_WORD.findall(text)) if i == 0 or w.islower()]
    known = sum(simplemma.is_known(word, lang=ENGLISH) for word in plain_words)
    return language if 2 * known <= len(plain_words) else None


def languages_differ(text_a: str, text_b: str) -> bool:
    """Two texts in two languages, each told for sure (language_told): a text whose
    language is a guess is compared word for word like one of the same language."""
    if language_of(text_a) == language_of(text_b):
        return False
    return language_told(text_a) and language_told(text_b)


_FRENCH_LETTERS = re.compile("[éèêàçùâîôûœë]", re.IGNORECASE)
_GERMAN_LETTERS = re.compile("[äöüß]", re.IGNORECASE)


def _by_dictionary(text: str) -> str:
    """The language whose dictionary (simplemma's) knows most of the text's words, English
    on a tie: for the short notes that have no function word. Another language must win
    on the words that are no names too ("Supports Olympique Lyonnais" is English)."""
    best = _dictionary_best(text)
    if best == ENGLISH:
        return best
    words_ = text.split()
    plain = " ".join(words_[:1] + [w for w in words_[1:] if not w[:1].isupper()])
    return best if _dictionary_best(plain) == best else ENGLISH


def _dictionary_best(text: str) -> str:
    """The language simplemma's dictionaries know most of the text's words in; English
    when none wins outright."""
    return _dictionary_winner(text) or ENGLISH


@text_cache
def _dictionary_winner(text: str) -> str | None:
    import simplemma

    # The low-memory dictionaries (simplemma's own, the same words): telling a note's
    # language asks them about a few words, and building their index takes half the time
    # of decoding the whole German dictionary (1.0 s against 2.3 s, in every worker of a
    # run whose store has notes with no function word; the lemmas use the whole ones).
    # Spanish is asked only where the first three tell none: its dictionary shares many
    # words with French ("Parle italien." would tie).
    for languages in (("en", "de", "fr"), ("en", "de", "fr", "es")):
        scores = dict(simplemma.langdetect(text, lang=languages, low_memory=True))
        ranked = sorted((-score, language) for language, score in scores.items())
        best = ranked[0]
        if not (best[1] == "unk" or -best[0] == 0 or best[0] == ranked[1][0]):
            return best[1]
    return None


@cache
def _marker_languages() -> dict[str, tuple[str, ...]]:
    """Function word -> the languages it marks (one dictionary look-up a word)."""
    found: dict[str, list[str]] = {}
    for language, markers in _language_markers().items():
        for word in markers:
            found.setdefault(word, []).append(language)
    return {word: tuple(languages) for word, languages in found.items()}


@cache
def _language_markers() -> dict[str, frozenset[str]]:
    return {language: frozenset(found) for language, found in lexicon()["languages"].items()}
