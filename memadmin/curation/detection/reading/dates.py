"""Dates written in words or digits ("4 Nov 2025", "March 14", "12. April", "3 de
marzo", "3/14/1990", "2025-09-03", "2026年3月14日"), read as ISO-like text with the parts a
text leaves out empty ("-03-14"): key tokens compare them (reading.keytokens), a fuller
and a partial form of one date agreeing."""

import re

ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
CHINESE_DATE = re.compile(r"(?:(\d{4})年)?(\d{1,2})月(?:(\d{1,2})[日号])?")
# A day and a month written with digits, either first, and a year: "3/14/1990",
# "14.03.1990". The quantity reader's tokens take it whole (reading.tokens).
NUMERIC_DATE = r"\d{1,2}(?P<stop>[/.])\d{1,2}(?P=stop)(?:19|20)\d{2}"
_NUMERIC_DATE = re.compile(NUMERIC_DATE)
_YEAR = re.compile(r"(19|20)\d{2}")
_DAY = re.compile(r"(\d{1,2})(?:st|nd|rd|th|er|e|\.)?")


def _day(lower: str) -> int | None:
    match = _DAY.fullmatch(lower)
    return int(match.group(1)) if match and 1 <= int(match.group(1)) <= 31 else None


def date_at(words_, index: int, months: dict[str, str]) -> tuple[str | None, int]:
    """A date starting at word `index` of `words_` (key tokens' words: .raw and .lower)
    ("4 Nov 2025", "March 14", "12. April", "May 2026", "2025-09-03", "3/14/1990") as
    ISO-like text (unknown parts left empty), and how many words it took. `months`: a
    month's every spelling to its number."""
    first = words_[index].lower
    if not first[:1].isdigit() and first not in months:
        return None, 0  # every date opens with a digit (a day, an ISO date) or a month

    def lower(offset: int) -> str:
        return words_[index + offset].lower if index + offset < len(words_) else ""

    if ISO_DATE.fullmatch(lower(0)):
        return lower(0), 1
    if _NUMERIC_DATE.fullmatch(lower(0)):
        date = _numeric_date(*re.split(r"[/.]", lower(0)))
        return (date, 1) if date else (None, 0)
    day, month, year, used = _day(lower(0)), months.get(lower(1)), "", 0
    if day and not month and lower(1) in ("of", "de") and months.get(lower(2)):
        month, used = months[lower(2)], 3  # the 3rd of March, 3 de marzo
        if _YEAR.fullmatch(lower(3)) or (lower(3) == "de" and _YEAR.fullmatch(lower(4))):
            year, used = (lower(3), 4) if lower(3) != "de" else (lower(4), 5)
    elif day and month:  # 4 Nov [2025], 12. April
        used = 2
        if _YEAR.fullmatch(lower(2)):
            year, used = lower(2), 3
    elif lower(0) in months and (words_[index].raw[0].isupper() or len(lower(0)) > 3):
        month = months[lower(0)]
        if _day(lower(1)):  # March 14[, 2026], December 19th
            day, used = _day(lower(1)), 2
            if _YEAR.fullmatch(lower(2)):
                year, used = lower(2), 3
        elif _YEAR.fullmatch(lower(1)):  # May 2026
            year, used = lower(1), 2
    if not used:
        return None, 0
    return (f"{year}-{month}-{day:02d}" if day else f"{year}-{month}"), used


def _numeric_date(first: str, second: str, year: str) -> str | None:
    """A date written with digits, the day first or the month ("14.03.1990", "3/14/1990"):
    the whole date where one number can only be the day, its year alone where either could
    be the month ("5/6/1990"), None where neither is a month."""
    a, b = int(first), int(second)
    if min(a, b) < 1 or max(a, b) > 31 or min(a, b) > 12:
        return None
    if max(a, b) <= 12:
        return year
    day, month = (a, b) if a > 12 else (b, a)
    return f"{year}-{month:02d}-{day:02d}"
