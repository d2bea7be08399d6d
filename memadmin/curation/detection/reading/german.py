"""Which capitalised words of a German sentence are nouns, not names. German writes every
noun with a capital ("Jonas möchte Antworten auf Deutsch": "Antworten" and "Deutsch" are
no names, "Jonas" is one), so a capital says nothing by itself, and a dictionary knows
"Hamburg" and "Lukas" as well as "Kaffee". The Hanover Tagger (HanTa, its German model
shipped in the package) tags each word with its part of speech from the words around
it: a proper name (NE) or a common noun (NN), a pronoun ("vor Kurzem"), any other word.
A word no German dictionary knows stays a name whatever its tag: the tagger guesses a
capitalised word it has never seen to be a noun ("läuft auf Azure").
"""

from __future__ import annotations

from functools import cache

import simplemma


@cache
def _tagger():
    # Read once a process, on its first German text (1.2 MB): most stores have none.
    from HanTa import HanoverTagger

    return HanoverTagger.HanoverTagger("morphmodel_ger.pgz")


# The tags of what may be a name: a proper name, a foreign word ("Release Train"), a
# string that is no word ("R2D2").
NAME_TAGS = frozenset({"NE", "FM", "XY"})
# The longest word the tagger is given: it analyses a word in time that grows with the
# cube of its length ("Tue/Tue/..." of 1,200 characters took 16 s), and no German word
# it could tell from a name is that long; a longer one is given as a string of no word.
LONGEST_WORD = 40


def no_names(words: tuple[str, ...]) -> frozenset[int]:
    """The indices of `words` (a German text's, in order, possessives without their
    "'s") the tagger reads as no name, of words the dictionary knows."""
    if not words:
        return frozenset()
    tags = _tagger().tag_sent([w if len(w) <= LONGEST_WORD else "R2D2" for w in words], taglevel=0)
    return frozenset(
        index
        for index, (word, tag) in enumerate(zip(words, tags, strict=True))
        if word and tag not in NAME_TAGS and simplemma.is_known(word, lang="de")
    )
