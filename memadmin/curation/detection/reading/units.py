"""The units values are read in: the table of each unit word's measure and size in the
measure's base unit (pint converts; store/lexicon.toml names the words), and units written
in more than one token, for curation.detection.reading.quantities: a degree with its scale
("72°F", "22 °C": one temperature, in Celsius), a length squared ("65 m²", "700 sq ft",
"65 square metres": one area), a height in metres with its centimetres glued on ("1m80":
1.8 m), and a currency's millions glued to its number ("$1.5M", "€2bn")."""

from __future__ import annotations

import hashlib
import json
import os
import re
from functools import cache
from importlib import metadata

from django.conf import settings

from memadmin.curation.detection.reading.measured import Value, canonical_number
from memadmin.store.lexicon import lexicon


@cache
def table() -> dict[str, tuple[str, float]]:
    """unit word -> (measure, factor to the measure's base unit). pint gives the factor of
    every unit it knows (store/lexicon.toml names them); the lexicon the rest. Loading
    pint's registry took 0.4 s of every process that reads a text (each run, worker and
    web process): the table is kept in the app's cache folder, under a digest of what
    makes it (the lexicon's units, the base unit of each measure, pint's version), and
    pint is loaded only when one of them changes."""
    units = lexicon()["units"]
    digest = hashlib.sha256(
        json.dumps([units, BASE_UNITS, metadata.version("pint")], sort_keys=True).encode()
    ).hexdigest()[:16]
    path = settings.DATA_DIR / "cache" / f"units-{digest}.json"
    try:
        kept = json.loads(path.read_text())
        table = {unit: (str(measure), float(factor)) for unit, (measure, factor) in kept.items()}
        if table.keys() == units.keys():
            return table
    except (OSError, ValueError, TypeError, AttributeError):
        pass  # not computed yet, or unreadable: computed again
    table = {unit: (measure, _factor(measure, spec)) for unit, (measure, spec) in units.items()}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        written = path.with_suffix(f".{os.getpid()}.tmp")
        written.write_text(json.dumps(table))
        written.replace(path)  # whole or not at all: processes may start side by side
    except OSError:
        pass  # a read-only folder: computed again next time
    return table


# The unit each measure is compared in.
BASE_UNITS = {
    "duration": "second",
    "length": "meter",
    "mass": "gram",
    "volume": "liter",
    "area": "meter ** 2",
    "bytes": "byte",
    "speed": "meter / second",
    "force": "newton",
    "torque": "newton * meter",
    "voltage": "volt",
    "current": "ampere",
    "power": "watt",
    "energy": "watt_hour",
    "frequency": "hertz",
    "rpm": "revolutions_per_minute",
}


def _factor(measure: str, spec) -> float:
    if not isinstance(spec, str):
        return float(spec)
    return float(_registry().Quantity(1, spec).to(BASE_UNITS[measure]).magnitude)


@cache
def _registry():
    """pint's unit registry (loaded once per process, 0.5 s; only its factors are used,
    read once into the table above)."""
    import pint

    return pint.UnitRegistry()


# The words a length is squared with, before it ("square metres", "sq ft").
_SQUARED_BEFORE = frozenset({"square", "sq", "quadrat", "carré", "carrés", "cuadrados"})
# A height glued: one or two digits of metres, "m", two of centimetres ("1m80").
_GLUED_HEIGHT = re.compile(r"([12])m(\d{2})(?!\w|[.,]\d)")
# Millions and billions glued to a sum after a currency sign ("$1.5M", "€2bn", "£3m").
CURRENCY_SCALES = {"m": 1e6, "mn": 1e6, "mio": 1e6, "b": 1e9, "bn": 1e9}


def unit_after(number: float, start: int, tokens, position: int, folded: str):
    """The value a number (written from `start`) and a unit written in several tokens
    from `position` on make, and the position of the unit's last token; None where none
    is written there."""
    if (height := glued_height(folded, start)) is not None:
        return height, position - 1  # "1m80": in the number's own token
    if position >= len(tokens):
        return None
    _, text, unit_start, end = tokens[position]
    gap = folded[tokens[position - 1][3] : unit_start]
    if gap not in ("", " ", "\u00a0"):
        return None
    if text == "°":
        return _degrees(number, start, tokens, position, folded)
    if text in _SQUARED_BEFORE and position + 1 < len(tokens):
        length = table().get(tokens[position + 1][1])
        if length is not None and length[0] == "length" and folded[end] == " ":
            return _area(number, start, length[1], tokens[position + 1][3]), position + 1
    length = table().get(text)
    squared = folded[end : end + 1] == "2" and not folded[end + 1 : end + 2].isalnum()
    if length is not None and length[0] == "length" and squared:  # "m2", from "m²"
        return _area(number, start, length[1], end + 1), position
    return None


def _degrees(number: float, start: int, tokens, position: int, folded: str):
    """ "72°F" and "22 °C": a temperature in Celsius; a bare degree is read as before."""
    _, _, _, end = tokens[position]
    scale = tokens[position + 1] if position + 1 < len(tokens) else None
    if scale is None or scale[1] not in ("c", "f") or folded[end : scale[2]] not in ("", " "):
        return None
    if scale[3] < len(folded) and folded[scale[3]].isalnum():
        return None
    celsius = (number - 32) * 5 / 9 if scale[1] == "f" else number
    value = Value("temperature", canonical_number(celsius), start, scale[3], 1.0, scale[1])
    return value, position + 1


def _area(number: float, start: int, metres: float, end: int) -> Value:
    return Value("area", canonical_number(number * metres * metres), start, end, metres**2, "m2")


def glued_height(folded: str, start: int) -> Value | None:
    """ "1m80" at `start`: 1.8 m."""
    found = _GLUED_HEIGHT.match(folded, start)
    if found is None:
        return None
    metres = int(found.group(1)) + int(found.group(2)) / 100
    return Value("length", canonical_number(metres), start, found.end(), 1.0, "m")


def currency_scale(token, folded: str, previous_end: int) -> float:
    """The millions a letter glued to a sum after a currency sign says ("$1.5M"), or 0."""
    kind, text, start, _ = token
    return CURRENCY_SCALES.get(text, 0.0) if kind == "word" and start == previous_end else 0.0
