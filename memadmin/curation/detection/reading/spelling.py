"""One spelling of a word that the two sides of a pair write with and without its accents
("Maria Lopez" / "Maria López", "Jose Garcia" / "José García"). People and agents drop
accents their keyboards lack; read as written, each such name was two subjects, or one
slot's two values ("one slot, two values: Lopez / López", a conflict at 0.98).

Names only, words written with a capital: in other words an accent makes another word
("schon" / "schön", "ou" / "où"), as a kana's voicing mark does ("かき" / "かぎ"); and
Latin letters only. A word both sides spell alike keeps its accents, for the lexicon's
words are matched with theirs ("Préfère"). An accent can still tell two names apart
("Bär" / "Bar"): a pair read so is never merged automatically (pipeline.read_pair)."""

from __future__ import annotations

import re

from memadmin.store.lexicon import plain

_WORD = re.compile(r"[^\W\d_]{3,}")


def one_spelling(text_a: str, text_b: str) -> tuple[str, str]:
    """The two texts, each word that one side writes with accents and the other without
    (or with others) written without them on both sides; the texts as they are if none."""
    if text_a.isascii() and text_b.isascii():
        return text_a, text_b
    forms_a, forms_b = _forms(text_a), _forms(text_b)
    respelled = {
        word: plain(word)
        for bare in forms_a.keys() & forms_b.keys()
        if forms_a[bare] != forms_b[bare]
        for word in forms_a[bare] | forms_b[bare]
        if plain(word) != word
    }
    if not respelled:
        return text_a, text_b
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, respelled)) + r")\b")

    def respell(text: str) -> str:
        return pattern.sub(lambda match: respelled[match.group()], text)

    return respell(text_a), respell(text_b)


def _forms(text: str) -> dict[str, set[str]]:
    """A text's words written with a capital, by their bare form (no accents, lower
    case), each as it is written; only words whose bare form is in Latin letters."""
    forms: dict[str, set[str]] = {}
    for word in _WORD.findall(text):
        bare = plain(word).lower()
        if bare.isascii() and word[:1].isupper():
            forms.setdefault(bare, set()).add(word)
    return forms
