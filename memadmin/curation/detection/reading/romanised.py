"""Chinese and Japanese text in Latin letters, to find there a name the other memory of a
pair writes in letters ("林悦在深圳工作" / "Lin works in Shenzhen", "健太は福岡から" /
"Kenta ... from Fukuoka"). Without it no name can be compared between Chinese characters
and letters, and a pair across the two scripts is read on its embeddings alone, whoever
each side is about ("王伟每周三打羽毛球" / "Li Na plays badminton every Wednesday").

The romanisations are maintained libraries' (pypinyin: Hanyu Pinyin from its dictionary
of words and characters; pykakasi: Hepburn from its dictionary of kanji and kana), not a
list of names."""

from __future__ import annotations

import re
from functools import cache

from memadmin.store.lexicon import CJK, language_of, plain
from memadmin.store.text import text_cache

# Long vowels, written out by the romanisers ("toukyou", "oosaka") and left out by the
# spellings people use ("Tokyo", "Osaka"): folded on both sides.
_LONG_VOWELS = re.compile(r"(?<=o)[ou]|(?<=u)u|(?<=a)a|(?<=e)e")
_NOT_A_LETTER = re.compile(r"[^a-z]")


def _folded(letters: str) -> str:
    return _LONG_VOWELS.sub("", _NOT_A_LETTER.sub("", plain(letters).lower()))


@cache
def _kakasi():
    import pykakasi  # its dictionaries load on first use: only texts in Japanese need it

    return pykakasi.kakasi()


@text_cache
def units(text: str) -> tuple[str, ...]:
    """The text's Chinese or Japanese words in Latin letters, folded: one Chinese syllable
    or one Japanese word each ("林悦在深圳工作" -> lin, yue, zai, shen, zhen, ...); none
    for a text without those scripts."""
    if not CJK.search(text):
        return ()
    if language_of(text) == "ja":
        parts = [part["hepburn"] for part in _kakasi().convert(text) if CJK.search(part["orig"])]
    else:
        from pypinyin import lazy_pinyin

        parts = lazy_pinyin(text, errors="ignore")
    return tuple(folded for folded in map(_folded, parts) if folded)


def spells(name: str, text: str) -> bool:
    """Whether `text` writes the name `name` (in letters) in Chinese characters or kana:
    its letters, accents and long vowels aside, are a run of whole romanised units
    ("Shenzhen" = shen + zhen, "Tokyo" = toukyou, "Lin" = lin; "Li" is no part of lin)."""
    wanted = _folded(name)
    found = units(text)
    if len(wanted) < 2 or not found:
        return False
    for start in range(len(found)):
        run = ""
        for unit in found[start:]:
            run += unit
            if run == wanted:
                return True
            if not wanted.startswith(run):
                break
    return False
