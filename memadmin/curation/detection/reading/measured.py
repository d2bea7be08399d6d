"""A value read from a text (curation.detection.reading.quantities reads them; rates reads
how often), and a number as its canonical text."""

from __future__ import annotations

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
