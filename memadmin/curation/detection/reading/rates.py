"""How often something happens, read as times a day (the measure "rate"): "daily" and
"every day" are one, "twice a week" is not "once a week", "every six hours" is four a day.
The words are the lexicon's (store/lexicon.toml, [rates]); curation.detection.reading.
quantities reads the other values first and hands them here, as the count ("three times")
and the span ("every six hours") of a rate are values of their own until read as one.
"""

from __future__ import annotations

import re
from functools import cache

from memadmin.curation.detection.reading.measured import Value, canonical_number
from memadmin.store.lexicon import lexicon


@cache
def _rate_patterns() -> tuple[re.Pattern, ...]:
    """(a word alone, "every [other] <period>", "<count> per <period>", "<n> times per
    <period>", a word for each right before a span) from the lexicon's rates."""
    rates = lexicon()["rates"]

    def either(words_) -> str:
        return "|".join(re.escape(w) for w in sorted(words_, key=len, reverse=True))

    period, per, every = either(rates["periods"]), either(rates["per"]), either(rates["every"])
    chinese = either(rates["chinese"])
    return (
        re.compile(rf"\b(?P<word>{either(rates['words'])})\b|(?P<chinese>{chinese})"),
        re.compile(
            rf"\b(?:{every})\s+(?:(?P<other>{either(rates['other'])})\s+)?(?P<period>{period})\b"
        ),
        re.compile(
            rf"\b(?P<count>{either(rates['counts'])})\s+(?:(?:{per})\s+)+(?P<period>{period})\b"
        ),
        re.compile(rf"\s*(?:{either(rates['times'])})\s+(?:(?:{per})\s+)+(?P<period>{period})\b"),
        re.compile(rf"\b(?:{every})\s+$"),
        re.compile(rf"\s*(?:{either(rates['times'])})\s+(?P<word>{either(rates['words'])})\b"),
    )


def read(folded: str, values: list[Value]) -> list[Value]:
    """How often something happens, as times a day ("rate"): "daily" and "every day" are
    one, "twice a week" is not "once a week" (each was one week, the same value), "every
    six hours" is four a day. The values a rate is read from (the count, "a week") are
    part of it."""
    rates = lexicon()["rates"]
    alone, every, counted, times, each_before, times_word = _rate_patterns()
    found: list[Value] = []

    def add(start: int, end: int, hours: float, count: float = 1.0) -> None:
        if hours > 0 and not any(f.start <= start < f.end for f in found):
            # Two significant digits: "monthly" is "every 30 days" (a month's mean length
            # is 30.44 days), "twice a week" is not "3 times a week".
            rate = canonical_number(float(f"{24 * count / hours:.2g}"))
            found.append(Value("rate", rate, start, end))

    for value in values:  # "three times weekly": first, the word is part of it
        match = times_word.match(folded, value.end) if value.measure == "number" else None
        if match:
            add(
                value.start,
                match.end(),
                float(rates["words"][match.group("word")]),
                float(value.value),
            )
    for match in alone.finditer(folded):
        word = match.group("word") or match.group("chinese")
        add(*match.span(), float({**rates["words"], **rates["chinese"]}[word]))
    for match in every.finditer(folded):
        other = 2.0 if match.group("other") else 1.0
        add(*match.span(), other * float(rates["periods"][match.group("period")]))
    for match in counted.finditer(folded):
        period = float(rates["periods"][match.group("period")])
        add(*match.span(), period, float(rates["counts"][match.group("count")]))
    for value in values:
        if value.measure == "number":
            match = times.match(folded, value.end)
            if match:
                period = float(rates["periods"][match.group("period")])
                add(value.start, match.end(), period, float(value.value))
        elif value.measure in ("duration", "calendar") and each_before.search(
            folded, max(0, value.start - 16), value.start
        ):
            hours = float(value.value) / 3600 if value.measure == "duration" else 0.0
            hours = hours or float(value.value) * float(rates["periods"]["month"])
            add(value.start, value.end, hours)
    if not found:
        return values
    kept = [v for v in values if not any(f.start <= v.start < f.end for f in found)]
    return sorted(kept + found, key=lambda value: value.start)
