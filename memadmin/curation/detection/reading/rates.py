"""How often something happens, read as times a day (the measure "rate"): "daily" and
"every day" are one, "twice a week" is not "once a week", "every six hours" is four a day,
"every Tuesday and Thursday" twice a week.
The words are the lexicon's (store/lexicon.toml, [rates]); curation.detection.reading.
quantities reads the other values first and hands them here, as the count ("three times")
and the span ("every six hours") of a rate are values of their own until read as one.
"""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

from memadmin.curation.detection.reading.measured import Value, canonical_number
from memadmin.curation.detection.reading.tokens import CHINESE_WEEKDAY
from memadmin.store.lexicon import HAN, lexicon
from memadmin.store.text import text_cache


class _Patterns(NamedTuple):
    alone: re.Pattern  # "daily", "wöchentlich", "每天": a word that says it alone
    every: re.Pattern  # "every [other] day", "jeden Tag", "tous les jours"
    counted: re.Pattern  # "twice a week", "zweimal pro Woche", "thrice weekly"
    times: re.Pattern  # after a number: "times a week", "fois par semaine"
    times_word: re.Pattern  # after a number: "times weekly"
    each_before: re.Pattern  # right before a span: "every" ("every six hours")
    chinese_each: re.Pattern  # "每周" before a count of times ("每周跑步三次")
    weekdays: re.Pattern  # "every Tuesday and Thursday", "on Mondays", "montags"
    on_days: re.Pattern  # after a word that says a rate alone: "(biweekly) on Fridays"
    per_period: re.Pattern  # after a quantity: "20 mg a day", "3 coffees per day"


@cache
def _patterns() -> _Patterns:
    """The patterns of the lexicon's rates."""
    rates = lexicon()["rates"]

    def either(words_) -> str:
        return "|".join(re.escape(w) for w in sorted(words_, key=len, reverse=True))

    period, per, every = either(rates["periods"]), either(rates["per"]), either(rates["every"])
    times, words = either(rates["times"]), either(rates["words"])
    return _Patterns(
        alone=re.compile(rf"\b(?P<word>{words})\b|(?P<chinese>{either(rates['chinese'])})"),
        every=re.compile(
            rf"\b(?:(?:{every})\s+(?:(?P<other>{either(rates['other'])})\s+)?"
            rf"|(?P<alternate>{either(rates['other_alone'])})\s+)(?P<period>{period})s?\b"
        ),
        counted=re.compile(
            rf"\b(?P<count>{either(rates['counts'])})\s+"
            rf"(?:(?:(?:{per})\s+)+(?P<period>{period})|(?P<word>{words}))\b"
        ),
        times=re.compile(rf"\s*(?:{times})\s+(?:(?:{per})\s+)+(?P<period>{period})\b"),
        times_word=re.compile(rf"\s*(?:{times})\s+(?P<word>{words})\b"),
        each_before=re.compile(rf"\b(?:{every})\s+$"),
        chinese_each=re.compile(rf"({either(rates['chinese'])})[^。，,.!?！？]*$"),
        weekdays=_weekday_pattern(either, every),
        on_days=re.compile(rf",?\s+on\s+(?:{either(_weekdays())})(?:{_joined(either, every)})*\b"),
        # Not after "in", "for" or "within" ("lost 3 kg in a month": a span), nor in
        # another clause ("has 2 kids and a day job").
        per_period=re.compile(
            rf"(?:\s+(?!(?:in|for|within|over|after|during|and|or|but)\b)[^\W\d_]+){{0,3}}?\s+"
            rf"(?P<per>a|an|per|pro|par|por)\s+(?P<period>{period})\b"
        ),
    )


@cache
def _weekdays() -> dict[str, str]:
    """Each written form of a weekday and its day, the forms of three letters left out
    ("sun" and "sat" are words too) and the Chinese ones ("每周三" is read in `read`)."""
    return {
        form: day
        for day, forms in lexicon()["weekdays"].items()
        for form in forms
        if len(form) > 3 and not HAN.search(form)
    }


def _weekday_pattern(either, every: str) -> re.Pattern:
    """Days of each week: a weekday after a word for each ("every Tuesday", "jeden
    Montag", "los lunes") or in a form that says "each" alone (its singular with an s:
    "Tuesdays", "montags", "mardis"), then the days joined to it ("and Thursday(s)").
    "On Tuesday" alone is one day (keytokens reads it), not a rate."""
    rates, days = lexicon()["rates"], _weekdays()
    each_alone = [form for form, day in days.items() if days.get(form[:-1]) == day]
    day, each = either(days), f"{every}|{either(rates['weekday_each'])}"
    first = (
        rf"(?:(?:{each})\s+(?:(?P<other>{either(rates['other'])})\s+)?(?:{day})"
        rf"|(?P<alternate>{either(rates['other_alone'])})\s+(?:{either(each_alone)})"
        rf"|(?:{either(each_alone)}))"
    )
    return re.compile(rf"\b{first}(?:{_joined(either, each)})*\b")


def _joined(either, each: str) -> str:
    """A weekday joined to the one before it: ", Thursday", "and Thursdays"."""
    rates, day = lexicon()["rates"], either(_weekdays())
    return rf"\s*(?:,|\b(?:{either(rates['weekday_joins'])})\b)\s*(?:(?:{each})\s+)?(?:{day})"


def read(folded: str, values: list[Value]) -> list[Value]:
    """How often something happens, as times a day ("rate"): "daily" and "every day" are
    one, "twice a week" is not "once a week" (each was one week, the same value), "every
    six hours" is four a day. The values a rate is read from (the count, "a week") are
    part of it."""
    rates, patterns, found = lexicon()["rates"], _patterns(), []
    days_named = bool(day_sets(folded) or patterns.weekdays.search(folded))

    def add(start: int, end: int, hours: float, count: float = 1.0) -> None:
        if days_named and hours == rates["periods"]["day"] and count == 1.0:
            return  # "Daily standup, Monday to Friday": those days, not every day
        if hours > 0 and not any(f.start <= start < f.end for f in found):
            # Two significant digits: "monthly" is "every 30 days" (a month's mean length
            # is 30.44 days), "twice a week" is not "3 times a week".
            rate = canonical_number(float(f"{24 * count / hours:.2g}"))
            found.append(Value("rate", rate, start, end))

    for value in values:  # "three times weekly": first, the word is part of it
        match = patterns.times_word.match(folded, value.end) if value.measure == "number" else None
        if match:
            add(
                value.start,
                match.end(),
                float(rates["words"][match.group("word")]),
                float(value.value),
            )
    for value in values:  # "每周跑步三次": three times in each week
        if value.measure == "number" and folded[value.end : value.end + 1] == "次":
            each = patterns.chinese_each.search(folded, 0, value.start)
            if each:
                add(
                    each.start(),
                    value.end + 1,
                    float(rates["chinese"][each.group(1)]),
                    float(value.value),
                )
    for match in patterns.counted.finditer(folded):  # before "weekly" alone
        period = match.group("period")
        hours = rates["periods"][period] if period else rates["words"][match.group("word")]
        add(*match.span(), float(hours), float(rates["counts"][match.group("count")]))
    for match in patterns.alone.finditer(folded):
        word = match.group("word") or match.group("chinese")
        day = word.startswith("每") and CHINESE_WEEKDAY.match(folded, match.start() + 1)
        if day:  # "每周三": every Wednesday, once a week (its day read by keytokens)
            add(match.start(), day.end(), float(rates["periods"]["week"]))
            continue
        end, days = _days_said_on(folded, match) if match.group("word") else (match.end(), 1)
        add(match.start(), end, float({**rates["words"], **rates["chinese"]}[word]), days)
    for match in patterns.every.finditer(folded):
        other = 2.0 if match.group("other") or match.group("alternate") else 1.0
        add(*match.span(), other * float(rates["periods"][match.group("period")]))
    for start, end, days in day_sets(folded):  # "Mon-Fri", "Tue/Thu", "on weekdays"
        add(start, end, float(rates["periods"]["week"]), float(len(days)))
    for match in patterns.weekdays.finditer(folded):  # each of its days once a week
        other = 2.0 if match.group("other") or match.group("alternate") else 1.0
        days = {_weekdays().get(word) for word in re.findall(r"\w+", match.group())}
        count = len(days - {None})
        add(*match.span(), other * float(rates["periods"]["week"]), float(count))
    for value in values:
        if value.measure == "number":
            match = patterns.times.match(folded, value.end)
            if match:
                period = float(rates["periods"][match.group("period")])
                add(value.start, match.end(), period, float(value.value))
        elif value.measure in ("duration", "calendar") and patterns.each_before.search(
            folded, max(0, value.start - 16), value.start
        ):
            hours = float(value.value) / 3600 if value.measure == "duration" else 0.0
            hours = hours or float(value.value) * float(rates["periods"]["month"])
            add(value.start, value.end, hours)
    for value in values:  # "20 mg a day", "$40 a month", "3 coffees per day": per period
        match = patterns.per_period.match(folded, value.end) if value.measure != "rate" else None
        if match:
            add(match.start("per"), match.end(), float(rates["periods"][match.group("period")]))
    if not found:
        return values
    kept = [v for v in values if not any(f.start <= v.start < f.end for f in found)]
    return sorted(kept + found, key=lambda value: value.start)


def _days_said_on(folded: str, alone: re.Match) -> tuple[int, float]:
    """Where a word that says a rate alone ends with the days it is said on, and how many
    days: "biweekly on Fridays" is every other Friday, "weekly on Mon and Thu" twice."""
    on = _patterns().on_days.match(folded, alone.end())
    if on is None:
        return alone.end(), 1.0
    days = {_weekdays().get(word) for word in re.findall(r"\w+", on.group())}
    return on.end(), float(len(days - {None}))


@cache
def _day_set_patterns() -> tuple[dict[str, str], re.Pattern, re.Pattern, list]:
    """Each written form of a weekday and its day, the patterns of a range and of days
    with slashes, and each word for a set of days with its days."""
    forms = {form: day for day, all_ in lexicon()["weekdays"].items() for form in all_}
    day = "|".join(sorted((re.escape(f) for f in forms if not HAN.search(f)), key=len)[::-1])
    ranges = "|".join(re.escape(w) for w in lexicon()["rates"]["weekday_ranges"])
    sets = [
        (re.compile(rf"\b(?:{'|'.join(map(re.escape, said))})\b"), frozenset(days))
        for days, said in lexicon()["rates"]["weekday_sets"]
    ]
    return (
        forms,
        re.compile(rf"\b({day})\s*(?:{ranges})\s*({day})\b"),
        re.compile(rf"\b(?:{day})(?:/(?:{day}))+\b"),
        sets,
    )


@text_cache
def day_sets(folded: str) -> tuple[tuple[int, int, frozenset[str]], ...]:
    """Days of each week said together: a range ("mon-fri", "monday to friday", "lundi au
    vendredi"), days with slashes ("tue/thu"), a word for a set ("weekdays"): (start,
    end, the days) each. Forms of three letters count here ("sat-sun" is no word)."""
    forms, ranges, slashed, sets = _day_set_patterns()
    order = list(lexicon()["weekdays"])
    moves = {*lexicon()["rates"]["weekday_moves"], *lexicon()["change"]["words"]}
    moved = bool(set(re.findall(r"\w+", folded)) & moves)
    found = []
    for match in ranges.finditer(folded):
        if moved and folded[: match.start()].endswith("from "):
            continue
        first, last = order.index(forms[match.group(1)]), order.index(forms[match.group(2)])
        span = (last - first) % 7 + 1
        found.append((*match.span(), frozenset(order[(first + i) % 7] for i in range(span))))
    for match in slashed.finditer(folded):
        found.append((*match.span(), frozenset(forms[f] for f in match.group().split("/"))))
    for pattern, days in sets:
        found += [(*match.span(), days) for match in pattern.finditer(folded)]
    return tuple(found)
