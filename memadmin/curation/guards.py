"""What must stop an automatic merge: metadata guards, protected memories, and key-token
differences (the values that make "deployed on Hetzner" and "deployed on Railway" two
facts, however close their embeddings).

Pure functions over anything shaped like a Memory (content, category, source_ref, tags,
importance, confidence, pinned), so detection, the API and the calibration share them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings

# --- Metadata guards ---------------------------------------------------------------------

SESSION_TAG_PREFIX = "session:"


def session_tags(memory) -> set[str]:
    return {tag for tag in memory.tags if tag.startswith(SESSION_TAG_PREFIX)}


def metadata_guard(a, b) -> str | None:
    """Why two memories must never be merged automatically nor proposed as duplicates
    (None when their metadata allows it)."""
    if a.category != b.category:
        return f"different category ({a.category or '-'} / {b.category or '-'})"
    if a.source_ref != b.source_ref:
        return f"different source_ref ({a.source_ref or '-'} / {b.source_ref or '-'})"
    if session_tags(a) != session_tags(b):
        return "different session tags"
    return None


def is_protected(memory) -> bool:
    """Never merged automatically: protected categories, pinned, or importance or
    confidence at the protected level."""
    return bool(
        memory.pinned
        or memory.category in settings.PROTECTED_CATEGORIES
        or memory.importance >= settings.PROTECTED_LEVEL
        or memory.confidence >= settings.PROTECTED_LEVEL
    )


# --- Key tokens --------------------------------------------------------------------------

WEEKDAYS = {
    **dict.fromkeys(["monday", "mondays", "lundi", "montag", "mon"], "monday"),
    **dict.fromkeys(["tuesday", "tuesdays", "mardi", "dienstag", "tue"], "tuesday"),
    **dict.fromkeys(["wednesday", "wednesdays", "mercredi", "mittwoch", "wed"], "wednesday"),
    **dict.fromkeys(["thursday", "thursdays", "jeudi", "donnerstag", "thu"], "thursday"),
    **dict.fromkeys(["friday", "fridays", "vendredi", "freitag", "fri"], "friday"),
    **dict.fromkeys(["saturday", "saturdays", "samedi", "samstag", "sat"], "saturday"),
    **dict.fromkeys(["sunday", "sundays", "dimanche", "sonntag", "sun"], "sunday"),
    **dict.fromkeys(["星期一", "周一"], "monday"),
    **dict.fromkeys(["星期二", "周二"], "tuesday"),
    **dict.fromkeys(["星期三", "周三"], "wednesday"),
    **dict.fromkeys(["星期四", "周四"], "thursday"),
    **dict.fromkeys(["星期五", "周五"], "friday"),
    **dict.fromkeys(["星期六", "周六"], "saturday"),
    **dict.fromkeys(["星期日", "周日", "星期天"], "sunday"),
}
MONTHS = {
    **dict.fromkeys(["january", "jan", "janvier", "januar", "jänner"], "01"),
    **dict.fromkeys(["february", "feb", "février", "fevrier", "februar"], "02"),
    **dict.fromkeys(["march", "mar", "mars", "märz", "maerz"], "03"),
    **dict.fromkeys(["april", "apr", "avril"], "04"),
    **dict.fromkeys(["may", "mai"], "05"),
    **dict.fromkeys(["june", "jun", "juin", "juni"], "06"),
    **dict.fromkeys(["july", "jul", "juillet", "juli"], "07"),
    **dict.fromkeys(["august", "aug", "août", "aout"], "08"),
    **dict.fromkeys(["september", "sep", "sept", "septembre"], "09"),
    **dict.fromkeys(["october", "oct", "octobre", "oktober"], "10"),
    **dict.fromkeys(["november", "nov", "novembre"], "11"),
    **dict.fromkeys(["december", "dec", "décembre", "decembre", "dezember"], "12"),
}
ENVIRONMENTS = {
    **dict.fromkeys(["production", "prod", "prd", "live"], "production"),
    **dict.fromkeys(["staging", "stage", "stg", "preprod"], "staging"),
    **dict.fromkeys(["development", "dev", "local"], "development"),
    **dict.fromkeys(["test", "testing", "qa", "sandbox"], "test"),
}
# Pairs of words of opposite polarity: one on each side of a pair reads as a contradiction.
OPPOSITES = [
    (
        {"like", "likes", "love", "loves", "enjoy", "enjoys", "liked", "loved"},
        {"hate", "hates", "dislike", "dislikes", "detest", "detests", "hated", "disliked"},
    ),
    ({"enabled", "enable", "on"}, {"disabled", "disable", "off"}),
    ({"allowed", "permitted"}, {"forbidden", "banned", "prohibited", "disallowed"}),
    ({"always"}, {"never"}),
    ({"with"}, {"without"}),
    ({"喜欢", "爱"}, {"讨厌", "不喜欢"}),
    ({"mag", "liebt"}, {"hasst"}),
    ({"aime", "adore"}, {"déteste"}),
]
# A fact that announces its own change: the newer text of an update usually says so.
UPDATE_CUES = re.compile(
    r"\b(now|no longer|not anymore|any ?more|moved|switched|changed|updated|upgraded|"
    r"migrated|replaced|retired|removed|left|since|instead|from now on|actually|"
    r"nicht mehr|jetzt|inzwischen|désormais|maintenant|plus de)\b|现在|已经|不再|改为",
    re.IGNORECASE,
)

_TOKEN = re.compile(r"[\w#][\w.\-/:%°³²]*[\w%°³²\"]|[\w%]", re.UNICODE)
_NUMBER = re.compile(r"^\d+(?:[.,]\d+)*(?:st|nd|rd|th|e|er)?$")
_TIME = re.compile(r"^\d{1,2}:\d{2}(?::\d{2})?$")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_IP = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?$")
_HOST = re.compile(r"^[a-z0-9-]+(?:\.[a-z0-9-]+)+$")
_IDENTIFIER = re.compile(r"^#?(?=.*\d)(?=.*[a-z])[a-z0-9]+(?:[-_][a-z0-9]+)*$")
_NUMBER_WITH_UNIT = re.compile(r"^(\d+(?:[.,]\d+)*)([a-z%°µ/³²\"]+)$")
_CJK_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_YEAR = re.compile(r"^(19|20)\d{2}$")
_SENTENCE_END = (".", "!", "?", "。", "！", "？")
# Units a quantity is measured in, folded to one spelling: "40 minutes" and "40 min" are
# one value; "15 N" and "12.5 N" are two values of the same quantity.
UNITS = {
    **dict.fromkeys(["%", "percent", "pct", "prozent"], "%"),
    **dict.fromkeys(["s", "sec", "secs", "second", "seconds", "sek"], "s"),
    **dict.fromkeys(["min", "mins", "minute", "minutes", "minuten"], "min"),
    **dict.fromkeys(["h", "hr", "hrs", "hour", "hours", "stunden", "heures"], "h"),
    **dict.fromkeys(["d", "day", "days", "tage", "jours"], "day"),
    **dict.fromkeys(["week", "weeks", "wochen", "semaines"], "week"),
    **dict.fromkeys(["month", "months", "monate", "mois"], "month"),
    **dict.fromkeys(["year", "years", "yr", "yrs", "jahre", "ans"], "year"),
    **dict.fromkeys(["ms", "µs", "ns"], "ms"),
    **dict.fromkeys(["mm", "cm", "m", "km", "in", "inch", '"', "ft"], "length"),
    **dict.fromkeys(["mm/s", "m/s", "km/h", "mph"], "speed"),
    **dict.fromkeys(["n", "nm", "kn"], "force"),
    **dict.fromkeys(["g", "kg", "mg", "lb"], "mass"),
    **dict.fromkeys(["b", "kb", "mb", "gb", "tb", "pb", "kib", "mib", "gib", "tib"], "bytes"),
    **dict.fromkeys(["v", "mv", "a", "ma", "w", "kw", "mw", "wh", "kwh"], "electric"),
    **dict.fromkeys(["°", "°c", "°f", "c", "k"], "temperature"),
    **dict.fromkeys(["hz", "khz", "mhz", "ghz"], "frequency"),
    **dict.fromkeys(["rpm"], "rpm"),
    **dict.fromkeys(["replicas", "replica", "nodes", "node", "cores", "core", "vcpu"], "count"),
    **dict.fromkeys(["€", "eur", "usd", "$", "£", "chf"], "money"),
}


@dataclass(frozen=True)
class KeyToken:
    """A value in a text that a paraphrase keeps and a changed fact changes."""

    # number | quantity | time | date | ip | host | weekday | month | env | name
    kind: str
    value: str


@dataclass
class _Word:
    raw: str
    lower: str
    at_start: bool


def _words_of(text: str) -> list[_Word]:
    words = []
    sentence_start = True
    for match in _TOKEN.finditer(text):
        raw = match.group().strip(".-/:")
        if not raw:
            continue
        before = text[: match.start()].rstrip()
        at_start = sentence_start or before.endswith(_SENTENCE_END)
        sentence_start = False
        words.append(_Word(raw, raw.lower(), at_start))
    return words


@lru_cache(maxsize=65536)
def key_tokens(text: str) -> frozenset[KeyToken]:
    """The key tokens of `text`: numbers (and, with a unit, quantities), times, dates
    (ISO, or day and month in words), IPs, hosts, weekdays, months, environments
    (staging / production) and names (capitalised words inside a sentence, and
    identifiers of letters and digits: R-118, pve2, E-042)."""
    words = _words_of(unicodedata.normalize("NFKC", text))
    found: set[KeyToken] = set()
    index = 0
    while index < len(words):
        date, used = _date_at(words, index)
        if date:
            found.add(KeyToken("date", date))
            index += used
            continue
        following = words[index + 1].lower if index + 1 < len(words) else ""
        tokens = _classify(words[index], following)
        found.update(tokens)
        # "15 N": the unit word belongs to the quantity, it is no name of its own.
        unit_taken = any(token.kind == "quantity" for token in tokens) and following in UNITS
        index += 2 if unit_taken and _NUMBER.match(words[index].lower) else 1
    return frozenset(found)


def _day(lower: str) -> int | None:
    match = re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th|er|e)?", lower)
    return int(match.group(1)) if match and 1 <= int(match.group(1)) <= 31 else None


def _date_at(words: list[_Word], index: int) -> tuple[str | None, int]:
    """A date written in words starting at `index` ("4 Nov 2025", "March 14", "12. April",
    "May 2026") as ISO-like text (unknown parts left empty), and how many words it took."""

    def lower(offset: int) -> str:
        return words[index + offset].lower if index + offset < len(words) else ""

    day, month, year, used = _day(lower(0)), MONTHS.get(lower(1)), "", 0
    if day and month:  # 4 Nov [2025]
        used = 2
        if _YEAR.match(lower(2)):
            year, used = lower(2), 3
    elif lower(0) in MONTHS and (words[index].raw[0].isupper() or len(lower(0)) > 3):
        month = MONTHS[lower(0)]
        if _day(lower(1)):  # March 14[, 2026]
            day, used = _day(lower(1)), 2
            if _YEAR.match(lower(2)):
                year, used = lower(2), 3
        elif _YEAR.match(lower(1)):  # May 2026
            year, used = lower(1), 2
    if not used:
        return None, 0
    return f"{year}-{month}-{day:02d}" if day else f"{year}-{month}", used


def _classify(word: _Word, following: str) -> list[KeyToken]:
    raw, lower = word.raw, word.lower
    if _TIME.match(lower):
        hours, minutes = lower.split(":")[:2]
        return [KeyToken("time", f"{int(hours):02d}:{minutes}")]
    if _ISO_DATE.match(lower):
        return [KeyToken("date", lower)]
    if _IP.match(lower):
        return [KeyToken("ip", lower)]
    if _NUMBER.match(lower):
        return _number(lower, UNITS.get(following))
    with_unit = _NUMBER_WITH_UNIT.match(lower)
    if with_unit and with_unit.group(2) in UNITS:
        return _number(with_unit.group(1), UNITS[with_unit.group(2)])
    if "/" in lower and all(_NUMBER.match(part) for part in lower.split("/") if part):
        return [KeyToken("number", _number_value(part)) for part in lower.split("/") if part]
    if lower in WEEKDAYS:
        return [KeyToken("weekday", WEEKDAYS[lower])]
    if lower in MONTHS and (raw[0].isupper() or len(lower) > 3):
        return [KeyToken("month", MONTHS[lower])]
    if lower in ENVIRONMENTS:
        return [KeyToken("env", ENVIRONMENTS[lower])]
    if _HOST.match(lower) and any(c.isalpha() for c in lower.rsplit(".", 1)[-1]):
        return [KeyToken("host", lower)]
    if _IDENTIFIER.match(lower) or (not word.at_start and raw[0].isupper() and "-" in raw):
        # Identifiers (R-118, pve2) and hyphenated names (Contact-GraspNet) both say
        # which entity a fact is about, like names do.
        return [KeyToken("name", lower)]
    if any("\u4e00" <= ch <= "\u9fff" for ch in raw):
        return [KeyToken("number", _number_value(n)) for n in _CJK_NUMBER.findall(raw)]
    if raw[0].isupper() and not word.at_start and raw.isalpha() and lower not in NAME_STOPWORDS:
        return [KeyToken("name", lower)]
    return []


def _number(number: str, unit: str | None) -> list[KeyToken]:
    value = _number_value(number)
    tokens = [KeyToken("number", value)]
    if unit:
        tokens.append(KeyToken("quantity", f"{unit}={value}"))
    return tokens


def _number_value(number: str) -> str:
    number = re.sub(r"(st|nd|rd|th|er|e|\.)$", "", number)
    # "6,5" and "6.5" are the same number in French/German and English texts; "10,000"
    # keeps its grouping (three digits after the comma).
    if re.fullmatch(r"\d+,\d{1,2}", number):
        number = number.replace(",", ".")
    return number.replace(",", "")


# Capitalised words that are not names: sentence-internal English/French/German words
# that are capitalised by convention (pronouns, German nouns are handled by length).
NAME_STOPWORDS = {"i", "i'm", "the", "a", "an", "ok", "okay", "via", "and", "or"}


def _compatible(kind: str, value: str, others: set[str]) -> bool:
    """A name is kept by the other text when it appears there, or a longer or shorter
    form of it does (Postgres / PostgreSQL); a date when a fuller or partial form of it
    does (2025-09-03 / "3 September" = -09-03 / "September 2025" = 2025-09)."""
    if kind == "date":
        return any(
            value == o
            or o.endswith(value)
            or value.endswith(o)
            or o.startswith(value)
            or value.startswith(o)
            for o in others
        )
    return any(
        value == other
        or (
            min(len(value), len(other)) >= 4
            and (value.startswith(other) or other.startswith(value))
        )
        for other in others
    )


@dataclass(frozen=True)
class KeyTokenDifference:
    kind: str
    only_in_a: tuple[str, ...]
    only_in_b: tuple[str, ...]

    def describe(self) -> str:
        return f"{self.kind}: {', '.join(self.only_in_a)} vs {', '.join(self.only_in_b)}"


def key_token_differences(text_a: str, text_b: str) -> list[KeyTokenDifference]:
    """Kinds of key token for which each text has a value the other lacks: "on Tuesday"
    vs "on Thursday", "3.11" vs "3.13". A value present on one side only is added detail,
    not a difference (a paraphrase may say more)."""
    tokens_a, tokens_b = key_tokens(text_a), key_tokens(text_b)
    differences = []
    for kind in sorted({token.kind for token in tokens_a | tokens_b}):
        values_a = {token.value for token in tokens_a if token.kind == kind}
        values_b = {token.value for token in tokens_b if token.kind == kind}
        if kind == "quantity":
            differences.extend(_quantity_differences(values_a, values_b))
            continue
        if kind == "name":
            # A sentence-initial name is not extracted ("NOx readings..."), but the word is
            # there: any word of the other text keeps a name.
            words_a, words_b = values_a | _words(text_a), values_b | _words(text_b)
            only_a = sorted(v for v in values_a if not _compatible(kind, v, words_b))
            only_b = sorted(v for v in values_b if not _compatible(kind, v, words_a))
        elif kind == "date":
            only_a = sorted(v for v in values_a if not _compatible(kind, v, values_b))
            only_b = sorted(v for v in values_b if not _compatible(kind, v, values_a))
        else:
            only_a, only_b = sorted(values_a - values_b), sorted(values_b - values_a)
        if only_a and only_b:
            differences.append(KeyTokenDifference(kind, tuple(only_a), tuple(only_b)))
    return differences


def _quantity_differences(values_a: set[str], values_b: set[str]) -> list[KeyTokenDifference]:
    """A unit measured on both sides with different values is a changed quantity, even
    when the newer text also mentions the old value ("15 N; at 12.5 N it slipped")."""
    differences = []
    units_a = {value.split("=")[0] for value in values_a}
    units_b = {value.split("=")[0] for value in values_b}
    for unit in sorted(units_a & units_b):
        of_a = {v.split("=")[1] for v in values_a if v.startswith(f"{unit}=")}
        of_b = {v.split("=")[1] for v in values_b if v.startswith(f"{unit}=")}
        if of_a != of_b:
            differences.append(
                KeyTokenDifference(f"quantity ({unit})", tuple(sorted(of_a)), tuple(sorted(of_b)))
            )
    return differences


def text_words(text: str) -> set[str]:
    """The words of a text, case-folded (hyphenated words kept whole)."""
    return _words(text)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[\w'\-]+", unicodedata.normalize("NFKC", text).casefold()))


def polarity_difference(text_a: str, text_b: str) -> str | None:
    """Opposite polarity ("likes" / "hates", "enabled" / "disabled"): a description of
    the clash, or None."""
    words_a, words_b = _words(text_a), _words(text_b)
    for positive, negative in OPPOSITES:
        if (words_a & positive and words_b & negative and not words_a & negative) or (
            words_b & positive and words_a & negative and not words_b & negative
        ):
            side_a = sorted(words_a & (positive | negative))
            side_b = sorted(words_b & (positive | negative))
            return f"polarity: {', '.join(side_a)} vs {', '.join(side_b)}"
    return None


def announces_change(text: str) -> bool:
    """Whether a text reads as a change of an earlier fact ("now", "moved to", "since")."""
    return bool(UPDATE_CUES.search(unicodedata.normalize("NFKC", text)))
