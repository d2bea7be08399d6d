"""Opposite states (lexicon.toml: polarity.opposite_states): "enabled" / "disabled",
"open" / "closed", "before" / "after". One word of a pair on each side reverses the
statement, unless one side denies its word: "The office is closed on Sundays." / "The
office doesn't open on Sundays." say one thing.
"""

from __future__ import annotations

import re
from functools import cache

from memadmin.curation.detection.comparing.relations import (
    NEW_VALUE,
    OPPOSITE,
    OTHER_VALUE,
    SAME,
    Relation,
)
from memadmin.curation.detection.reading import clause, quantities
from memadmin.curation.detection.reading.clause import Reading
from memadmin.curation.detection.reading.measured import Value
from memadmin.curation.detection.reading.polarity import excepts
from memadmin.curation.detection.reading.tokens import text_words
from memadmin.store.lexicon import fold, lexicon, words


def opposite_states(text_a: str, text_b: str) -> str | None:
    """The two sides' words of opposite states ("open / closed"), or None."""
    words_a, words_b = text_words(text_a), text_words(text_b)
    states = _opposed(words_a, words_b)
    if states is None:
        return _seldom_against_often(text_a, words_a, text_b, words_b)
    if _one_denied(text_a, text_b, states):
        return None  # "closed" / "doesn't open": the opposite word denied
    side_a, side_b = sorted(words_a & states), sorted(words_b & states)
    return f"{', '.join(side_a)} / {', '.join(side_b)}"


# Times a day from which a rate is no "rarely": twice a week is not rare, while once a
# week may well be to some ("Rarely eats out." / "Eats out once a week.").
_OFTEN = 2 / 7


def _seldom_against_often(
    text_a: str, words_a: set[str], text_b: str, words_b: set[str]
) -> str | None:
    """ "Hardly ever goes to the gym." / "Goes to the gym every day.": one side says it
    seldom happens, the other that it happens at least twice a week; or None."""
    seldom = _seldom_words()
    for first, (found, other, other_words) in enumerate(
        ((words_a, text_b, words_b), (words_b, text_a, words_a))
    ):
        said = ", ".join(sorted(found & seldom))
        if said and not other_words & seldom:
            rates = [v for v in quantities.read(other) if v.measure == "rate"]
            if daily := _every_part_of_day().search(fold(other)):
                rates.append(Value("rate", "1", *daily.span()))
            if rates and max(float(v.value) for v in rates) >= _OFTEN:
                often = ", ".join(other[v.start : v.end] for v in rates)
                return f"{often} / {said}" if first else f"{said} / {often}"
    return None


@cache
def _seldom_words() -> frozenset[str]:
    """The words of "how often" on the side of "never", the negations left out ("rarely",
    "selten"): a rate said against them reverses them, as "always" does."""
    for _one, other in _states():
        if "never" in other:
            return other - words("negation")
    return frozenset()


def reversed_values(relation: Relation, older: Reading, newer: Reading) -> Relation:
    """Two values of a slot that are opposite states: one statement reversed ("Parks
    inside the garage." / "Parks outside the garage." read as two places, two facts at
    0.61), or where one side denies its word, one statement ("The server is offline." /
    "The server is not online." read as a new value, a conflict at 0.87)."""
    sides = relation.detail.split(" / ")
    if relation.kind not in (OTHER_VALUE, NEW_VALUE) or len(sides) != 2:
        return relation
    side_a, side_b = (set(fold(side).split()) for side in sides)
    states = _opposed(side_a, side_b)
    if states is None:
        return relation
    if older.negated != newer.negated and not states & words("negation"):
        return Relation(SAME, f"{relation.detail}, one denied")
    return Relation(OPPOSITE, relation.detail) if relation.kind == OTHER_VALUE else relation


def opposed(word_a: str, word_b: str) -> bool:
    """Whether two words are the two sides of a pair of opposite states."""
    return _opposed({fold(word_a)}, {fold(word_b)}) is not None


def _opposed(words_a: set[str], words_b: set[str]) -> frozenset[str] | None:
    """The words of the first pair of states one side says one of and the other the
    other of (neither saying both), or None."""
    for one, other in _states():
        if (words_a & one and words_b & other and not words_a & other) or (
            words_b & one and words_a & other and not words_b & other
        ):
            return one | other
    return None


@cache
def _states() -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    return tuple((frozenset(a), frozenset(b)) for a, b in lexicon()["polarity"]["opposite_states"])


def _one_denied(text_a: str, text_b: str, states: frozenset[str]) -> bool:
    """Whether one side only is negated, where the states are no negations themselves
    ("always" / "never", "with" / "without": there the negation is the opposite, unless
    it excepts a thing: "never answers in any language but English" is always English)."""
    if states & words("negation"):
        return excepts(fold(text_a)) or excepts(fold(text_b))
    return clause.read(text_a).negated != clause.read(text_b).negated


@cache
def _every_part_of_day() -> re.Pattern:
    """ "every evening", "jeden Abend", "tous les soirs": a time of day each day."""
    rates = lexicon()["rates"]
    every = "|".join(map(re.escape, rates["every"]))
    parts = "|".join(map(re.escape, rates["parts_of_day"]))
    return re.compile(rf"\b(?:{every})\s+(?:{parts})s?\b")
