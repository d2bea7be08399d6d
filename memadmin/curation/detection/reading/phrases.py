"""Quantities said as phrases: a half ("seven and a half hours", "an hour and a half",
"sept heures et demie"), a quarter of an hour, a fortnight, noon and midnight, and a
bare number in the unit below the one before it ("5 foot 6", "1 h 15").
curation.detection.reading.quantities reads the numbers and units; these join or replace
what it read."""

from __future__ import annotations

import math
import re
from dataclasses import replace

from memadmin.curation.detection.reading.measured import Value, canonical_number

# Quantities said as a phrase, read whole; the values read inside one are its words.
_IDIOMS = (
    (re.compile(r"\b(?:a|one) quarter of an hour\b|\bquarter of an hour\b"), "duration", 900),
    (re.compile(r"\bthree quarters of an hour\b"), "duration", 2700),
    (re.compile(r"\b(?:a|one|eine) viertelstunde\b|\bun quart d'heure\b"), "duration", 900),
    (re.compile(r"\b(?:a|one) fortnight\b"), "duration", 1209600),
    (re.compile(r"(?<![-'])\b(?:noon|midday|midi|mittags?|mediod[ií]a)\b"), "time", "12:00"),
    (re.compile(r"\b(?:midnight|minuit|mitternacht|medianoche)\b"), "time", "00:00"),
    # A share said as a fraction of something ("half of the budget": 50 %; not "half an
    # hour", "a quarter of an hour").
    (re.compile(r"\bhalf (?:of|the)\b|\b(?:la moiti[ée]|die h[äa]lfte|la mitad)\b"), "share", 50),
    (
        re.compile(r"\b(?:a|one) third of\b|\b(?:un tiers|ein drittel)\b"),
        "share",
        100 / 3,
    ),
    (re.compile(r"\btwo thirds\b|\bdeux tiers\b|\bzwei drittel\b"), "share", 200 / 3),
    (
        re.compile(r"\b(?:a|one) quarter of (?!an hour)|\b(?:un quart|ein viertel)\b(?! d'heure)"),
        "share",
        25,
    ),
    (re.compile(r"\bthree quarters of (?!an hour)|\btrois quarts\b|\bdrei viertel\b"), "share", 75),
)


def idioms(folded: str, found: list[Value]) -> list[Value]:
    """The phrases of _IDIOMS in `folded`, each one value; `found` loses what they hold."""
    read = []
    for pattern, measure, value in _IDIOMS:
        for match in pattern.finditer(folded):
            start, end = match.span()
            found[:] = [v for v in found if not start <= v.start < end]
            said = value if isinstance(value, str) else canonical_number(value)
            read.append(Value(measure, said, start, end))
    return read


# A half after a whole number of units: "seven and a half hours" (the number, then half
# an hour), and after the unit: "an hour and a half", "sept heures et demie", "siete
# horas y media".
_AND_A = frozenset({"and a", "and", "und", "und eine", "et", "y"})
_HALF_AFTER = re.compile(r"(?:,\s*)?\s+(?:and a half|and one half|et demie?|y medi[ao])\b")


def whole_and_half(number: Value, half: Value, between: str) -> bool:
    """ "seven and a half hours", "zwei und eine halbe Stunde": a bare number, then half
    of a unit."""
    return (
        number.measure == "number"
        and half.factor > 0
        and float(half.value) == 0.5 * half.factor
        and between in _AND_A
    )


def with_a_half_after(value: Value, folded: str) -> Value:
    """ "an hour and a half" is 1.5 hours: half of the value's unit added where one follows
    it ("et demie", "y media")."""
    if value.measure == "time" and value.value.endswith(":00"):
        found = _HALF_AFTER.match(folded, value.end)  # "à 10 h et demie": 10:30
        return replace(value, value=value.value[:-2] + "30", end=found.end()) if found else value
    if not value.factor or value.measure in ("number", "time", "version", "share"):
        return value
    found = _HALF_AFTER.match(folded, value.end)
    if found is None:
        return value
    total = canonical_number(float(value.value) + 0.5 * value.factor)
    return replace(value, value=total, end=found.end())


# A bare number right after a quantity, less than one of its unit, is in the unit below:
# (measure, the unit's factor, the unit below's factor, how many of those make one).
# "1 h 15" (minutes), "5 foot 6" (inches), "1 m 80" (centimetres), "11 stone 4" (pounds),
# "7 lb 8" (ounces); "5 foot 6" was 1.524 m and a lone 6.
_UNITS_BELOW = (
    ("duration", 3600.0, 60.0, 60),
    ("length", 0.3048, 0.0254, 12),
    ("length", 1.0, 0.01, 100),
    ("mass", 6350.29318, 453.59237, 14),
    ("mass", 453.59237, 28.349523125, 16),
)


# What may follow such a bare part: the text's end, a mark, a dimension, "and" or "in" ("is 5
# foot 6 and slim", "5 ft 6 in tall"); not a word it counts ("swims 400 m 3 times a week").
_AFTER_PART = re.compile(r"\s*(?:$|[^\w\s]|(?:tall|high|wide|deep|long|and|in)\b)")


def bare_part(last: Value, value: Value, folded: str) -> Value | None:
    """`value`, a bare whole number after `last`, read in the unit below last's, or None.
    Centimetres after metres are two digits ("1 m 80", "1 m 05")."""
    if value.measure != "number" or not value.value.isdigit():
        return None
    if not _AFTER_PART.match(folded, value.end):
        return None
    if last.measure == "length" and last.factor == 1.0 and value.end - value.start != 2:
        return None
    for measure, factor, below, count in _UNITS_BELOW:
        if (
            last.measure == measure
            and math.isclose(last.factor, factor, rel_tol=1e-6)
            and 0 < int(value.value) < count
        ):
            return replace(
                value,
                measure=measure,
                value=canonical_number(int(value.value) * below),
                factor=below,
            )
    return None
