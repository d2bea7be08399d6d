"""Quantities in canonical form: the same value written differently reads the same.

"3 am" and "03:00" are one time of day; "a 90-minute meeting" and "1.5 h" one duration;
"roughly 2 m" and "about 200 cm" one length; "five", "fünf", "cinq", "五" and "5" one
number; "18/20" and "90 %" one share. Key tokens (curation.detection.reading.keytokens), the lexical
signal, the lost-fact check and the conflict rules all read values through `read()`, so a
value written another way never looks like a changed fact, and a changed value always does.

Each value comes out as (measure, canonical value): measure "number" for a bare number,
"time" for a time of day (HH:MM), or a measure of store/lexicon.toml's units (duration in
seconds, length in metres, mass in grams, bytes, share in %, months for calendar spans...).
Numbers follow the text's language: "6,5" is 6.5 in German and French, "10,000" ten
thousand in English; "10.000" is ten thousand in German.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache, lru_cache

from memadmin.curation.detection.reading import clocks, phrases, rates, rounding, units
from memadmin.curation.detection.reading.measured import Value, canonical_number, digit_group
from memadmin.curation.detection.reading.tokens import CHINESE_WEEKDAY, QUANTITY_TOKEN
from memadmin.store.lexicon import HAN, LEMMATISED, fold, language_of, lexicon
from memadmin.store.text import text_cache

_CJK_NUMBER = re.compile(r"([零〇一二两三四五六七八九十百千万]+|\d+(?:\.\d+)?)")
# The longest time, date, or number a value is read from (a 5,000-digit number is not).
_MAX_DIGITS = 18


@cache
def _number_words(language: str = "en") -> dict[str, float]:
    """Number words of English, German and French (read in any text: "six", "acht" and
    "cinq" are no other word), and of the text's own language where its words would be
    another's ("once" is eleven in Spanish only, "media" a half)."""
    numbers = lexicon()["numbers"]
    table: dict[str, float] = {}
    for each in ("en", "de", "fr", *(() if language in ("en", "de", "fr") else (language,))):
        table.update({word: float(value) for word, value in numbers.get(each, {}).items()})
    return table


@cache
def _weak_numbers() -> frozenset[str]:
    return frozenset(lexicon()["numbers"]["weak"])


def digits_as_written(text: str, language: str) -> str | None:
    """A number written with digits, its grouping removed and a decimal comma made a
    point, in the text's language's convention; the decimals stay as written ("3.10" is
    Python 3.10, not 3.1). None for no plain number (too long, or "2.3.1")."""
    if len(text) > _MAX_DIGITS:
        return None
    comma_decimal = language in ("de", "fr", "es")
    if comma_decimal:
        # 6,5 -> 6.5; 10.000 -> 10000 (a dot before three digits groups thousands)
        if re.fullmatch(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?", text):
            text = text.replace(".", "")
        text = text.replace(",", ".")
    else:
        # 10,000 -> 10000; "6,5" (two digits after the comma) is a decimal comma anyway
        if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", text):
            text = text.replace(",", "")
        elif re.fullmatch(r"\d+,\d{1,2}", text):
            text = text.replace(",", ".")
    return text if re.fullmatch(r"\d+(?:\.\d+)?", text) else None


def parse_digits(text: str, language: str) -> float | None:
    """digits_as_written as a number."""
    written = digits_as_written(text, language)
    return float(written) if written is not None else None


def parse_chinese_number(text: str) -> float | None:
    """五 -> 5, 十二 -> 12, 二十 -> 20, 三百五十 -> 350, 两万 -> 20000; digits as they are."""
    if text[0].isdigit():
        try:
            return float(text)
        except ValueError:
            return None
    digits = lexicon()["numbers"]["zh_digits"]
    multipliers = lexicon()["numbers"]["zh_multipliers"]
    total, section, digit = 0, 0, None
    for char in text:
        if char in digits:
            digit = digits[char]
        elif char in multipliers:
            factor = multipliers[char]
            if factor == 10000:
                total += (section + (digit or 0)) * factor
                section, digit = 0, None
            else:
                section += (1 if digit is None else digit) * factor
                digit = None
        else:
            return None
    return float(total + section + (digit or 0))


@text_cache
def read(text: str) -> tuple[Value, ...]:
    """Every value written in `text`, in canonical form, in order."""
    folded = fold(text)
    language = language_of(text)
    found = [digit_group(value, folded) for value in _read_latin(folded, language)]
    if not folded.isascii() and HAN.search(folded):
        chinese = list(_read_chinese(folded))
        # "3点" is read as a time there: its digit is not a number of its own here.
        found = [v for v in found if not any(c.start <= v.start < c.end for c in chinese)]
        found += chinese
    found += phrases.idioms(folded, found)
    merged = _compounds(sorted(found, key=lambda value: value.start), folded)
    return tuple(_phone_numbers(folded, rates.read(folded, merged)))


# A phone number: one value, not its groups of digits ("+49 170 1234567", "0171-2345678",
# "(555) 123-4567", "555-123-4567"); 7 to 15 digits, as the numbering plan allows. A
# national number opens with an area code of three digits or more ("030", "0171"), so
# that a date ("01.02.2024", "03 05 2024") is none.
_PHONE = re.compile(
    r"(?<![\w+.,/:-])(?:\+\d{1,3}[ .-]?(?:\(0\)[ ]?)?\d{1,5}|\(\d{2,5}\)[ .-]?\d{2,5}|0\d{2,4})"
    r"(?:[ .-]\d{2,8}){0,4}(?![\w/:-]|[.,]\d)"
    r"|(?<![\w+.,/:-])\d{3}-\d{3}-\d{4}(?![\w-])"
)


def _phone_numbers(folded: str, values: list[Value]) -> list[Value]:
    """The values with each phone number read as one (its digits, the country code's
    "+" aside), in place of the numbers in it."""
    phones = []
    for match in _PHONE.finditer(folded):
        digits = re.sub(r"\(0\)|\D", "", match.group())  # "+44 (0) 20": "(0)" is dialled at home
        if 7 <= len(digits) <= 15:
            phones.append(Value("phone", digits, match.start(), match.end()))
    if not phones:
        return values
    kept = [v for v in values if not any(p.start <= v.start < p.end for p in phones)]
    return sorted(kept + phones, key=lambda value: value.start)


# What may stand between the parts of one quantity ("1 hour and 30 minutes").
_COMPOUND_JOINS = frozenset({"", "and", "und", "et", "y"})
_HALVES = frozenset({"half", "halb", "halbe", "demi", "demie", "medio", "media"})


def _compounds(values: list[Value], folded: str) -> list[Value]:
    """ "7 h 30 min", "1 h 15", "2 min 30 s", "1 hour and 30 minutes", "5 lb 3 oz",
    "2 m 50 cm": one quantity, the sum, where a part in a smaller unit, less than one of
    the larger, follows right after (an "and" or a comma between at most). "2h 15m": a
    metre count right after hours is minutes."""
    merged: list[Value] = []
    for value in values:
        last = merged[-1] if merged else None
        between = folded[last.end : value.start].strip(" ,") if last is not None else None
        if last is not None and phrases.whole_and_half(last, value, between):
            total = canonical_number((float(last.value) + 0.5) * value.factor)
            merged[-1] = Value(
                value.measure, total, last.start, value.end, value.factor, value.unit
            )
            continue
        joined = last is not None and value.start - last.end <= 6 and between in _COMPOUND_JOINS
        if joined and last.measure == "duration" and value.unit == "m" and last.factor >= 3600:
            value = replace(
                value,
                measure="duration",
                value=canonical_number(float(value.value) * 60),
                factor=60.0,
            )
        if last is not None and between == "" and (part := phrases.bare_part(last, value, folded)):
            value = part
        if joined and _part_of(last, value):
            total = canonical_number(float(last.value) + float(value.value))
            merged[-1] = Value(last.measure, total, last.start, value.end, last.factor, last.unit)
        else:
            merged.append(value)
    return [phrases.with_a_half_after(value, folded) for value in merged]


def _part_of(larger: Value, smaller: Value) -> bool:
    """Whether `smaller` goes on `larger` (one measure, a smaller unit, less than one of
    the larger's): "1 h" and "30 min", not "5 kg" and "3 kg"."""
    if larger.measure != smaller.measure or larger.measure in ("number", "time", "version"):
        return False
    if not (larger.factor and smaller.factor):  # read without its unit's size (Chinese)
        return larger.measure == "duration" and _smaller_unit(
            float(larger.value), float(smaller.value)
        )
    return 0 < smaller.factor < larger.factor and 0 < float(smaller.value) < larger.factor


def _smaller_unit(larger: float, smaller: float) -> bool:
    """Hours then minutes, or minutes then seconds: the second below the first's unit."""
    for unit in (3600.0, 60.0):
        if larger >= unit and larger % unit == 0 and 0 < smaller < unit:
            return True
    return False


def _read_latin(folded: str, language: str):
    tokens = [
        (match.lastgroup, match.group(), match.start(), match.end())
        for match in QUANTITY_TOKEN.finditer(folded)
        if match.lastgroup != "date"  # 3/14/1990: a date (key tokens), no number a value
    ]
    position = 0
    while position < len(tokens):
        kind, token, start, end = tokens[position]
        if kind == "time":
            value, taken = clocks.clock_token(token, tokens, position, language, units.table())
            if value is not None:
                yield value
            position += taken
            continue
        if kind == "number" and "/" in token:  # 18/20: both numbers, and the share they make
            yield from _fraction(token, start, end)
            position += 1
            continue
        written = digits_as_written(token, language) if kind == "number" else None
        if kind == "number" and written is None and re.fullmatch(r"\d+(?:\.\d+){2,3}", token):
            yield Value("version", token, start, end)  # 2.3.1
        number, last = _number_at(tokens, position, folded, language, written)
        if number is None:
            position += 1
            continue
        position, end = last, tokens[last][3]
        following = tokens[position + 1] if position + 1 < len(tokens) else None
        sign = _currency_before(tokens, position, folded) if kind == "number" else None
        scale = _scale(following, folded, end, currency=sign is not None)
        if scale:  # "1.5k", "1.2 million", "2 Millionen": one number, its unit after it
            number *= scale
            written, end, position = canonical_number(number), following[3], position + 1
            following = tokens[position + 1] if position + 1 < len(tokens) else None
        money = _by_sign(sign, number, following, folded, end, token) if sign else None
        if money is not None:
            yield money
            position += 1
            continue
        if token in _HALVES and _article_before_unit(tokens, position + 1, folded):
            # "half an hour", "half a day": the article stands between (it is no unit).
            position, end, following = position + 1, following[3], tokens[position + 2]
        several = units.unit_after(number, start, tokens, position + 1, folded)
        if several is not None:  # "72°F", "65 m²", "700 sq ft", "1m80": in several tokens
            yield several[0]
            position = several[1] + 1
            continue
        # A unit may follow after a space, a hyphen ("90-minute") or glued ("12.5n").
        unit = _unit_of(following, folded, end, token) if following else None
        unit = None if clocks.dotted_half_of_day(tokens, position + 1) else unit  # "a.m."
        taken = 2 if unit is not None else 1
        if unit is not None and clocks.french_hour(number, tokens, position, language):
            yield Value("time", f"{int(number):02d}:00", start, following[3])  # "à 10 h"
            position += 2
            continue
        time = clocks.clock_time(number, tokens, position + taken, language)
        if time:
            dotted = clocks.dotted_half_of_day(tokens, position + taken) is not None
            # The span takes its "am", "pm" or "Uhr" in: one token, not a verb "am".
            yield Value("time", time, start, tokens[position + taken + dotted][3])
            position += taken + 1 + dotted
            continue
        if unit is not None:
            # Only the measured value: "90-minute" and "1.5 h" are one duration, and
            # their bare numbers must not disagree. Its span takes the unit in.
            measure, factor = unit[0], _counted_by_1024(unit, number)
            unit_end = (
                following[3] if following and _unit_of(following, folded, end, token) else end
            )
            yield Value(
                measure, canonical_number(number * factor), start, unit_end, factor, following[1]
            )
            position += taken
            continue
        yield Value("number", written if kind == "number" else canonical_number(number), start, end)
        position += taken
        if following and following[0] == "word" and following[1] == "of" and kind == "number":
            share = _of_share(number, tokens, position + 1, language)
            if share is not None:
                yield Value("share", share, start, end)


def _counted_by_1024(unit: tuple[str, float], number: float) -> float:
    """The factor of a unit of bytes for `number`: "2048 MB", "16384 MB", a count in the
    thousands that 512 divides, was counted by 1,024s, and is "2 GB", "16 GB" as those who
    write it mean. "1.5 TB" / "1500 GB" stay one value by 1,000s."""
    measure, factor = unit
    decimal = factor in (1e3, 1e6, 1e9, 1e12)
    if measure == "bytes" and decimal and number >= 1024 and number % 512 == 0:
        return factor * 1000 / 1024
    return factor


def _number_at(tokens, position: int, folded: str, language: str, written: str | None):
    """The number that starts at `position` (digits `written` as they were, or number
    words: "five", a weak "a" or "one" only before a unit, "twenty five" one number of
    several words) and the position of its last token; (None, position) for none."""
    kind, token, _, end = tokens[position]
    if kind == "number":
        return (float(written) if written is not None else None), position
    if kind != "word" or not (
        token in _number_words(language) or _compound_number(token, language)
    ):
        return None, position
    following = tokens[position + 1] if position + 1 < len(tokens) else None
    unit_next = following is not None and _unit_of(following, folded, end, "1") is not None
    # "half a day": the article of its unit between (reading.quantities._article_before_unit).
    unit_next = unit_next or (
        token in _HALVES and _article_before_unit(tokens, position + 1, folded)
    )
    if token in _weak_numbers() and (not unit_next or _a_letter(following, token)):
        return None, position  # "a B", "an A": a grade or a size, no byte nor ampere
    number, run = _written_number(tokens, position, folded, language)
    return number, position + run - 1


def _a_letter(token, article: str) -> bool:
    """A word of one letter after "a" or "an": no unit is written so there (a unit's sign
    follows digits: "1 A", "5 B"; after an article, a unit is spelled out). Not the article
    after "half" ("half a day")."""
    return article in ("a", "an") and token[0] == "word" and len(token[1]) == 1


def _by_sign(sign, number: float, following, folded: str, end: int, token: str) -> Value | None:
    """ "$1,500", "€20": the currency its sign writes, as "1500 dollars" does, where the
    unit after it is another currency's word or none ("€1,200 a month": no ampere)."""
    after = _unit_of(following, folded, end, token) if following else None
    measure, factor = units.table()[sign[1]]
    if after is not None and after[0] == measure:
        return None
    return Value(measure, canonical_number(number * factor), sign[2], end, factor, sign[1])


def _article_before_unit(tokens, position: int, folded: str) -> bool:
    """Whether an article and a unit stand at `position` ("half an hour")."""
    if position + 1 >= len(tokens) or tokens[position][1] not in _weak_numbers():
        return False
    return _unit_of(tokens[position + 1], folded, tokens[position][3], "1") is not None


def _scale(token, folded: str, previous_end: int, *, currency: bool = False) -> float:
    """The multiplier a word after a number says ("k" glued to it, "million", "Millionen",
    "milliards"; after a currency's sign "M" glued to it: "$1.5M"), or 0."""
    if token is None:
        return 0.0
    if currency and (millions := units.currency_scale(token, folded, previous_end)):
        return millions
    kind, text, start, _ = token
    scales = lexicon()["numbers"]["scales"]
    if kind != "word" or text not in scales:
        return 0.0
    gap = folded[previous_end:start]
    # "k" only glued to its number ("5k"; "5 k" is a letter after it), the words with or
    # without a space ("2.5bn", "2.5 million").
    if gap == "" or (gap == " " and text != "k"):
        return float(scales[text])
    return 0.0


def _currency_before(tokens, position: int, folded: str):
    """The currency sign written right before the number at `position` ("$1,500", "€ 20"),
    as its token, or None."""
    if position == 0:
        return None
    before = tokens[position - 1]
    if before[0] != "sign" or before[1] not in ("$", "€", "£"):
        return None
    return before if folded[before[3] : tokens[position][2]] in ("", " ") else None


def _written_number(tokens, position: int, folded: str, language: str) -> tuple[float, int]:
    """A number written in words from `position` on, and how many words it took: text2num
    reads a run of number words ("twenty five", "vingt-cinq", "fünfundzwanzig"); the
    lexicon's table gives a single word it does not know."""
    run = 1
    while position + run < len(tokens):
        kind, token, start, _ = tokens[position + run]
        gap = folded[tokens[position + run - 1][3] : start]
        # A weak number ("one", "un") goes on a run ("twenty-one") but starts none.
        number_word = token in _number_words(language) or _compound_number(token, language)
        if kind != "word" or gap not in (" ", "-") or not number_word:
            break
        run += 1
    words_ = [tokens[position + i][1] for i in range(run)]
    while run:
        value = _text2num(" ".join(words_[:run]), language)
        if value is not None:
            return value, run
        run -= 1
    first = tokens[position][1]
    table = _number_words(language)
    return (table[first] if first in table else _compound_number(first, language)), 1


@lru_cache(maxsize=65536)
def _compound_number(token: str, language: str) -> float | None:
    """A word the table lacks that text2num reads as a number ("fünfundzwanzig",
    "siebzehn", "seventeen"), or a German number and a half in one word ("siebeneinhalb",
    "eineinhalb"); None for any other word."""
    if token in _number_words(language) or len(token) < 4:
        return None
    whole, half, _ = token.rpartition("einhalb")
    if half and whole:
        number = _number_words(language).get(whole) or _text2num(whole, "de")
        return number + 0.5 if number is not None else None
    number = _text2num(token, language)
    # A one the table lacks is an article's form ("unas", "einer"), no number.
    return None if number == 1 else number


@lru_cache(maxsize=65536)
def _text2num(text: str, language: str) -> float | None:
    from text_to_num import text2num

    try:
        return float(text2num(text, language if language in LEMMATISED else "en"))
    except (ValueError, IndexError, KeyError):
        return None


_WORD_AFTER = re.compile(r" ([^\W\d_]+)")


def _period_next(folded: str, end: int) -> bool:
    """Whether a period of the lexicon's rates follows `end` ("... a day", "... a week")."""
    following = _WORD_AFTER.match(folded, end)  # from `end`: no copy of the rest
    return following is not None and following.group(1) in lexicon()["rates"]["periods"]


def _unit_of(token, folded: str, previous_end: int, number: str) -> tuple[str, float] | None:
    """The unit a number is measured in: the next token, after a space, a hyphen
    ("90-minute") or glued ("12.5n", "36gb"). A unit glued to a digit after it ("m3",
    "an m5.large") is part of an identifier; one glued letter after a large number
    ("5700g", a CPU's name) is too."""
    kind, text, start, end = token
    if kind not in ("word", "sign"):
        return None
    gap = folded[previous_end:start]
    if gap not in ("", " ", "-", "\u00a0"):
        return None
    if end < len(folded) and folded[end].isdigit() and text not in ("'", "’"):
        return None  # but a foot's sign before the inches ("5'6\"")
    digits = len(re.split(r"[.,]", number)[0])
    if gap == "" and len(text) == 1 and text.isalpha() and digits > 3:
        return None
    if text == "a" and _period_next(folded, end):
        return None  # "10,000 a day": the article of a rate, no ampere
    return units.table().get(text)


def _fraction(token: str, start: int, end: int):
    top, _, bottom = token.partition("/")
    if len(token) > _MAX_DIGITS:
        return
    yield Value("number", canonical_number(float(top)), start, end)
    yield Value("number", canonical_number(float(bottom)), start, end)
    if float(bottom):
        yield Value("share", canonical_number(100 * float(top) / float(bottom)), start, end)


def _of_share(top: float, tokens, position: int, language: str) -> str | None:
    """ "18 of 20" (also "18 out of 20"): the share it makes."""
    if position < len(tokens) and tokens[position][1] == "out":
        position += 1
    if position < len(tokens) and tokens[position][0] == "number":
        bottom = parse_digits(tokens[position][1], language)
        if bottom:
            return canonical_number(100 * top / bottom)
    return None


# Chinese: a number (digits or numerals) and the unit after it, with 点 for o'clock,
# 上午/下午 before for the half of the day and 半 after for half past ("三点半"). 个 is a
# classifier before 小时 or 半 ("两个小时"); 半 before a unit is a half more ("一个半小时":
# an hour and a half), or with no number a half ("半小时").
_CHINESE_VALUE = re.compile(
    r"(?P<half>上午|下午|凌晨|早上|晚上)?"
    r"(?:(?P<number>[零〇一二两三四五六七八九十百千万]+|\d+(?:\.\d+)?)\s*(?:个(?=半|小时))?"
    r"|(?<![零〇一二两三四五六七八九十百千万\d])(?=半(?:个月|小时|天|年)))"
    r"(?P<and_half>半)?"
    r"\s*(?P<unit>个月|分钟|小时|公里|公斤|千克|厘米|点|秒|天|周|年|岁|米|克|元|个|%)?"
    r"(?P<half_past>(?<=点)半)?"
)


def _read_chinese(folded: str):
    weekdays = {found.end() - 1 for found in CHINESE_WEEKDAY.finditer(folded)}  # their days
    for match in _CHINESE_VALUE.finditer(folded):
        if not match.group() or HAN.search(match.group()) is None:
            continue  # digits alone are read by the Latin reader
        written = match.group("number") or "0"  # "半小时": no whole, a half
        number = parse_chinese_number(written)
        day = len(written) == 1 and match.start("number") in weekdays
        if number is None or day:
            continue  # "周三" is Wednesday, no three
        unit, half = match.group("unit"), match.group("half")
        number += 0.5 if match.group("and_half") and unit else 0  # "一半" is a half, no 1.5
        start, end = match.start(), match.end()
        if unit == "点" and number <= 24:
            hours = int(number) + (12 if half in ("下午", "晚上") and number < 12 else 0)
            minutes = 30 if match.group("half_past") else 0  # "三点半": half past three
            yield Value("time", f"{hours:02d}:{minutes:02d}", start, end)
        elif unit:
            measure, factor = units.table()[fold(unit)]
            yield Value(measure, canonical_number(number * factor), start, end)
        else:
            yield Value("number", canonical_number(number), start, end)


def keys(text: str) -> frozenset[tuple[str, str]]:
    """The (measure, value) pairs of `text` (for set comparisons)."""
    return frozenset(value.key for value in read(text))


def said_roughly(text: str) -> frozenset[str]:
    """The measures of the values `text` says are rounded ("about 19 km", "roughly 72
    kg", "environ 3 kg"): a word of lexicon.toml's [approximate] rounded right before."""
    folded, roughly = fold(text), _roughly()
    # The few characters before each value only: every value of a long text is asked.
    return frozenset(
        value.measure
        for value in read(text)
        if roughly.search(folded, max(0, value.start - 24), value.start)
    )


def roughly_one(only_a: list, only_b: list, text_a: str, text_b: str) -> tuple[list, list]:
    """The value tokens each side alone has (comparing.frames), none where they are one
    lone value each, one a conversion of the other rounded as a side says it is rounded
    ("about 12 miles" / "roughly 19 km")."""
    if len(only_a) == len(only_b) == 1 and only_a[0].kind == only_b[0].kind == "value":
        (measure, _, a), (other, _, b) = (t.value.partition(":") for t in (*only_a, *only_b))
        roughly = said_roughly(text_a) | said_roughly(text_b)
        if measure == other and measure in roughly and rounding.one_rounded(measure, a, b, True):
            return [], []
        if measure == other == "time" and one_time_of_day(a, b, text_a, text_b):
            return [], []  # "at 7:30" / "at 19:30": a 12-hour clock, either half of the day
        if {measure, other} == {"time", "duration"} and clocks.a_time_taken(
            *((a, b, text_a) if measure == "time" else (b, a, text_b))
        ):
            return [], []  # "His 5k best is 21:40." / "... 21 min 40 s": a clock of time taken
    return only_a, only_b


def one_time_of_day(time_a: str, time_b: str, text_a: str, text_b: str) -> bool:
    """Whether two times of day (HH:MM) twelve hours apart are one, the morning one said
    as a 12-hour clock with no half of the day (reading.clocks.either_half_of_day)."""
    for morning, evening, text in ((time_a, time_b, text_a), (time_b, time_a, text_b)):
        written = [
            fold(text)[v.start : v.end]
            for v in read(text)
            if (v.measure, v.value) == ("time", morning)
        ]
        if written and clocks.either_half_of_day(morning, evening, written[0], text):
            return True
    return False


@cache
def _roughly() -> re.Pattern:
    hedges = "|".join(map(re.escape, lexicon()["approximate"]["rounded"]))
    return re.compile(rf"(?:^|[\s(])(?:{hedges})\s*$")
