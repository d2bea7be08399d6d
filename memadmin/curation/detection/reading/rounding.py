"""Two values that are one written apart: a conversion and its rounding ("5 foot 6" /
"168 cm", "72°F" / "22 °C", "60 mph" / "97 km/h")."""

from __future__ import annotations

from memadmin.curation.detection.reading import units

# A length or a mass converted from another system's unit ("5 foot 6": 1.6764 m, "11
# stone 4": 71,667.6 g) has more digits than anyone writes, and the same written in the
# other system is rounded ("168 cm", "72 kg"): one value where one side has four
# significant digits or more, the other fewer, within ROUNDING of each other. Two
# values both written in one system compare exactly ("72 kg" / "72.5 kg" differ).
# A writer who says the value is rounded ("about 19 km" for 12 miles, 1.6 % off; "roughly
# 2 litres" for half a gallon, 5.4 %) rounds it to the digits written: the conversion
# rounded so is the value, within SAID_ROUGHLY ("about 100 km" is no 70 miles, 113 km).
# Where both sides were converted (a speed is kept in metres a second: "60 mph" is
# 26.8224, "97 km/h" 26.9444), each is read back in the unit it was written in, the one
# of its measure that gives it the fewest digits: two units, within ROUNDING, are one
# value ("100 km/h" / "101 km/h", one unit, still differ).
ROUNDING = 0.01
SAID_ROUGHLY = 0.10
_ROUNDED_MEASURES = frozenset({"length", "mass", "volume", "area", "speed"})
# A temperature converted is rounded to the digits written ("450 °F", 232.2 °C: "230
# °C"; "68°F": "20 °C"), and no more than this many degrees off ("90°F" is no 40 °C).
TEMPERATURE_ROUNDING = 2.5
# A share is one written rounded only where a side says so ("roughly one in three" /
# "about 33%"): "99.95 %" / "99.9 %" are two availability targets.
_SAID_ROUGHLY_ONLY = frozenset({"share"})


def one_rounded(measure: str, value_a: str, value_b: str, roughly: bool = False) -> bool:
    """Whether two canonical values of a measure are one, converted and rounded (`roughly`:
    a side says its value is rounded)."""
    if measure in _SAID_ROUGHLY_ONLY and not roughly:
        return False
    if measure not in _ROUNDED_MEASURES | _SAID_ROUGHLY_ONLY and measure != "temperature":
        return False
    a, b = float(value_a), float(value_b)
    if _significant(value_a) >= 4 and _significant(value_b) >= 4:
        written_a, written_b = _written_unit(measure, a), _written_unit(measure, b)
        return (
            None not in (written_a, written_b)
            and written_a != written_b
            and abs(a - b) <= (SAID_ROUGHLY if roughly else ROUNDING) * max(abs(a), abs(b))
        )
    if (_significant(value_a) >= 4) == (_significant(value_b) >= 4):
        return False
    if measure == "temperature":  # to the digits written, a few degrees apart at most
        written, converted = (value_a, b) if _significant(value_a) < 4 else (value_b, a)
        as_written = float(f"{converted:.{max(1, _significant(written))}g}")
        return as_written == float(written) and abs(a - b) <= TEMPERATURE_ROUNDING
    if not roughly:
        return abs(a - b) <= ROUNDING * max(abs(a), abs(b))
    written, converted = (value_a, b) if _significant(value_a) < 4 else (value_b, a)
    as_written = float(f"{converted:.{_significant(written)}g}")
    return as_written == float(written) and abs(a - b) <= SAID_ROUGHLY * max(abs(a), abs(b))


def rounded_alike(key_a: str, key_b: str) -> bool:
    """one_rounded for two tokens' values ("length:1.6764" / "length:1.68")."""
    (measure_a, _, a), (measure_b, _, b) = key_a.partition(":"), key_b.partition(":")
    return measure_a == measure_b and one_rounded(measure_a, a, b)


def same_values(
    measure: str, values_a: set[str], values_b: set[str], roughly: bool = False
) -> bool:
    """Whether each value of one side is a value of the other, or one rounded."""
    return all(
        any(a == b or one_rounded(measure, a, b, roughly) for b in others)
        for mine, others in ((values_a, values_b), (values_b, values_a))
        for a in mine
    )


def _significant(value: str) -> int:
    """The significant digits of a canonical number ("1.6764": 5, "72000": 2)."""
    return len(value.lstrip("-").replace(".", "").strip("0"))


def _written_unit(measure: str, value: float) -> float | None:
    """The size of the unit of `measure` a converted value reads back in with the fewest
    digits (three at most: "26.8224" m/s is 60 mph), or None."""
    best = None
    for size in sorted({size for kind, size in units.table().values() if kind == measure}):
        if size <= 0:
            continue
        # Canonical values keep six decimals: 26.944444 m/s reads back as 96.99999 km/h.
        written = float(f"{value / size:.5g}")
        digits = _significant(f"{written:.6f}".rstrip("0").rstrip("."))
        if digits <= 3 and (best is None or digits < best[0]):
            best = (digits, size)
    return best[1] if best else None
