"""The one validation layer. Everything that comes into memadmin passes through here: a line
of an import file, an agent's JSON body and query string (API and MCP), a page's form or
query string, and an LLM's answer. Each check either returns the clean value or raises
`Invalid` with a message that names the field and says what is wrong; callers turn that
into `FILE: line N: reason`, a 400 naming the field, a page message, or a rule fallback.

The limits are written once, here (the README lists them):

- text: valid UTF-8 (no lone surrogates), no NUL character (PostgreSQL text and jsonb
  cannot store one); a memory's content at most MAX_CONTENT_BYTES (a setting);
- dates: ISO 8601, a real calendar date and time, an offset of less than 24 h, and within
  EARLIEST..LATEST in UTC, the range both PostgreSQL and Python read back (a year-1 date
  in +05:00 is year 0 in UTC, which Python cannot represent);
- numbers: finite (no NaN or Infinity anywhere, metadata and embeddings included),
  counts within MAX_INTEGER, and no number of more than MAX_NUMBER_CHARS characters
  (Python refuses to parse integers of thousands of digits);
- structure: JSON nested at most MAX_DEPTH deep (the number of tags is not limited: a
  merge unions its members' tags, and its export must import back);
- names: ids up to MAX_ID_CHARS, tags up to MAX_TAG_CHARS, namespaces matched whole
  (NAMESPACE_PATTERN, no trailing newline); longer values are refused, never cut.
"""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, date, datetime
from typing import Any

from django.conf import settings

EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
MAX_ID_CHARS = 200
MAX_TAG_CHARS = 100
MAX_DEPTH = 20
# The largest count (access_count: a PostgreSQL integer).
MAX_INTEGER = 2**31 - 1
# The longest number literal: PostgreSQL's jsonb prints a float such as 1e308 in full (309
# digits) and 5e-324 as 0.000...5, so an export holds numbers that long; thousands of
# digits are refused (Python parses those slowly, or not at all).
MAX_NUMBER_CHARS = 400
# The widest whole number in JSON (metadata, provenance): as many digits as that.
MAX_JSON_INTEGER_BITS = int(MAX_NUMBER_CHARS * 3.33)
# The longest date or query-string number read (ISO 8601 with microseconds and an offset
# is 32 characters).
MAX_DATE_CHARS = 40
# A given vector is normalised in float32: its values must stay far from float32's range.
MAX_VECTOR_VALUE = 1e6
MIN_VECTOR_NORM = 1e-6
NAMESPACE_PATTERN = re.compile(r"[-a-zA-Z0-9_]{1,100}")
# Short text fields of a memory and their longest value (the columns' sizes).
SHORT_TEXT_LIMITS = {"category": 100, "source_ref": 200, "session_id": 200, "embedding_model": 100}


class Invalid(ValueError):
    """A value refused by the validation layer; `field` names what was wrong."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field} {message}" if field else message)
        self.field = field
        self.message = message


def unreadable(value: str) -> str | None:
    """Why a string cannot be stored as text (NUL, a lone surrogate), or None."""
    if "\x00" in value:
        return "contains a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid UTF-8 (a lone surrogate)"
    return None


def text(value: Any, field: str, *, max_bytes: int | None = None, blank: bool = False) -> str:
    """A string that can be stored: see `unreadable`; non-blank unless `blank`."""
    if not isinstance(value, str):
        raise Invalid(field, "must be a string")
    problem = unreadable(value)
    if problem:
        raise Invalid(field, problem)
    if not blank and not value.strip():
        raise Invalid(field, "must be a non-empty string")
    if max_bytes is not None and len(value.encode("utf-8")) > max_bytes:
        raise Invalid(field, f"is longer than {max_bytes} bytes")
    return value


def content(value: Any, field: str = "content") -> str:
    """A memory's text: non-blank, at most MAX_CONTENT_BYTES (every write path: import,
    API, a curator's merged text, a conflict rewrite, the LLM's merge)."""
    return text(value, field, max_bytes=settings.MAX_CONTENT_BYTES)


def short_text(value: Any, field: str, max_chars: int) -> str:
    """A short string column (category, source_ref...): may be empty."""
    value = text(value, field, blank=True)
    if len(value) > max_chars:
        raise Invalid(field, f"must be at most {max_chars} characters")
    return value


def identifier(value: Any, field: str = "id") -> str:
    """An external id: a non-empty string of at most MAX_ID_CHARS (a number is taken as
    its digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= MAX_INTEGER:
        value = str(value)
    value = text(value, field)
    if len(value) > MAX_ID_CHARS:
        raise Invalid(field, f"is longer than {MAX_ID_CHARS} characters")
    return value


def namespace_name(value: Any, field: str = "namespace") -> str:
    if not isinstance(value, str) or not NAMESPACE_PATTERN.fullmatch(value):
        raise Invalid(field, "must be letters, digits, '-' or '_' (at most 100)")
    return value


def timestamp(value: Any, field: str) -> datetime:
    """An ISO 8601 date or date-time (no offset: UTC), a real one, within EARLIEST..LATEST."""
    if not isinstance(value, str) or len(value) > MAX_DATE_CHARS:
        raise Invalid(field, f"must be an ISO 8601 date-time, not {shown(value)}")
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError as error:
        if str(error).startswith("Invalid isoformat string"):
            raise Invalid(field, f"must be an ISO 8601 date-time, not {shown(value)}") from None
        # 30 February, hour 25, an offset of a day or more
        raise Invalid(field, f"is not a real date and time ({error}): {shown(value)}") from None
    try:
        moment = parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    except OverflowError:  # year 1 at +05:00 is year 0 in UTC
        moment = None
    if moment is None or not EARLIEST <= moment <= LATEST:
        raise Invalid(field, f"must be between {EARLIEST:%Y-%m-%d} and {LATEST:%Y-%m-%d} in UTC")
    return moment


def day(value: Any, field: str) -> date:
    """An ISO 8601 calendar date (a day filter), within EARLIEST..LATEST."""
    if not isinstance(value, str) or len(value) > MAX_DATE_CHARS:
        raise Invalid(field, f"must be a date (YYYY-MM-DD), not {shown(value)}")
    try:
        parsed = date.fromisoformat(value.strip())
    except ValueError:
        raise Invalid(field, f"must be a real date (YYYY-MM-DD), not {shown(value)}") from None
    if not EARLIEST.date() <= parsed <= LATEST.date():
        raise Invalid(field, f"must be between {EARLIEST:%Y-%m-%d} and {LATEST:%Y-%m-%d}")
    return parsed


def unit_interval(value: Any, field: str) -> float:
    """A number from 0 to 1 (importance, confidence)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise Invalid(field, f"must be a number from 0 to 1, not {shown(value)}")
    return float(value)


def capped_sum(values) -> int:
    """A sum of counts that stays a count (access counts added up by a merge)."""
    return min(sum(values), MAX_INTEGER)


def count(value: Any, field: str) -> int:
    """A whole number from 0 to MAX_INTEGER (access_count)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_INTEGER:
        raise Invalid(field, f"must be a whole number from 0 to {MAX_INTEGER}")
    return value


def boolean(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise Invalid(field, "must be true or false")
    return value


def tags(value: Any, field: str = "tags") -> list[str]:
    if not isinstance(value, list) or not all(isinstance(t, str) and t for t in value):
        raise Invalid(field, "must be a list of non-empty strings")
    for tag in value:
        text(tag, field)
        if len(tag) > MAX_TAG_CHARS:
            raise Invalid(field, f"must each be at most {MAX_TAG_CHARS} characters")
    return value


def json_value(value: Any, field: str, *, kind: type | None = None) -> Any:
    """A JSON value that every reader can read back: readable strings (keys included),
    finite numbers, integers within MAX_INTEGER, nested at most MAX_DEPTH. `kind` (dict
    or list) is what the top level must be."""
    if kind is not None and not isinstance(value, kind):
        raise Invalid(field, f"must be a JSON {'object' if kind is dict else 'list'}")
    # Iterative: a value nested thousands deep must not exhaust Python's stack here.
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list) and depth > MAX_DEPTH:  # containers count, not leaves
            raise Invalid(field, f"is nested more than {MAX_DEPTH} levels deep")
        if isinstance(item, dict):
            for key, inner in item.items():
                if not isinstance(key, str) or unreadable(key):
                    raise Invalid(field, "has a key that is not readable text")
                pending.append((inner, depth + 1))
        elif isinstance(item, list):
            pending.extend((inner, depth + 1) for inner in item)
        elif isinstance(item, str):
            problem = unreadable(item)
            if problem:
                raise Invalid(field, f"holds a string that {problem}")
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if item.bit_length() > MAX_JSON_INTEGER_BITS:
                raise Invalid(field, f"holds a number of more than {MAX_NUMBER_CHARS} digits")
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise Invalid(field, "holds NaN or Infinity, which JSON cannot store")
        else:
            raise Invalid(field, f"holds a value JSON cannot store ({type(item).__name__})")
    return value


def embedding(value: Any, dimensions: int, field: str = "embedding") -> list[float] | None:
    """A vector of finite numbers, not all zero; None for a vector of another length (the
    configured model embeds the text instead)."""
    if not isinstance(value, list) or not all(
        isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) for x in value
    ):
        raise Invalid(field, "must be a list of finite numbers")
    if len(value) != dimensions:
        return None
    if any(abs(x) > MAX_VECTOR_VALUE for x in value):
        raise Invalid(field, f"has a value beyond ±{MAX_VECTOR_VALUE:g}")
    if math.sqrt(math.fsum(x * x for x in value)) < MIN_VECTOR_NORM:
        raise Invalid(field, "is all zeros (or too close to it to have a direction)")
    return value


def whole_number(value: Any, field: str, *, low: int, high: int) -> int:
    """A query-string number (k, page...): digits only, from `low` to `high`."""
    if not isinstance(value, str) or not value.isascii() or not value.isdigit():
        raise Invalid(field, f"must be a whole number from {low} to {high}")
    if len(value) > len(str(high)) or not low <= int(value) <= high:
        raise Invalid(field, f"must be a whole number from {low} to {high}")
    return int(value)


def decimal(value: Any, field: str, *, low: float, high: float) -> float:
    """A query-string decimal (a similarity bound): finite, from `low` to `high`."""
    try:
        number = float(value) if isinstance(value, str) and len(value) <= MAX_DATE_CHARS else None
    except ValueError:
        number = None
    if number is None or not math.isfinite(number) or not low <= number <= high:
        raise Invalid(field, f"must be a number from {low:g} to {high:g}, not {shown(value)}")
    return number


def _refuse_constant(name: str):
    raise Invalid("", f"invalid JSON: {name} is not a number")


def _bounded_number(kind):
    def parse(literal: str):
        if len(literal) > MAX_NUMBER_CHARS:
            raise Invalid("", f"invalid JSON: a number of {len(literal)} characters")
        number = kind(literal)
        if isinstance(number, float) and not math.isfinite(number):
            raise Invalid("", f"invalid JSON: {literal} is beyond the range of a number")
        return number

    return parse


def decode_json(raw: str | bytes) -> Any:
    """Parse JSON text strictly: invalid UTF-8, NaN/Infinity, numbers of more than
    MAX_NUMBER_CHARS characters and nesting too deep for the parser are refused as
    Invalid, with a reason the caller puts after "line N: " or "the body: "."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise Invalid("", f"invalid UTF-8 (byte {error.start + 1})") from None
    try:
        return json.loads(
            raw,
            parse_constant=_refuse_constant,
            parse_int=_bounded_number(int),
            parse_float=_bounded_number(float),
        )
    except json.JSONDecodeError as error:
        raise Invalid("", f"invalid JSON ({error.msg} at column {error.colno})") from None
    except RecursionError:
        raise Invalid("", f"invalid JSON: nested more than {MAX_DEPTH} levels deep") from None


def shown(value: Any) -> str:
    """A value quoted for a message, cut (the message, not the value) at 40 characters."""
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."
