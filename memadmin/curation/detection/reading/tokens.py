"""The one place detection splits text into words. Each reader needs its own cut of a
text, and each pattern here says which and why: the value tokens keep the inner
punctuation of identifiers, hosts, dates and times ("m5.large", "10.0.0.1", "03:00"); a
clause's words keep apostrophes, hyphens and slashes for the lemmatiser ("don't",
"Europe/Berlin"); the quantity reader tells digits from words and unit signs; the lexical
terms keep numbers whole; the content and sentence tokens are what paraphrases and diffs
are compared on. store.lexicon has the language test's own (a cheap count of function
words, run on every write).
"""

from __future__ import annotations

import re
from functools import lru_cache

from memadmin.curation.detection.reading.dates import NUMERIC_DATE
from memadmin.store.lexicon import fold, stop_words
from memadmin.store.text import text_cache

# Words and their spans in the folded text; identifiers, hosts, IPs, dates and times keep
# their inner punctuation (reading.keytokens: the values of a text).
# An e-mail address: one value, not a name and a host ("ana.ruiz@example.com"; not
# "deploy@10.0.0.5", a login at an address).
_EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[^\W\d_]{2,}(?![\w-])"
EMAIL = re.compile(rf"(?<![\w.+-]){_EMAIL}")
VALUE_TOKEN = re.compile(rf"{_EMAIL}|[\w#][\w.\-/:%°³²']*[\w%°³²\"]|[\w%]", re.UNICODE)
# A weekday in Chinese: 周, 星期 or 礼拜 and its day ("周三": Wednesday, no number three);
# not a count of times after 每周 ("每周一次": once a week). The key tokens, the quantities
# and the rates all read it here.
CHINESE_WEEKDAY = re.compile(r"(?:星期|礼拜|周)[一二三四五六日天](?![次回遍])")
# A word as written: letters and digits, with inner apostrophes, hyphens, dots and
# slashes (Fly.io, Europe/Berlin, unit-test, don't, l'interface): reading.words.
CLAUSE_WORD = re.compile(r"[\w][\w'’\-./]*[\w]|[\w]|[%€$£°]|(?<=\w)[:：](?=\s|$)")


def bare_possessive(text: str, start: int, end: int) -> bool:
    """Whether the word at text[start:end] is a possessive written with an apostrophe
    alone ("Jonas' team", "the Joneses' dog", German "Jonas' Team"): the word ends in s,
    x or z and an apostrophe follows it before a space. Neither reader's words keep that
    apostrophe (a word ends on a letter), so both ask here and read it as "'s" ("Jonas's
    team"): one owner, however written. A word in quotes ('Atlas') owns nothing."""
    return (
        text[end : end + 1] in ("'", "’")
        and text[end - 1 : end] in ("s", "x", "z", "S", "X", "Z")
        and (end + 1 == len(text) or text[end + 1].isspace())
        and text[start - 1 : start] not in ("'", "’")
    )


# A token of the folded text for the quantity reader: a date written with digits
# ("3/14/1990", "14.03.1990": no share and no version; key tokens read it), a number
# written with digits, a word, or a sign a unit may be written with (a foot's "'" between
# two numbers: "5'6\""). Digits glued to letters ("pve2", "m5.large", "i5-12500") are part
# of an identifier, never a value: the lookbehind keeps them out.
QUANTITY_TOKEN = re.compile(
    rf"(?P<date>(?<![0-9a-z.\-/_]){NUMERIC_DATE}(?![0-9]|[/.]\d))"
    r"|(?P<time>(?<![0-9a-z.])\d{1,2}[:h]\d{2}(?::\d{2})?(?![0-9:]))"
    r"|(?P<number>(?<![0-9a-z.\-/_])\d+(?:[.,]\d+)*(?:/\d+)?)"
    r"|(?P<sign>mm/s|m/s|km/h|[%\"°€$£~]|(?<=\d)['’](?=\d))"
    r"|(?P<word>[^\W\d_]+(?:['’][^\W\d_]+)?|[\u3400-\u9fff]+)",
)
# The lexical terms of a text: words, and numbers kept whole (reading.lexical).
TERM = re.compile(r"[^\W\d_][\w'\-]*|\d+(?:[.,:/]\d+)*", re.UNICODE)
# The same terms in lower-case ASCII text (most memories), found a third faster: detection
# reads the words of every memory of a namespace to count them.
ASCII_TERM = re.compile(r"[a-z][a-z0-9_'\-]*|[0-9]+(?:[.,:/][0-9]+)*")
# A word of letters (hyphens and apostrophes inside): what content words are made of.
_LETTER_WORD = re.compile(r"[^\W\d_][\w'\-]*", re.UNICODE)
# Any word, hyphenated ones kept whole: what a name or a stance is looked up among.
_TEXT_WORD = re.compile(r"[\w'\-]+")
# A word or number of a sentence as a diff compares them.
_SENTENCE_TOKEN = re.compile(r"\w[\w.'’/-]*\w|\w")

# Words are compared by their first letters ("scripting" and "scripts" meet at "scrip").
STEM_LENGTH = 5


@text_cache
def text_words(text: str) -> frozenset[str]:
    """The words of a text, case-folded (hyphenated words kept whole). Cached: one
    judgement reads them several times."""
    return frozenset(_TEXT_WORD.findall(fold(text)))


@text_cache
def content_words(text: str) -> tuple[str, ...]:
    """The words of a text that carry meaning (no stop words, no one- or two-letter words,
    compounds split: "port-forwarded" is "port" and "forwarded"). Cached: the readers of
    a pair ask for them several times, and a text is read beside several others."""
    found, stop = [], stop_words()
    for token in _LETTER_WORD.findall(fold(text)):
        if "-" not in token and "'" not in token:  # most words: as they are
            if len(token) > 2 and token not in stop:
                found.append(token)
            continue
        for part in token.split("-"):
            part = part.strip("'")
            if len(part) > 2 and part not in stop:
                found.append(part)
    return tuple(found)


@text_cache
def sentence_tokens(text: str) -> tuple[str, ...]:
    """The words and numbers of a sentence, lower-cased, in order: what a diff of two
    sentences compares."""
    return tuple(_SENTENCE_TOKEN.findall(text.lower()))


@lru_cache(maxsize=65536)
def s_form(word: str) -> bool:
    """An English word its lemma and an "s" ("kids", "parents", "wears", "owns"): a plural,
    whose owners' apostrophe stands alone ("Kids' bedtime": no one named; not a name that
    ends in s, "Jonas' team"), or a verb's third person ("Wears a Garmin watch")."""
    import simplemma  # the lemmatiser the clause reader uses (reading.words.lemma)

    lemma = fold(simplemma.lemmatize(word, lang="en"))
    return lemma != word and word in (lemma + "s", lemma + "es")


def numeronym(short: str, word: str) -> bool:
    """ "k8s" / "kubernetes", "i18n" / "internationalisation", "a11y" / "accessibility":
    a word's first and last letters with the count of the letters between them."""
    match = re.fullmatch(r"([a-z])(\d{1,2})([a-z])", short)
    return bool(
        match
        and word.isalpha()
        and len(word) == int(match[2]) + 2
        and word[0] == match[1]
        and word[-1] == match[3]
    )
