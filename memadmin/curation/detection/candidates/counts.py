"""What detection counts over every memory of a namespace: the documents holding each
lexical term (the TF-IDF weights) and the names memories give their user. Counting a
namespace of 1,000 memories took 6.7 ms, most of a nightly run's time for ten new ones
(bench/find_duplicates.py, scenario d); a count can be kept and brought up to date with
the memories that came and went (`add`, `remove`), giving what counting all would.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import chain

from memadmin.curation.detection.reading import lexical
from memadmin.curation.detection.reading.words import never_a_name
from memadmin.store.lexicon import fold

# "User's name is Kenji", "My name is Priya", "Name is Sam Okoro", "Ich heiße Jana".
_TOLD_NAME = re.compile(
    r"(?:^|\b(?:my|user'?s|the user'?s|mein|mon)\s+)(?:name|vorname|nom|prénom)\s+(?:is|ist|est)"
    r"\s+([A-Z][\w\-]+)|\b(?:ich\s+heiße|je\s+m'appelle)\s+([A-Z][\w\-]+)",
    re.IGNORECASE,
)
# A memory that opens with a capitalised word and goes on in lower case: "Alice lives...",
# "Alice's cat ...".
_OPENING_NAME = re.compile(r"^([A-Z][a-z\u00c0-\u024f]+)(?:'s|’s)?\s+[a-z]")


@dataclass
class Counts:
    """Counts over a namespace's memories (`documents` of them)."""

    documents: int = 0
    terms: Counter = field(default_factory=Counter)  # term -> memories holding it
    openings: Counter = field(default_factory=Counter)  # a word that opens memories
    told: Counter = field(default_factory=Counter)  # a name memories say is the user's

    @classmethod
    def of(cls, texts: Iterable[str]) -> Counts:
        counts = cls()
        counts.add(texts)
        return counts

    def add(self, texts: Iterable[str]) -> None:
        texts = list(texts)
        self.documents += len(texts)
        # Every memory counts once, and few are ever compared: their terms are not kept
        # (lexical.terms keeps those of the texts a pair compares).
        self.terms.update(chain.from_iterable(map(set, map(lexical.document_terms, texts))))
        for text in texts:
            told, opening = _names_in(text)
            if told:
                self.told[told] += 1
            if opening:
                self.openings[opening] += 1

    def remove(self, texts: Iterable[str]) -> None:
        """Uncount memories counted before (with the same text)."""
        removed = Counts.of(texts)
        self.documents -= removed.documents
        for mine, theirs in (
            (self.terms, removed.terms),
            (self.openings, removed.openings),
            (self.told, removed.told),
        ):
            mine.subtract(theirs)
            for key in theirs:
                if mine[key] <= 0:
                    del mine[key]

    def tfidf(self) -> lexical.TfIdf:
        return lexical.TfIdf(self.documents, self.terms)

    def user_names(self) -> frozenset[str]:
        """The names the namespace's user goes by: what a memory says their name is
        ("User's name is Kenji"); else the one word that opens at least three memories
        and one in twenty, twice as often as any other ("Alice lives in Lyon", "Alice's
        cat..." in Alice's store; in a team's store, where Jana and Felix are both
        frequent, nobody). A memory about that name is about the user, as "Lives in
        Lyon" is."""
        if self.told:
            return frozenset(self.told)
        ranked = self.openings.most_common(2)
        if not ranked:
            return frozenset()
        name, count = ranked[0]
        runner_up = ranked[1][1] if len(ranked) > 1 else 0
        if count >= max(3, self.documents / 20) and count >= 2 * runner_up:
            return frozenset({name})
        return frozenset()


def user_names(memories) -> frozenset[str]:
    """Counts.user_names over the given memories (anything with `content`)."""
    return Counts.of(memory.content for memory in memories).user_names()


def _names_in(text: str) -> tuple[str, str]:
    """The name `text` says the user has, and the word it opens with if that may be a
    name ("" for none). Two regular expressions: this runs over every memory."""
    told = opening = ""
    told_here = "nam" in text or "Nam" in text or "heiß" in text or "appelle" in text
    if told_here and (match := _TOLD_NAME.search(text)) is not None:
        told = fold(match.group(1) or match.group(2))
    if (match := _OPENING_NAME.match(text)) is not None:
        word = fold(match.group(1))
        if not never_a_name(word):  # "My ...", "Is ...", "Loves ...": nobody
            opening = word
    return told, opening
