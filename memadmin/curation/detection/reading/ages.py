"""Whether a clause says someone's age: "is 7 years old", "ist vierunddreißig Jahre alt",
"女儿8岁", or a person said to be a bare number ("Is 34", "Her son is ten"): one slot, and
one value however the number is written (a bare age reads in years, as "34 years old"
does). Also a length's dimension ("is 182 cm tall"): one slot too."""

from __future__ import annotations

import re

from memadmin.curation.detection.reading.measured import canonical_number
from memadmin.curation.detection.reading.words import Token, is_copula, relation_word
from memadmin.store.lexicon import fold, lexicon

# A number in digits or words before the words of an age.
_AGE = re.compile(
    r"[\w-]+\s*(?:years?|yrs?)(?:\s+|-)old\b|\w+\s*jahre\s+alt\b|\d+\s*岁"
    r"|\ba\s+[\w-]+\s*ans\b(?!\s*d(?:['’]|e\b))"  # "a 34 ans", not "a 3 ans d'expérience"
    # "tiene 34 años", "ha 34 anni", "tem 34 anos"; not "10 años de experiencia"
    r"|\b(?:tiene|tengo|ha|ho|tem|tenho)\s+[\w-]+\s*(?:años|anni|anos)\b(?!\s*d[eio]\b)"
)


# A length and the adjective of its dimension after it ("182 cm tall", "2 m wide").
_DIMENSION = re.compile(r"\d[\d.,]*\s*(?:mm|cm|m|km|ft|in)\s+(tall|high|wide|deep)\b")
_DIMENSIONS = {"tall": "height", "high": "height", "wide": "width", "deep": "depth"}
DIMENSIONS = frozenset(_DIMENSIONS.values())


def measure_said(clause: str, predicate, language: str) -> str | None:
    """The predicate a copula's measure says: "age" in the words of one ("years old",
    "Jahre alt"; in French, Spanish, Italian and Portuguese after its "have": "Il a 34
    ans", "Tiene 34 años"), the dimension after a length ("Is 182 cm tall": height; "2 m
    wide": width; "3 m deep": depth), or None."""
    name, folded = predicate and predicate.name, fold(clause)
    of_age = name in (None, "be") or (name == "have" and language in ("fr", "es", "it", "pt"))
    if of_age and _AGE.search(folded):
        return "age"
    dimension = _DIMENSION.search(folded) if name in (None, "be") else None
    return dimension and _DIMENSIONS[dimension[1]]


def length_said(main: list[Token], predicate_at: int, language: str) -> str | None:
    """The dimension a copula's length says, read from the tokens (any unit, "6 feet
    tall", "5'6\" tall"), or a person's height where the length is the whole complement
    ("Is 5 foot 6", "Her son is 1.20 m"; not "The desk is 1.6 m"). "Is 5 foot 6." /
    "Is 1.80 m tall." read "be" / "height": another thing said, two facts at 0.88."""
    if predicate_at < 0 or not is_copula(main[predicate_at]):
        return None
    after = [t for t in main[predicate_at + 1 :] if t.content]
    if not after or not after[0].value.startswith("length:"):
        return None
    if len(after) > 1:
        return _DIMENSIONS.get(after[1].lemma)
    return "height" if _of_a_person(main[:predicate_at], language) else None


def _of_a_person(subject: list[Token], language: str) -> bool:
    """The user (no subject), a name or a relation ("her son")."""
    return all(t.kind == "name" or relation_word(t, language) for t in subject if t.content)


def ages_read(found, clause_end: int, predicate_at: int, predicate, language: str):
    """The tokens with a bare age read in years ("Is 34.", "Her son is ten.": as "34
    years old" reads), and "old" after a span set aside ("12 years old": a word of the
    value, which "turned 13" has not); and whether a bare age was read."""
    said = predicate is not None and predicate.name == "age"  # "Age: 34", "Her age is 34"
    copula = predicate is None or predicate.name == "be" or said
    bare = bare_age(found[:clause_end], predicate_at, language, said) if copula else None
    if bare is not None:
        found = (*found[:bare], in_years(found[bare]), *found[bare + 1 :])
    found = tuple(
        t._replace(kind="function")
        if t.text in ("old", "alt") and index and found[index - 1].value.startswith("calendar:")
        else t
        for index, t in enumerate(found)
    )
    return found, bare is not None


def bare_age(main: list[Token], predicate_at: int, language: str, said: bool = False) -> int | None:
    """Where a copula's whole complement is a plain number (no unit) said of the user, a
    name or a relation ("Her son is ten"), of an age (`said`: "Age: 34"), or what anyone
    turned ("Emma just turned 7"): that number's position, an age. Not a copula's of a
    thing ("The build is 8", "Port is 8080"), nor a number with its unit."""
    if predicate_at < 0:
        return None
    turned = language == "en" and main[predicate_at].lemma == "turn"
    if not is_copula(main[predicate_at]) and not turned:
        return None
    after = [
        i
        for i in range(predicate_at + 1, len(main))
        if main[i].content and not _when(main[i], main[i - 1])
    ]
    if len(after) != 1 or not main[after[0]].value.startswith("number:"):
        return None
    if turned or said or _of_a_person(main[:predicate_at], language):
        return after[0]
    return None


def _when(token: Token, before: Token) -> bool:
    """A time said after a function word ("turned 13 last week", "in May"), not of the
    number ("is 12 weeks": a unit)."""
    if before.kind != "function":
        return False
    periods = lexicon()["rates"]["periods"]
    return token.lemma in periods or token.value.split(":")[0] in ("date", "month", "weekday")


def in_years(token: Token) -> Token:
    """A bare age as "N years old" reads: a calendar span in months."""
    years = float(token.value.split(":", 1)[1])
    return token._replace(value=f"calendar:{canonical_number(years * 12)}")
