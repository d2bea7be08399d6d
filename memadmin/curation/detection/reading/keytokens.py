"""Key tokens: the values in a text that a paraphrase keeps and a changed fact changes
("deployed on Hetzner" / "deployed on Railway", "port 8080" / "port 9090", "m5.large" /
"m5.xlarge"); whether two texts disagree in them, in polarity ("loves jazz" / "can't
stand jazz") or in negation ("uses X" / "does not use X"); and whether a text announces a
change ("moved to", "jetzt", "désormais", "现在").

Values are read in canonical form (reading.quantities): "3 am" and "03:00" are one value.
The words of every language come from store/lexicon.toml. Pure functions of text, shared
by detection, the API, the lost-fact check and calibration."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import NamedTuple

from cleanco.termdata import terms_by_type

from memadmin.curation.detection.reading import dates, german, quantities, tokens
from memadmin.curation.detection.reading.tokens import content_words
from memadmin.store.lexicon import (
    CJK_CHARACTERS,
    LEMMATISED,
    fold,
    language_of,
    lexicon,
    stop_words,
    words,
)
from memadmin.store.text import text_cache


@dataclass(frozen=True)
class KeyToken:
    """A value in a text. `kind`: number, version, time, date, quantity (value
    "measure=value"), ip, host, weekday, month, env or name; `position`: the index of
    the word it starts at (not part of its identity)."""

    kind: str
    value: str
    position: int = field(default=0, compare=False)
    written: str = field(default="", compare=False)  # as the text has it ("30 days")
    # The words a name with an initial takes ("Yuki A." two): all of them are the name.
    words: int = field(default=1, compare=False)


class _Word(NamedTuple):
    # A named tuple: a text's words are made for every memory a run judges, and a frozen
    # dataclass took three times as long to build.
    raw: str
    lower: str
    at_start: bool
    start: int
    end: int


_DIGIT = re.compile(r"\d")
# A set of pronouns one goes by ("she/her", "they/them", "he/they"): a value, told apart
# like a name, though each of its words alone is a pronoun.
_PRONOUNS = r"he|him|his|she|her|hers|they|them|theirs|xe|xem|ze|zir|it|its"
_PRONOUN_SET = re.compile(rf"(?:{_PRONOUNS})(?:/(?:{_PRONOUNS}))+")
_IP = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?")
_HOST = re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)+")
_IDENTIFIER = re.compile(r"#?(?=.*\d)(?=.*[a-z])[a-z0-9]+(?:[-_.][a-z0-9]+)*")
_COMPOUND = re.compile(r"[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+")
_LABEL_NUMBER = re.compile(r"\d{1,3}")
# A capital letter that labels one of several things ("Company A", "Plan B"): never the
# pronoun "I", and never an article however it is written.
_LABEL_LETTER = re.compile(r"[A-HJ-Z]")
# Digits grouped by thousands go on after a comma or a stop ("Raised 1,200,000"): the
# first group is no label's number.
_GROUPED = re.compile(r"[,.]\d{3}\b")
_LETTERS_NUMBER = re.compile(r"([a-z]+)[\s\-_]?0*(\d+)")
# A mark that ends a sentence (or opens one: "Package manager: pnpm"), and space after it.
_AFTER_SENTENCE_END = re.compile(r"[.!?。！？:;]\s*")
# An initial: one capital letter and its stop ("A." in "Yuki A.", "J." in "J. Smith"),
# never the end of a sentence nor the article "a".
_INITIAL = re.compile(r"(?<![\w.])[A-Z]\.")
# Capitalised words that are no names: pronouns, words that start a sentence in one.
NAME_STOPWORDS = {"i", "i'm", "the", "a", "an", "ok", "okay", "via", "and", "or"}
# How many words count as a sentence's first, where its subject is named ("pve1 has...").
SUBJECT_WORDS = 3
# Words that may stand before a subject without making it an object.
ARTICLES = frozenset({"the", "a", "an", "der", "die", "das", "le", "la", "les", "un", "une"})


@cache
def lexicon_tables() -> dict[str, dict[str, str]]:
    """word -> canonical value, for weekdays, months and environments."""
    tables: dict[str, dict[str, str]] = {}
    for section in ("weekdays", "months", "environments"):
        tables[section] = {
            word: value for value, spelled in lexicon()[section].items() for word in spelled
        }
    return tables


@text_cache
def words_of(text: str) -> tuple[_Word, ...]:
    # Cached: one judgement reads a text's words several times (subject, stance, names).
    found = []
    # A word starts a sentence when it is the first, or when what stands before it, white
    # space aside, ends a sentence (no token ends in such a mark: it is outside them).
    # Nor does the stop of an initial or of a title ("J. Smith", "Dr. Lavoie").
    initials = {match.end() for match in _INITIAL.finditer(text)}
    initials |= {match.end() for match in _titles().finditer(text)}
    after_end = {
        match.end()
        for match in _AFTER_SENTENCE_END.finditer(text)
        if match.start() + 1 not in initials
    }
    for match in _value_tokens(text):
        raw = match.group().strip(".-/:'")
        if raw:
            start, end = match.span()
            if tokens.bare_possessive(text, start, end) and not tokens.s_form(raw.lower()):
                raw += "'s"  # "Jonas' team" names its owner as "Jonas's team" does
            at_start = not found or start in after_end
            found.append(_Word(raw, _folded_word(raw), at_start, start, end))
    return tuple(found)


# Chinese, Japanese and Korean characters: no space parts them from a Latin name
# ("王伟用Python写脚本", "VS Codeに乗り換えた").
_CJK_RUN = re.compile(f"[{CJK_CHARACTERS}]+")
_CJK_OR_OTHER_RUN = re.compile(f"[{CJK_CHARACTERS}]+|[^{CJK_CHARACTERS}]+")


def _value_tokens(text: str):
    """The value tokens of `text`, each cut where Chinese, Japanese or Korean characters
    meet others: "王伟用Python写脚本" holds the name Python, as "Wei uses Python" does."""
    for match in tokens.VALUE_TOKEN.finditer(text):
        if text.isascii() or not _CJK_RUN.search(match.group()):
            yield match
            continue
        start, end = match.span()
        for part in _CJK_OR_OTHER_RUN.finditer(text[start:end]):
            piece = tokens.VALUE_TOKEN.search(text, start + part.start(), start + part.end())
            while piece is not None:
                yield piece
                piece = tokens.VALUE_TOKEN.search(text, piece.end(), start + part.end())


def title(written: str) -> bool:
    """A title as written before a name: capitalised, the rest in lower case ("Dr",
    "Mrs", "Mme"), never the unit "ms" nor "MS"."""
    return written[1:].islower() and written[:1].isupper() and fold(written) in words("honorifics")


def titles_in(text: str) -> frozenset[str]:
    """The titles a text gives names ("dr", "mrs"), written with a stop or without."""
    return frozenset(word.lower for word in words_of(text) if title(word.raw))


@cache
def _titles() -> re.Pattern:
    """A title and its stop ("Dr.", "Mme."), as written."""
    listed = "|".join(sorted((w.capitalize() for w in words("honorifics")), key=len, reverse=True))
    return re.compile(rf"(?<![\w.])(?:{listed})\.")


@lru_cache(maxsize=262144)
def _folded_word(raw: str) -> str:
    return fold(raw)


@text_cache
def key_tokens(text: str) -> frozenset[KeyToken]:
    """The key tokens of `text`: values (numbers, quantities, times, versions: canonical),
    dates (ISO, or day and month in words, also German "15. Dezember" and Chinese
    "12月15日"), IPs, hosts, weekdays, months, environments (staging / production), and
    names: capitalised words inside a sentence, a possessive subject ("Alice's"),
    identifiers of letters and digits (R-118, pve2, E-042), and labels with a number
    ("Joint 4", the same as "J4")."""
    folded = fold(text)
    words_, values = words_of(text), quantities.read(text)
    found: set[KeyToken] = set(_days_of_rates(words_, values))
    taken: list[tuple[int, int]] = []  # spans read as a date or a label
    starts = [word.start for word in words_]  # ascending: the words are in text order
    # Spans of measured values ("12.5 N"): their words (the unit) are no names.
    measured = [(v.start, v.end) for v in values if v.measure not in ("number", "version")]

    def word_at(offset: int) -> int:
        """The index of the first word that starts at `offset` or after it."""
        return bisect_left(starts, offset)

    def inside(word: _Word, spans) -> bool:
        return any(start <= word.start < end for start, end in spans)

    nouns = _common_words(words_, language_of(text))
    index = 0
    while index < len(words_):
        if _plain(words_[index].raw):
            index += 1
            continue
        date, used = dates.date_at(words_, index, lexicon_tables()["months"])
        if date:
            span = (words_[index].start, words_[index + used - 1].end)
            found.add(KeyToken("date", date, index, text[span[0] : span[1]]))
            taken.append(span)
            index += used
            continue
        initialled = _initialled_name_at(words_, index, text)
        if initialled:
            span = (words_[index].start, words_[index + 1].end)
            found.add(KeyToken("name", initialled, index, text[span[0] : span[1]], words=2))
            taken.append(span)
            index += 2
            continue
        label = _label_at(words_, index, text)
        if label and not inside(words_[index + 1], measured):
            span = text[words_[index].start : words_[index + 1].end]
            found.add(KeyToken("name", label, index, span))
            taken.append((words_[index].start, words_[index + 1].end))
            index += 2
            continue
        form = _legal_form_at(words_, index)
        if form:
            found.add(KeyToken("name", form, index))
            index += 1
            continue
        if not inside(words_[index], measured):
            classified = _classify(words_[index], index) or _the_letter_a(words_, index)
            if index in nouns:
                classified = [token for token in classified if token.kind != "name"]
            found.update(classified)
        index += 1
    for match in tokens.CHINESE_WEEKDAY.finditer(folded):  # "每周三": Wednesday, not three
        weekday = lexicon_tables()["weekdays"].get(match.group())
        if weekday:
            found.add(KeyToken("weekday", weekday, word_at(match.start())))
            taken.append(match.span())
    for match in dates.CHINESE_DATE.finditer(folded):
        year, month, day = match.groups()
        value = f"{year or ''}-{int(month):02d}" + (f"-{int(day):02d}" if day else "")
        found.add(KeyToken("date", value, word_at(match.start())))
        taken.append(match.span())
    for value in values:
        if any(start <= value.start < end for start, end in taken):
            continue
        index, written = word_at(value.start), folded[value.start : value.end]
        if value.measure in ("number", "version", "time"):
            found.add(KeyToken(value.measure, value.value, index, written))
        else:
            found.add(KeyToken("quantity", f"{value.measure}={value.value}", index, written))
    return frozenset(found)


def _days_of_rates(words_, values) -> list[KeyToken]:
    """The weekdays inside a rate, days of their own: "every Monday" is not "every Thursday"."""
    weekdays = lexicon_tables()["weekdays"]
    rates = sorted((value.start, value.end) for value in values if value.measure == "rate")
    starts = [start for start, _ in rates]  # rates do not overlap: the one before a word
    found = []
    for index, word in enumerate(words_):
        before = bisect_right(starts, word.start) - 1
        if word.lower in weekdays and before >= 0 and word.start < rates[before][1]:
            found.append(KeyToken("weekday", weekdays[word.lower], index))
    return found


@lru_cache(maxsize=262144)
def _the_letter_a(words_, index: int) -> list[KeyToken]:
    """A capital "A" that is a letter (a grade, a blood type), not the article, as a name:
    after an article, a copula or "to", before no word it would be the article of ("an A
    in physics", "is A.", "an A now"; not "is A great place")."""
    word = words_[index]
    if word.raw != "A" or word.at_start or index == 0:
        return []
    if words_[index - 1].lower not in ("a", "an", "is", "was", "are", "were", "be", "to"):
        return []
    after = words_[index + 1] if index + 1 < len(words_) else None
    if after is None or not after.raw[:1].islower():
        return [KeyToken("name", "a", index)]
    alone = after.lower in stop_words() or after.lower in words("change")  # "an A now"
    return [KeyToken("name", "a", index)] if alone else []


def _plain(raw: str) -> bool:
    """A word no key token starts at, wherever it stands: lower case, no digit first, no
    month, nothing _classify finds. Most words of most memories are plain, and key_tokens
    runs for every memory a run judges: they skip the readers below."""
    lower = fold(raw)
    if not raw[:1].islower() or lower[:1].isdigit() or lower in lexicon_tables()["months"]:
        return False
    return not _classify(_Word(raw, lower, False, 0, len(raw)), SUBJECT_WORDS)


def _common_words(words_: tuple[_Word, ...], language: str) -> frozenset[int]:
    """The indices of capitalised words that are no names: a word in capitals after a
    possessive names a role, as "her supervisor" does ("her PI", "my GP", "unser CTO"),
    and in German the tagger's nouns ("Antworten auf Deutsch", "Jonas' Team", "vor
    Kurzem"), though a word in capitals there ("die TU München") stays a name."""
    owned = {i for i in range(1, len(words_)) if words_[i - 1].lower in _possessives()
             and words_[i].raw.isupper() and words_[i].raw.isalpha()}  # fmt: skip
    if language != "de":
        return frozenset(owned)
    tagged = german.no_names(tuple(word.raw.removesuffix("'s") for word in words_))
    return frozenset(owned).union(
        i for i in tagged if words_[i].raw[:1].isupper() and not words_[i].raw.isupper()
    )


@cache
def _possessives() -> frozenset[str]:
    return frozenset(w for found in lexicon()["user"].values() for w in found["possessives"])


def _initialled_name_at(words_: list[_Word], index: int, text: str) -> str | None:
    """A name with an initial starting at `index`: a given name and the initial of the
    family one ("Yuki A.", "Yuki A.'s") or an initial and a family name ("J. Smith"),
    as "yuki a." / "j. smith". The initial tells two people apart ("Yuki A." / "Yuki
    R."), so it is part of the name, even first in a sentence, and never the article
    "a"."""
    if index + 1 >= len(words_):
        return None
    first, second = words_[index], words_[index + 1]
    between = text[first.end : second.start]

    def is_initial(word: _Word) -> bool:
        return bool(_INITIAL.match(text, word.start)) and word.raw[1:] in ("", ".'s", ".’s")

    def is_name(word: _Word) -> bool:
        return word.raw.isalpha() and word.raw[0].isupper() and len(word.raw) > 1

    if not between.strip() and is_name(first) and first.lower not in NAME_STOPWORDS:
        if is_initial(second):
            return f"{first.lower} {second.lower[0]}."
    elif between.strip() == "." and is_initial(first) and is_name(second):
        return f"{first.lower[0]}. {second.lower}"
    return None


def _legal_form_at(words_: tuple[_Word, ...], index: int) -> str | None:
    """The legal form of a company after its name ("Tom Inc.", "Hugo GmbH", "Oakport
    Limited"), read as the form it abbreviates: "Tom Inc." and "Tom Incorporated" are one
    company, "Tom Inc." and "Tom Ltd." two (curation.detection.comparing.evidence)."""
    if index == 0:
        return None
    word, name = words_[index], words_[index - 1]
    if not (word.raw[0].isupper() and name.raw[0].isupper() and name.raw.isalpha()):
        return None
    return legal_forms().get(word.lower)


@cache
def legal_forms() -> dict[str, str]:
    """Companies' legal forms, written without stops ("inc", "gmbh", "sarl"), each to the
    spelled-out form it abbreviates within its kind of business ("inc" -> "incorporated",
    "ltd" -> "limited", "corp" -> "corporation"; "gmbh" -> itself): cleanco's table of
    legal terms by business type, which is maintained for many countries."""
    forms: dict[str, str] = {}
    for terms in terms_by_type.values():
        written = sorted({fold(re.sub(r"[.,\-\s]", "", term)) for term in terms})
        # Spelled out: one word as written, three letters longer than the abbreviation at
        # least ("plc" does not abbreviate "pllc", "as" not "akc. spol.").
        words_ = [fold(term) for term in terms if term.isalpha()]
        for form in (form for form in written if form.isalpha()):
            longer = [full for full in words_ if len(full) >= len(form) + 3]
            spelled = [full for full in longer if _abbreviates(form, full)]
            forms.setdefault(form, max(spelled, key=len) if spelled else form)
    return forms


def _abbreviates(short: str, full: str) -> bool:
    """Whether `short` is written with letters of `full`, in order, from its first."""
    if short[0] != full[0]:
        return False
    rest = iter(full[1:])
    return all(letter in rest for letter in short[1:])


def _label_at(words_: list[_Word], index: int, text: str) -> str | None:
    """A capitalised word and a small number or a capital letter after it, naming one of
    several things ("Joint 4", "Plant 3", "Sprint 31", "Company A", "Building C"): the
    label "joint 4" (the same as "j4"), "company a" (the same as "Company A." at a
    sentence's end). Only a space may stand between them ("the VMs: 24 hourly" is no
    label). The letter is part of the name ("Company A" / "Company B": two companies)."""
    if index + 1 >= len(words_):
        return None
    word, label = words_[index], words_[index + 1]
    if text[word.end : label.start].strip():
        return None
    # "Node.js v20" names what "Node 20" does: a library's ".js" and a version's "v" aside.
    name, number = word.lower.removesuffix(".js"), label.raw.removeprefix("v")
    if not word.raw[0].isupper() or not name.isalpha() or name in NAME_STOPWORDS:
        return None
    if name in lexicon_tables()["months"] or name in stop_words():
        return None
    if index == 0 and name.endswith("s") and is_predicate(name, language_of(text)):
        return None  # "Needs 40 chairs": the verb a memory opens with
    if _LABEL_NUMBER.fullmatch(number) and not _GROUPED.match(text, label.end):
        return f"{name} {int(number)}"
    if _LABEL_LETTER.fullmatch(label.raw) and not _INITIAL.match(text, label.start):
        return f"{name} {label.lower}"
    return None


def _classify(word: _Word, index: int) -> list[KeyToken]:
    raw, lower = word.raw, word.lower
    tables = lexicon_tables()
    # Most words hold no digit or dot: they skip the IP, identifier and host expressions.
    has_digit = _DIGIT.search(lower) is not None
    if has_digit and _IP.fullmatch(lower):
        return [KeyToken("ip", lower, index)]
    if "@" in lower and tokens.EMAIL.fullmatch(lower):
        return [KeyToken("email", lower, index)]
    # A short form is a weekday written as one ("Sun", "Wed"), not a word ("sun or rain").
    if lower in tables["weekdays"] and (raw[0].isupper() or len(lower) > 3 or not raw.isascii()):
        return [KeyToken("weekday", tables["weekdays"][lower], index)]
    if lower in tables["months"] and (raw[0].isupper() or len(lower) > 3):
        return [KeyToken("month", tables["months"][lower], index)]
    if lower in tables["environments"]:
        return [KeyToken("env", tables["environments"][lower], index)]
    if lower[0].isdigit():
        return []  # a value: read by curation.detection.reading.quantities
    if "/" in lower and _PRONOUN_SET.fullmatch(lower):
        return [KeyToken("name", lower, index)]
    top_level = lower.rsplit(".", 1)[-1]
    if (
        "." in lower
        and _HOST.fullmatch(lower)
        and any(c.isalpha() for c in top_level)
        and lower not in ("a.m", "p.m")  # "3 p.m.": the half of the day, no host
        and (not _IDENTIFIER.fullmatch(lower) or lower.count(".") > 1)
    ):
        return [KeyToken("host", lower, index)]
    if (has_digit and _IDENTIFIER.fullmatch(lower)) or (
        not word.at_start and raw[0].isupper() and "-" in raw and raw[1:2] != "-"
    ):
        # Identifiers (R-118, pve2, m5.large) and hyphenated names (Contact-GraspNet) say
        # which entity a fact is about, like names do ("T-shirt", "X-ray" are words).
        return [KeyToken("name", lower, index)]
    if lower.endswith(("'s", "’s")) and raw[0].isupper() and index < SUBJECT_WORDS:
        return [KeyToken("name", lower[:-2], index)]  # "Alice's birthday": a subject
    if (
        raw[0].isupper()
        and not word.at_start
        and raw.replace("'", "").isalpha()
        and lower not in NAME_STOPWORDS
        and not title(raw)
    ):
        return [KeyToken("name", lower, index)]
    return []


def name_parts(identifier: str) -> tuple[str, str]:
    """A name's letters and its number ("postgresql 16" -> ("postgresql", "16"))."""
    return _parts(identifier)


@lru_cache(maxsize=65536)
def _parts(identifier: str) -> tuple[str, str]:
    """An identifier's letters and number: "j4" -> ("j", "4"), "joint 4" -> ("joint", "4")."""
    match = _LETTERS_NUMBER.fullmatch(identifier)
    return (match.group(1), match.group(2)) if match else (identifier, "")


@text_cache
def compounds(text: str) -> frozenset[str]:
    folded = tokens.EMAIL.sub(" ", fold(text))  # an address's parts are no names
    return frozenset(
        match
        for match in _COMPOUND.findall(folded)
        if not _IP.fullmatch(match) and not dates.ISO_DATE.fullmatch(match)
    )


@text_cache
def subject(text: str) -> str | None:
    """The entity a text is about when it names one in its first words ("pve1 has 64 GB",
    "Experiment E-041 tested...", "Alice's birthday is..."): its name, or None."""
    words_ = words_of(text)

    def opens_the_sentence(position: int) -> bool:
        # Only capitalised words or articles before it: "Experiment E-041 tested",
        # "The pve1 host"; not "Deployed on Hetzner" (an object after a preposition),
        # nor "Uses Docker", "Is Swiss", "Mag Jazz": a memory that leaves its subject
        # out opens on its verb, capitalised, and what follows is its object.
        return all(
            (word.raw[:1].isupper() and not is_predicate(word.lower, language_of(text)))
            or word.lower in ARTICLES
            for word in words_[:position]
        )

    leading = [
        token
        for token in key_tokens(text)
        if token.kind == "name"
        and token.position < SUBJECT_WORDS
        and opens_the_sentence(token.position)
    ]
    if leading:
        return min(leading, key=lambda token: token.position).value
    # A compound in its first words, before a copula ("api.acme.io is down"; not "Zoom
    # handle is @dana.k": what the handle is), nor after the verb a memory opens on
    # ("Works part-time": how; "Builds of media-api" opens on a noun).
    copulas = lexicon()["predicates"]["be"]["words"]
    copula = next((w.start for w in words_ if w.lower in copulas), 20)
    on_its_verb = (
        len(words_) > 1
        and is_predicate(words_[0].lower, language_of(text))
        and words_[1].lower != "of"
    )
    early = [
        c
        for c in compounds(text)
        if (at := fold(text).find(c)) < min(copula, 20) and not (on_its_verb and at > 0)
    ]
    return min(early, key=fold(text).find) if early else None


@cache
def predicate_words() -> frozenset[str]:
    """The verbs of the lexicon's predicate classes and stances ("uses", "is", "likes",
    "mag"): a memory that opens on one has left its subject out."""
    found = {word for entry in lexicon()["predicates"].values() for word in entry.get("words", [])}
    found |= set(lexicon()["polarity"]["positive"]) | set(lexicon()["polarity"]["negative"])
    return frozenset(found)


@lru_cache(maxsize=65536)
def is_predicate(word: str, language: str) -> bool:
    """Whether a word opening a memory is its verb: a form of a predicate or stance verb
    of the lexicon ("uses", "liked", "ist"), or in English a verb's third person ("wears",
    "owns": a memory that leaves its subject out says "Wears a Garmin watch")."""
    if word in predicate_words():
        return True
    if language not in LEMMATISED:
        return False
    import simplemma  # the lemmatiser the clause reader uses (reading.words.lemma)

    lemma = fold(simplemma.lemmatize(word, lang=language))
    return lemma in predicate_words() or (language == "en" and tokens.s_form(word))


# Words that open a noun phrase whose noun a name may qualify ("the welder from Lima",
# "her office in Porto").
DETERMINERS = ARTICLES | {"my", "your", "his", "her", "its", "our", "their"}


@text_cache
def qualified_things(text: str) -> dict[tuple[str, str], str]:
    """The things a text tells apart by a name after their noun: "owes 830 euros to the
    welder from Porto" -> {("welder", "from"): "porto"}; a determiner, a noun in lower
    case, a linking word, a name. Two texts that qualify one noun with two names speak
    of two things ("the welder from Porto" / "the welder from Perth")."""
    words_ = words_of(text)
    found = {}
    for token in key_tokens(text):
        at = token.position
        if token.kind != "name" or at < 3:
            continue
        determiner, noun, link = words_[at - 3], words_[at - 2], words_[at - 1]
        if (
            determiner.lower in DETERMINERS
            and noun.raw.isalpha()
            and noun.raw.islower()
            and noun.lower not in stop_words()
            and link.lower in stop_words()
        ):
            found[noun.lower, link.lower] = token.value
    return found


def frame_stems(text: str) -> list[tuple[str, bool, str]]:
    """The words of a text that can name a thing, as (stem, is a value, the word): no
    stop words, no change cues (they say when, not what). A name is a value: "deployed
    on Hetzner" / "on Railway" fill one slot two ways."""
    values = {
        token.position + offset for token in key_tokens(text) for offset in range(token.words)
    }
    cues = words("change", "words")
    frame = []
    for index, word in enumerate(words_of(text)):
        if word.lower in stop_words() or word.lower in cues:
            continue
        frame.append((word.lower[:5], index in values or word.lower[0].isdigit(), word.lower))
    return frame


@text_cache
def frame_words(text: str) -> frozenset[str]:
    """What a memory says of its subject with every name and value taken out: the stems
    of its other content words ("Lea K. lives in Turin" -> {"lives"}; "Use 15 N of grip
    force on the steel bracket" -> {"use", "grip", "force", "steel", "brack"}). Two
    memories of one frame give one slot two values; two frames, two slots."""
    names = {
        part for token in key_tokens(text) for part in content_words(token.written or token.value)
    }
    written = text.split()
    names |= {
        content_words(raw)[0] for raw in written[1:] if raw[:1].isupper() and content_words(raw)
    }
    return frozenset(
        word[: tokens.STEM_LENGTH] for word in content_words(text) if word not in names
    )
