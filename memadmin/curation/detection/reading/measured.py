"""A value read from a text (curation.detection.reading.quantities reads them; rates reads
how often), a number as its canonical text, a group of digits read as one code, and a
span in fixed and in calendar units that is one ("30 days" / "a month"). A conversion and
its rounding are reading.rounding's."""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Value:
    measure: str  # number | time | a unit's measure (duration, length, share...)
    value: str  # canonical: a number as text (no trailing zeros), or HH:MM
    start: int  # where it was written (character offset in the folded text)
    end: int
    # The unit's size in the measure's base unit (an hour: 3600), 0 with no unit; and the
    # unit as written. Not part of the value: "90 min" and "1.5 h" are one duration.
    factor: float = field(default=0.0, compare=False)
    unit: str = field(default="", compare=False)

    @property
    def key(self) -> tuple[str, str]:
        return self.measure, self.value


def canonical_number(number: float) -> str:
    """A number as text with no trailing zeros: 90.0 -> "90", 1.50 -> "1.5"."""
    text = f"{number:.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


# Digits joined by hyphens, with nothing after ("555-0199", "4521-883", "5-7"; not
# "10-20k" nor a date, which the date reader reads).
_DIGIT_GROUP = re.compile(r"\d+(?:-\d+)+(?![\w-]|[.,]\d)")
_ISO_DATE = re.compile(r"\d{4}-\d{2}(?:-\d{2})?")


def digit_group(value: Value, folded: str) -> Value:
    """A number the words read as its first digits alone, when hyphens join more to it:
    the whole group is one code ("555-0199" / "555-0142": two phone numbers, not one
    number 555)."""
    if value.measure != "number":
        return value
    group = _DIGIT_GROUP.match(folded, value.start)
    if group is None or group.end() <= value.end or _ISO_DATE.fullmatch(group.group()):
        return value
    return Value("code", group.group(), value.start, group.end(), 0.0, "")


# Months and years are calendar spans (no fixed length); against a span in days or
# hours they compare at their mean length, within SPAN_TOLERANCE ("30 days" = "a month").
SECONDS_PER_MONTH = 30.44 * 86400
SPAN_TOLERANCE = 0.05


def one_span(value_a: str, value_b: str) -> bool:
    """Whether a span in fixed units and one in calendar units ("duration:2592000",
    "calendar:1") are one span: within SPAN_TOLERANCE at a month's mean length."""
    (measure_a, _, a), (measure_b, _, b) = value_a.partition(":"), value_b.partition(":")
    if {measure_a, measure_b} != {"duration", "calendar"}:
        return False
    seconds, months = (float(a), float(b)) if measure_a == "duration" else (float(b), float(a))
    return one_length(seconds, months * SECONDS_PER_MONTH)


def one_length(seconds_a: float, seconds_b: float) -> bool:
    return abs(seconds_a - seconds_b) <= SPAN_TOLERANCE * max(seconds_a, seconds_b)
