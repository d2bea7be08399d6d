"""Times of day and times taken written as a clock, for curation.detection.reading.
quantities: "6:40 pm" and "18:40" are one time, "3 pm" is 15:00, French "à 10 h" and
"15h30" times of day; "1h30" outside French and a clock after "in" ("finished the
marathon in 3:45") a duration."""

from __future__ import annotations

import re

from memadmin.curation.detection.reading.measured import Value, canonical_number
from memadmin.store.lexicon import lexicon


def clock_token(
    token: str, tokens, position: int, language: str, units: dict[str, tuple[str, float]]
) -> tuple[Value | None, int]:
    """The value a token written as a clock says, and the tokens it takes: "6:40 pm" is
    18:40; after "in" ("finished the marathon in 3:45", "ran 5 km in 24:30") the clock
    counts a time taken: hours and minutes where its first number is below ten, else
    minutes and seconds, or as the unit after it says (`units`: quantities' table of each
    unit's measure and size)."""
    _, _, start, end = tokens[position]
    before = tokens[position - 1][1] if position else ""
    following = tokens[position + 1][1] if position + 1 < len(tokens) else ""
    half = dotted_half_of_day(tokens, position + 1) or following
    markers = lexicon()["time_of_day"]
    value = _time_token(token, start, end, language)
    if value is not None and value.measure == "time" and half in markers["am"] + markers["pm"]:
        hours = int(value.value[:2]) % 12 + (12 if half in markers["pm"] else 0)
        taken = 3 if half != following else 2  # "p.m." is two tokens
        return Value(
            "time", f"{hours:02d}{value.value[2:]}", start, tokens[position + taken - 1][3]
        ), taken
    if before in ("in", "en") and ":" in token and half not in markers["oclock"]:
        parts = [int(part) for part in token.split(":")]
        if all(part < 60 for part in parts[1:]):
            unit_after = units.get(following, ("", 0.0))[1]
            hours = len(parts) == 3 or unit_after == 3600 or (parts[0] < 10 and unit_after != 60)
            scale = (3600, 60, 1) if hours else (60, 1)  # "4:30 min": minutes, seconds
            seconds = sum(part * unit for part, unit in zip(parts, scale, strict=False))
            return Value("duration", canonical_number(seconds), start, end, 1.0, "s"), 1
    return value, 1


def _time_token(token: str, start: int, end: int, language: str) -> Value | None:
    """A token written as a time: a time of day ("03:00", French "15h30"), or outside
    French "1h30", an hour and a half; minutes and seconds where no time of day reads
    ("52:30")."""
    time = _time_of_day(token, language)
    if time:
        return Value("time", time, start, end)
    parts = token.split(":")
    if len(parts) == 2 and int(parts[1]) < 60:  # "52:30": no time of day, a time taken
        seconds = canonical_number(int(parts[0]) * 60 + int(parts[1]))
        return Value("duration", seconds, start, end, 1.0, "s")
    hours, _, minutes = token.partition("h")
    if minutes and int(minutes) < 60:
        seconds = canonical_number(int(hours) * 3600 + int(minutes) * 60)
        return Value("duration", seconds, start, end, 3600.0, "h")
    return None


def _time_of_day(token: str, language: str) -> str | None:
    """ "03:00", "15h30" (French), "9:30" as HH:MM."""
    if "h" in token and language != "fr":
        return None
    hours, minutes = re.split(r"[:h]", token)[:2]
    if int(hours) > 24 or int(minutes) > 59:
        return None
    return f"{int(hours):02d}:{minutes}"


def french_hour(number: float, tokens, position: int, language: str) -> bool:
    """ "Le stand-up est à 10 h": a French hour after "à" or "vers" is a time of day, not
    ten hours."""
    if language != "fr" or not float(number).is_integer() or not 0 <= number <= 24:
        return False
    unit = tokens[position + 1][1] if position + 1 < len(tokens) else ""
    before = tokens[position - 1][1] if position else ""
    return unit == "h" and before in ("à", "vers", "dès")


def clock_time(number: float, tokens, position: int, language: str) -> str | None:
    """ "3 am" -> 03:00, "3 pm" -> 15:00, "15 Uhr" -> 15:00, "9h" in French -> 09:00."""
    if position >= len(tokens) or not float(number).is_integer() or not 0 <= number <= 24:
        return None
    following = dotted_half_of_day(tokens, position) or tokens[position][1]
    markers = lexicon()["time_of_day"]
    hours = int(number)
    if following in markers["am"]:
        return f"{hours % 12:02d}:00"
    if following in markers["pm"]:
        return f"{hours % 12 + 12:02d}:00"
    if following in markers["oclock"] and (following != "h" or language == "fr"):
        return f"{hours:02d}:00"
    return None


def dotted_half_of_day(tokens, position: int) -> str | None:
    """ "a.m." or "p.m." written with its stops (two tokens, "p" and "m"), else None."""
    if position + 1 >= len(tokens) or tokens[position][1] not in ("a", "p"):
        return None
    following = tokens[position + 1]
    adjacent = following[2] - tokens[position][3] == 1  # only the stop between
    return f"{tokens[position][1]}m" if following[1] == "m" and adjacent else None


def either_half_of_day(time_a: str, time_b: str, written_a: str, text_a: str) -> bool:
    """Whether two times twelve hours apart are one: the morning one (`time_a`, HH:MM)
    written as a 12-hour clock ("7:30", "half past seven", not "07:30"), with no word of
    the half of the day in its text: "Dinner is at 7:30" / "... at 19:30"."""
    if int(time_b[:2]) - int(time_a[:2]) != 12 or time_a[2:] != time_b[2:]:
        return False
    if written_a.startswith("0"):
        return False  # "07:30": a 24-hour clock says its half of the day
    markers = lexicon()["time_of_day"]
    halves = [*markers["am"], *markers["pm"], "morning", "evening", "night"]
    folded = text_a.lower()
    # A letter may not stand next to the word; a digit may ("2am").
    return not any(
        re.search(rf"(?<![^\W\d_]){re.escape(word)}(?![^\W\d_])", folded) for word in halves
    )


def a_time_taken(time: str, seconds: str, text: str) -> bool:
    """Whether a clock (HH:MM) read as a time of day says a duration in seconds, as
    minutes and seconds or hours and minutes: "21:40" / "21 min 40 s" ("His 5k best is
    21:40": no "in" before it said it was a time taken). Not a clock `text` says after
    "at" or "until" ("The flight leaves at 11:20." / "... takes 11 h 20 min")."""
    first, second = (int(part) for part in time.split(":"))
    if float(seconds) not in (first * 60 + second, (first * 60 + second) * 60):
        return False
    at = "|".join(re.escape(word) for word in lexicon()["time_of_day"]["at"])
    clock = rf"0?{first}[:.h]{second:02d}\b"
    return re.search(rf"(?:^|\s)(?:{at})\s+{clock}", text.lower()) is None
