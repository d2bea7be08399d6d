"""Quantities said as phrases: a half ("seven and a half hours", "an hour and a half",
"sept heures et demie"), a quarter of an hour, a fortnight, a decade, noon and midnight,
a time of day in words ("half past nine"), and a
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
    (re.compile(r"\b(?:a|one) decade\b|\bune d[ée]cennie\b|\bein jahrzehnt\b"), "calendar", 120),
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


# A time of day said in words: "half past nine" (09:30), "a quarter to ten" (09:45), "ten
# past six"; the hour in digits or words, as a clock without "am" or "pm" reads it.
# The hours of a clock in words, one to twelve.
_NUMBER_WORDS = ("one two three four five six seven eight nine ten eleven twelve").split()
_MINUTES = {"quarter": 15, "half": 30, "five": 5, "ten": 10, "twenty": 20, "twenty-five": 25}
_SPOKEN_CLOCK = re.compile(
    r"\b(?:a )?(quarter|half|twenty-five|twenty|ten|five) (past|after|to) "
    rf"({'|'.join(_NUMBER_WORDS)}|1[0-2]|[1-9])\b(?![:.]\d)"
)


def _spoken_clocks(folded: str):
    """(span, "HH:MM") of each time of day said in words."""
    for match in _SPOKEN_CLOCK.finditer(folded):
        minutes, way, hour = match.groups()
        hour = int(hour) if hour.isdigit() else _NUMBER_WORDS.index(hour) + 1
        if way == "to":
            hour, minutes = (hour - 2) % 12 + 1, 60 - _MINUTES[minutes]
        else:
            minutes = _MINUTES[minutes]
        yield match.span(), f"{hour:02d}:{minutes:02d}"


# A share said as one in so many ("one in four users": 25 %), and a place in an order
# after "the" ("the second floor", as "the 2nd floor" is read: 2; not "first", said of
# anything's start, nor "a second").
_COUNTS = {word: number for number, word in enumerate(_NUMBER_WORDS[:10], 1)}
_ONE_IN = re.compile(rf"\b(one|[1-9]) in ({'|'.join(_NUMBER_WORDS[1:10])}|[2-9]|[1-9]\d{{1,2}})\b")
_ORDINALS = (
    "second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth"
    " fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"
).split()
_ORDINALS += [f"twenty-{o}" for o in ["first", *_ORDINALS[:8]]] + ["thirtieth", "thirty-first"]
_ORDINAL = re.compile(rf"\bthe ({'|'.join(sorted(_ORDINALS, key=len)[::-1])})\b(?=\s*[a-z.,;!?]|$)")


_ORDINAL_NUMBERS = {word: number for number, word in enumerate(_ORDINALS[:19], 2)}
_ORDINAL_NUMBERS |= {word: number for number, word in enumerate(_ORDINALS[19:], 21)}


def _said_in_words(folded: str):
    """(span, measure, value) of each time of day, share and place said in words."""
    for span, time in _spoken_clocks(folded):
        yield span, "time", time
    for match in _ONE_IN.finditer(folded):
        top = 1 if match.group(1) == "one" else int(match.group(1))
        bottom = _COUNTS.get(match.group(2)) or int(match.group(2))
        yield match.span(), "share", canonical_number(100 * top / bottom)
    for match in _ORDINAL.finditer(folded):
        yield match.span(1), "number", str(_ORDINAL_NUMBERS[match.group(1)])


def idioms(folded: str, found: list[Value]) -> list[Value]:
    """The phrases of _IDIOMS in `folded`, each one value; `found` loses what they hold."""
    read = []
    for (start, end), measure, said in _said_in_words(folded):
        inside = [v for v in found if start <= v.start < end]
        if measure == "share" and any(v.measure != "number" for v in inside):
            continue  # "did 10 in 30 minutes": a count in a time taken, no share
        found[:] = [v for v in found if v not in inside]
        read.append(Value(measure, said, start, end))
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
