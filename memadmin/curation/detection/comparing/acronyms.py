"""Names written two ways: an acronym and the words it spells ("UCL" / "University
College London"), a region's postal code and its name ("TX" / "Texas"), and a short form
and the word it shortens ("DB" / "database")."""

from __future__ import annotations

import re
from itertools import pairwise

from memadmin.curation.detection.reading.keytokens import words_of
from memadmin.store.lexicon import lexicon

# An acronym as written: two to six capitals ("UCL", "TU", "AWS").
_ACRONYM = re.compile(r"[A-Z]{2,6}")


def names_aside(only_a: list[str], only_b: list[str], text_a: str, text_b: str):
    """The names each side alone has, less an acronym on one side ("UCL") and the names
    of the words that spell it out on the other ("University College London"): one name
    written two ways, not two."""
    for short, long, short_text, long_text in (
        (only_a, only_b, text_a, text_b),
        (only_b, only_a, text_b, text_a),
    ):
        written = {word.lower for word in words_of(short_text) if _ACRONYM.fullmatch(word.raw)}
        for value in [v for v in short if v in written]:
            run = _spelled_out(value, long_text)
            if run:
                short.remove(value)
                long[:] = [v for v in long if not set(v.split()) <= run]
    return only_a, only_b


def _spelled_out(acronym: str, text: str) -> set[str]:
    """The words of a run of the text whose initials spell the acronym (a hyphenated
    word gives one a part), or an empty set."""
    words = [word.lower for word in words_of(text)]
    for start in range(len(words)):
        initials = ""
        for end in range(start, len(words)):
            initials += "".join(part[0] for part in re.split(r"[-_]", words[end]) if part)
            if len(initials) >= len(acronym):
                break
        if initials == acronym:
            return set(words[start : end + 1])
    region = _region(acronym)  # "TX" / "Texas", "NY" / "New York"
    if region and f" {' '.join(region)} " in f" {' '.join(words)} ":
        return set(region)
    return set()


def region_named(code: str, tokens: list) -> list:
    """The run of tokens (folded) that names the region a postal code stands for ("TX":
    "texas", "NY": "new york"), or []."""
    region = _region(code)
    for start in range(len(tokens) - len(region) + 1) if region else ():
        if [t.text for t in tokens[start : start + len(region)]] == region:
            return tokens[start : start + len(region)]
    return []


def _region(code: str) -> list[str]:
    """The words of the region a postal code names (lexicon.toml's [region_codes])."""
    return lexicon()["region_codes"].get(code, "").split()


def abbreviates(short: str, word: str) -> bool:
    """ "DB" / "database", "TZ" / "timezone": the letters of the short form start the
    word's syllables (its first letter, or a consonant after a vowel), in order; not
    "PO" / "project"."""
    if len(word) <= len(short) or word[0] != short[0]:
        return False
    vowels = "aeiouy"
    starts = [word[0]] + [c for v, c in pairwise(word) if v in vowels and c not in vowels]
    rest = iter(starts[1:])
    return all(letter in rest for letter in short[1:])
