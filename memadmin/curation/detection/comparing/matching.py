"""Which words of two memories are one word: the same lemma or canonical value, a name
in another form (Postgres / PostgreSQL, J4 / Joint 4), an acronym and its expansion
("UCL" / "University College London", from the initials: no list of names), a word of
the same class of predicate ("called" / "named"), and across languages a translation
the multilingual model vouches for. comparing.frames aligns two readings with these, and
comparing.order asks which stand in which role."""

from __future__ import annotations

import re
from itertools import pairwise

from memadmin.curation.detection.comparing import alignment, contrast
from memadmin.curation.detection.comparing.acronyms import abbreviates, region_named
from memadmin.curation.detection.reading import (
    keytokens,
    measured,
    places,
    quantities,
    romanised,
    rounding,
)
from memadmin.curation.detection.reading.clause import Reading
from memadmin.curation.detection.reading.tokens import numeronym
from memadmin.curation.detection.reading.words import (
    Token,
    class_of,
    limits_aside,
    measure_named,
    one_role,
    pair_aside,
    relation_word,
    same_class,
)
from memadmin.store.lexicon import (
    CJK,
    UNREAD_LANGUAGES,
    fold,
    languages_differ,
    plain,
    words,
)

# The most words that may differ on a side for the difference to be one slot's value
# ("a data analyst" / "a product manager"); more is rewording, for the similarity.
RESIDUE_WORDS = 3
# An acronym is two to six letters.
_ACRONYM = re.compile(r"[a-zé]{2,6}")


# Two words of two languages are surely not one word below this multilingual cosine
# (translations score 0.86 and up; "Siemens" / "Bosch" 0.83).
NOT_A_TRANSLATION = 0.85


def other_word_across(older: Reading, newer: Reading) -> str:
    """ "Works at Siemens" / "Arbeitet bei Bosch", "Prefers dark mode" / "Préfère le mode
    clair": the objects of one predicate across languages, word against word with the
    multilingual model, differ in exactly one word each that is no translation of the
    other (the rest of them translations); else ""."""
    objects_a = [t for t in older.objects if t.kind in ("word", "name")]
    objects_b = [t for t in newer.objects if t.kind in ("word", "name")]
    if not objects_a or not objects_b or max(len(objects_a), len(objects_b)) > RESIDUE_WORDS:
        return ""
    scores = {  # a plural may score under its translation where its lemma does not
        (a.text, b.text): max(
            alignment.across_languages(a.text, b.text),
            alignment.across_languages(a.lemma, b.lemma),
        )
        for a in objects_a
        for b in objects_b
    }
    only_a = [a for a in objects_a if max(scores[a.text, b.text] for b in objects_b) < 0.9]
    only_b = [b for b in objects_b if max(scores[a.text, b.text] for a in objects_a) < 0.9]
    if len(only_a) == len(only_b) == 1:
        a, b = only_a[0], only_b[0]
        # Names keep their spelling across languages ("Siemens" / "Bosch": two firms).
        names = a.kind == "name" or a.upper, b.kind == "name" or b.upper
        other_names = all(names) and not contrast.same_name(a.text, b.text, across=True)
        if other_names or scores[a.text, b.text] < NOT_A_TRANSLATION:
            return f"{a.text} / {b.text}"
    return ""


# The multilingual model's cosine of two words of two languages from which they are one
# word: a word and its translation score 0.90-0.96 ("Schach" / "chess" 0.90, "Hund" /
# "dog" 0.94), but so do two of one kind ("tennis" / "golf" 0.91, "Kaffee" / "tea" 0.91).
# Under it a pair is unread, and the sentences' cosines say more ("Joue au golf." /
# "Plays tennis." 0.85, "Joue au tennis." / "Plays tennis." 0.94).
SURE_TRANSLATION = 0.93


def same_objects_across(older: Reading, newer: Reading) -> bool:
    """ "Lives in Hamburg" / "Wohnt jetzt in Hamburg": objects on both sides across
    languages, each a name or a sure translation (SURE_TRANSLATION) of one on the other:
    of one predicate, the same statement."""
    objects_a = [t for t in older.objects if t.kind in ("word", "name")]
    objects_b = [t for t in newer.objects if t.kind in ("word", "name")]
    if not objects_a or not objects_b or max(len(objects_a), len(objects_b)) > RESIDUE_WORDS:
        return False

    return all(
        any(_one_word_across(a, b, SURE_TRANSLATION) for b in objects_b) for a in objects_a
    ) and all(any(_one_word_across(a, b, SURE_TRANSLATION) for a in objects_a) for b in objects_b)


def _one_word_across(a: Token, b: Token, translation: float) -> bool:
    """One word in two languages: one key, one name, or a translation (the multilingual
    model's cosine `translation` or more)."""
    if a.key == b.key or contrast.same_name(a.text, b.text, across=True):
        return True
    return alignment.across_languages(a.text, b.text) >= translation


def scripts_differ(older: Reading, newer: Reading) -> bool:
    """Chinese, Japanese or Korean characters on one side only (Hangul too: no reader
    reads it beside letters either)."""
    return languages_differ(older.text, newer.text) and (CJK.search(older.text) is None) != (
        CJK.search(newer.text) is None
    )


def blind_to_one(older: Reading, newer: Reading) -> bool:
    """Whether no reader reads one of the two: Chinese, Japanese or Korean on one side
    only, or a language none reads on either ("Werkt bij ASML als ingenieur." / "Haar man
    werkt bij Philips.": whatever else the evidence says of them is the embeddings' guess)."""
    unread = any(r.language in UNREAD_LANGUAGES for r in (older, newer))
    return unread or scripts_differ(older, newer)


def named_across_scripts(older: Reading, newer: Reading) -> bool:
    """Whether the subject one side names is in the other, in Chinese characters or kana
    (romanised): a reader of those finds no subject in "健太は福岡から..." and takes it for
    the user's, where "Kenta works remotely from Fukuoka." names Kenta."""
    if not scripts_differ(older, newer):
        return False
    named, other = (newer, older) if older.about_user else (older, newer)
    names = [t for t in named.subject_words if t.kind == "name" or t.upper]
    return bool(names) and all(found_in(t, other) for t in names)


def nothing_shared_across(older: Reading, newer: Reading) -> str:
    """ "Jonas prefers replies in German" / "Jonas mag keine Katzen": objects on both sides
    across languages and none a translation of one on the other (nor one name): what
    each says is about something else ("German / katzen"); else ""."""
    objects_a = [t for t in older.objects if t.kind in ("word", "name")]
    objects_b = [t for t in newer.objects if t.kind in ("word", "name")]
    if not objects_a or not objects_b:
        return ""
    if any(_one_word_across(a, b, NOT_A_TRANSLATION) for a in objects_a for b in objects_b):
        return ""
    return f"{spelled(objects_a, older.text)} / {spelled(objects_b, newer.text)}"


def numbers_differ(names_a: set[str], names_b: set[str]) -> bool:
    """ "postgresql 15" / "postgresql 16": one name, another number."""
    numbers_a = {keytokens.name_parts(n) for n in names_a}
    numbers_b = {keytokens.name_parts(n) for n in names_b}
    return any(
        letters == other_letters and number and other_number and number != other_number
        for letters, number in numbers_a
        for other_letters, other_number in numbers_b
    )


def changed_values(values_a: set[str], values_b: set[str], text_b: str, text_a: str) -> str:
    """A kind of value both sides give, with no value of it in common (names compared in
    any spelling of the other language). A rate's days are weekdays too: French "le
    samedi" reads as a weekday, "on Sundays" as a weekly rate, and both say the day."""
    values_a, values_b = _days_of_rates(values_a), _days_of_rates(values_b)
    for kind in sorted({v.split(":")[0] for v in values_a} & {v.split(":")[0] for v in values_b}):
        of_a = {v.split(":", 1)[1] for v in values_a if v.startswith(kind + ":")}
        of_b = {v.split(":", 1)[1] for v in values_b if v.startswith(kind + ":")}
        if of_a & of_b:
            continue
        if (
            kind == "name"
            and not numbers_differ(of_a, of_b)
            and (
                any(contrast.keeps_name(n, text_b, across=True) for n in of_a)
                or any(contrast.keeps_name(n, text_a, across=True) for n in of_b)
            )
        ):
            continue
        if kind == "date" and any(contrast.same_date(d, of_b) for d in of_a):
            continue
        return f"{kind}: {', '.join(sorted(of_a))} / {', '.join(sorted(of_b))}"
    return ""


def _days_of_rates(values: set[str]) -> set[str]:
    days = (v.partition("@")[2] for v in values if v.startswith("rate:"))
    return values | {f"weekday:{day}" for found in days if found for day in found.split(",")}


def same_word(a: Token, b: Token) -> bool:
    """One word in two texts: the same lemma or canonical value, a name in a longer or
    shorter form (Postgres / PostgreSQL, J4 / Joint 4), or a date in a fuller form."""
    if a.key == b.key:
        return True
    if a.kind == b.kind == "word" and a.text == b.text:
        return True  # a value or a name is its whole value ("May 9" / "May 6")
    if a.kind == b.kind == "word" and same_stem(a.lemma, b.lemma):
        return True  # "meeting" / "meet", "scripting" / "script": lemmas disagree at times
    if a.kind == b.kind == "word" and same_word_class(a, b):
        return True  # "a cat called Miso" / "named Miso": words of one class of predicate
    if (_part_of(b.text, a.text) or _part_of(a.text, b.text)) and not (
        relation_word(a, "en") or relation_word(b, "en") or _prefixed(a.text, b.text)
    ):
        # "cems-ingest" / "the ingest service"; not "mother" / "mother-in-law", "husband"
        # / "ex-husband": another relation, another person; nor "half-marathon".
        return True
    if (a.caps and abbreviates(a.text, b.text)) or (b.caps and abbreviates(b.text, a.text)):
        return True  # "DB" / "database"
    if numeronym(a.text, b.text) or numeronym(b.text, a.text):
        return True  # "k8s" / "Kubernetes"
    if {a.kind, b.kind} == {"name", "word"}:
        # "Her cat Miso" / "Miso, her cat": a name at the start; "Postgres" / "Postgres 16"
        return a.lemma == b.lemma or (a.upper and b.upper and contrast.numbered(a.lemma, b.lemma))
    if a.kind == "name" and b.kind == "name":  # "Postgres 16" / "PostgreSQL 16"
        return contrast.same_name(a.lemma, b.lemma)
    if a.value.startswith("date:") and b.value.startswith("date:"):
        return contrast.same_date(a.value[5:], {b.value[5:]})
    if a.kind == b.kind == "value" and measured.one_span(a.value, b.value):
        return True  # "30 days" / "one month"
    if a.kind == b.kind == "value" and rounding.rounded_alike(a.value, b.value):
        return True  # "5 foot 6" / "168 cm": a conversion and its rounding
    if a.value.startswith("rate:") and b.value.startswith("rate:"):
        # "Plays tennis weekly" / "every Thursday": a rate that names its days is the
        # rate in a fuller form (two that name days name the same ones, or differ).
        (rate_a, _, days_a), (rate_b, _, days_b) = a.value.partition("@"), b.value.partition("@")
        return rate_a == rate_b and not (days_a and days_b)
    return False


def same_or_unnumbered(later: Token, older: Token) -> bool:
    """One word, or a name said again without its number ("sold the Mazda" / "a Mazda 3",
    "switched from the Pixel" / "has a Pixel 8": the one it had, whichever model)."""
    if same_word(later, older):
        return True
    letters, number = keytokens.name_parts(older.value.removeprefix("name:"))
    return later.kind == older.kind == "name" and bool(number) and later.lemma == letters


def _prefixed(*texts: str) -> bool:
    """A compound opening with a prefix that makes another thing of its noun ("half-
    marathon", "co-founder": the lexicon's `[markers] other_thing`)."""
    prefixes = words("markers", "other_thing")
    return any(re.split(r"[-_]", text, maxsplit=1)[0] in prefixes for text in texts)


def _part_of(word: str, compound: str) -> bool:
    """A part of a compound joined by "-" or "_", long enough to name something: "ingest"
    of "cems-ingest"; not "pi" of "pi-hole" ("Raspberry Pi")."""
    return (
        len(word) >= 3
        and ("-" in compound or "_" in compound)
        and (word in re.split(r"[-_]", compound))
    )


def same_stem(lemma_a: str, lemma_b: str) -> bool:
    short, long = sorted((lemma_a, lemma_b), key=len)
    return len(short) >= 4 and long.startswith(short) and len(long) - len(short) <= 3


def spelled(tokens, text: str = "") -> str:
    """Tokens as `text` writes them, for a reason people read: a name whole and in its
    case ("Postgres 15", not "postgres"), a quantity with its unit ("42 cm")."""
    return " ".join(_as_written(t, text) for t in tokens)


def read_alike(tokens_a, tokens_b) -> bool:
    """ "floor 2" / "Floor 2": the same words, read as a name on one side (a capital and
    a number) and as a word and a number on the other."""

    def said(tokens) -> str:
        return " ".join(t.value.partition(":")[2] if t.value else t.lemma for t in tokens)

    return said(tokens_a) == said(tokens_b)


def phrase(tokens, text: str) -> str:
    """The stretch of `text` from the first token to the last, as written ("Alice's
    partner Tom", where `spelled` gives "Alice partner Tom"): a subject people read.
    `spelled` where the tokens are not in order in it or the stretch is long."""
    if not tokens:
        return ""
    first, last = tokens[0], tokens[-1]
    end = last.start + len(_as_written(last, text))
    in_order = all(a.start < b.start for a, b in pairwise(tokens))
    written = text[first.start : end]
    if not in_order or len(written) > 60 or not written.lower().startswith(first.text):
        return spelled(tokens, text)  # the offsets are not this text's, or a long stretch
    return written


# A number and the word after it: a quantity's unit when the key tokens read it so.
_NUMBER_AND_WORD = re.compile(r"[^\s,;]+(?:\s?[^\W\d_]+\.?)?")


def _as_written(token: Token, text: str) -> str:
    if not text or text[token.start : token.start + len(token.text)].lower() != token.text:
        return token.text
    if token.kind == "name" and text[token.start :].lower().startswith(token.lemma):
        return text[token.start : token.start + len(token.lemma)]
    if token.kind == "value":
        # A value of several words as read ("every Tuesday and Thursday", "1 h 15 min").
        whole = [v for v in quantities.read(text) if v.start == token.start]
        if whole and len(fold(text)) == len(text):
            return text[whole[0].start : max(v.end for v in whole)].rstrip(".")
        found = _NUMBER_AND_WORD.match(text, token.start)
        candidate = found.group(0).rstrip(".") if found else ""
        value = token.value.replace(":", "=", 1)
        if any(t.value == value for t in keytokens.key_tokens(candidate)):
            return candidate
    return text[token.start : token.start + len(token.text)]


def same_word_class(a: Token, b: Token) -> bool:
    """Two words of one class of predicate ("loves" / "enjoys", "wohnt" / "lives")."""
    return same_class(class_of(a), class_of(b))


def without_acronyms(only_a: list[Token], only_b: list[Token]):
    """The leftovers of each side less an acronym on one and its expansion on the other
    ("UCL" / "University College London", "PI" / "principal investigator", "TU" /
    "Technischen Universität"): the initials of a run of words; a region's postal code
    and its name ("TX" / "Texas")."""
    for short, long in ((only_a, only_b), (only_b, only_a)):
        for token in list(short):
            if token.kind not in ("word", "name") or not _ACRONYM.fullmatch(token.text):
                continue
            run = expansion(token.text, long) or (token.caps and region_named(token.text, long))
            if run:
                short.remove(token)
                for word in run:
                    long.remove(word)
    return only_a, only_b


def written_together(only_a: list[Token], only_b: list[Token], older: Reading, newer: Reading):
    """The leftovers of each side less a word one side writes closed and the other apart
    ("Timezone: CET." / "... the Central European time zone."): the compound, and the
    other's words of it."""
    for short, long, other in ((only_a, only_b, newer), (only_b, only_a, older)):
        for token in [t for t in short if t.kind == "word"]:
            for first, second in pairwise(other.tokens):
                if min(len(first.text), len(second.text)) >= 3 and (
                    first.text + second.text == token.text
                ):
                    short.remove(token)
                    long[:] = [t for t in long if t not in (first, second)]
                    break
    return only_a, only_b


def expansion(acronym: str, tokens: list[Token]) -> list[Token]:
    """The run of tokens whose initials spell the acronym (hyphenated words give one
    initial a part; "École" gives "e"), or []."""
    acronym = plain(acronym)
    for start in range(len(tokens)):
        initials, run = "", []
        for token in tokens[start:]:
            parts = [p for p in re.split(r"[-_]", token.text) if p]
            initials += "".join(plain(p[0]) for p in parts)
            run.append(token)
            if len(initials) >= len(acronym):
                break
        if initials == acronym:
            return run
    return []


def found_in(token: Token, reading: Reading) -> bool:
    """Whether the reading has this word (any form the alignment accepts), or spells it
    out when it is an acronym ("PO" / "product owner"). Kept on the reading: a pair's
    readers ask of the same words (each question a scan: a fifth of a run's time)."""
    known = reading.words_found
    found = known.get(token)
    if found is None:
        found = known[token] = _found_in(token, reading)
    return found


def _found_in(token: Token, reading: Reading) -> bool:
    content = reading.content
    if token.key in reading.content_keys or any(same_word(token, other) for other in content):
        return True
    if contrast.one_person(token, reading.text) or contrast.written_apart(token.text, reading.text):
        return True  # "Ana Ruiz" / "A. Ruiz"; "per-user" / "per user"
    if token.caps and (
        expansion(token.text, list(content))
        or any(abbreviates(token.text, other.text) for other in content)
    ):
        return True
    # A name in letters, written in Chinese characters or kana on the other side.
    return (
        token.upper
        and reading.language in ("zh", "ja")
        and (
            romanised.spells(token.text, reading.text) or places.named_in(token.text, reading.text)
        )
    )


# --- Kinds of value ---------------------------------------------------------------------


def time_kind(token: Token) -> str:
    kind = token.value.split(":")[0]
    if kind in ("date", "month", "weekday", "season"):
        return "when"
    if kind == "number" and len(token.text) == 4 and token.text[:2] in ("19", "20"):
        return "when"  # a year
    return ""


def scoped_in_time(tokens) -> bool:
    return any(t.value.split(":")[0] in ("date", "month", "weekday") for t in tokens)


def values_only(tokens) -> bool:
    """Only values that are no names: numbers, dates, times, quantities, versions."""
    return all(t.kind == "value" for t in tokens)


def measures(tokens) -> set[str]:
    return {t.value.split(":")[0] for t in tokens if t.kind == "value"} - {"number"}


def owners_aside(older: Reading, newer: Reading, user_names) -> tuple[list, list]:
    """Both subjects' words less the user's names, and less the name that owns one where
    the other's owner is a possessive: "Priya's supervisor" / "Her PI" compare
    "supervisor" with "PI" ("her" may be Priya)."""
    subjects = [[t for t in r.subject_words if t.lemma not in user_names] for r in (older, newer)]
    for side, (reading, other) in enumerate(((older, newer), (newer, older))):
        owner = _named_owner(reading)
        if owner is not None and other.subject[:1] and other.subject[0].kind == "possessive":
            subjects[side] = [t for t in subjects[side] if t is not owner]
    return subjects[0], subjects[1]


def _named_owner(reading: Reading) -> Token | None:
    """The name a subject opens with as its owner ("Priya's supervisor": Priya), or None."""
    opening = reading.tokens[reading.subject_start : reading.subject_end]
    for at, token in enumerate(opening[:-1]):
        if token.kind not in ("function", "marker"):
            return token if token.kind == "name" and opening[at + 1].text in ("'s", "’s") else None
    return None


def role_named(holder: Reading, other: Reading) -> bool:
    """ "Mira's manager is Daniel Osei" / "She reports to Daniel Osei": a role named by a
    copula, of a name the other writes too, is a slot of the role's owner (whom the other
    may say "she" of), not someone else's fact. So is one whose name the other gives
    another name in place of ("User's manager is Priya" / "User now reports to Daniel"):
    the owner's slot may have a new value, which the similarity and the LLM weigh."""
    found = holder.predicate
    names = [t for t in holder.objects if t.kind == "name"]
    return (
        found is not None
        and found.name == "be"
        and any(relation_word(t, holder.language) for t in holder.subject_words)
        and bool(names)
        and (all(found_in(t, other) for t in names) or any(t.kind == "name" for t in other.objects))
    )


def one_name_aside(only_a: list[Token], only_b: list[Token], older: Reading, newer: Reading,
                   said_a, said_b) -> tuple[list, list]:  # fmt: skip
    """The words each of two phrases adds (`only_a`, `only_b`: of `said_a` in `older`,
    `said_b` in `newer`), less what names one thing two ways: a limit (words.limits_aside:
    "Max upload size" / "Upload limit"), a role ("Her PI" / "Her supervisor"), and the
    measure of a value both state ("Max linear velocity ... 1.2 m/s" / "Speed cap ...
    0.8 m/s": "linear" and nothing)."""
    only_a, only_b = limits_aside(only_a, only_b, said_a, said_b)
    only_a, only_b = pair_aside(only_a, only_b, one_role)
    stated = measures(older.tokens) & measures(newer.tokens)

    def one_measure(a: Token, b: Token) -> bool:
        return measure_named(a) in stated and measure_named(a) == measure_named(b)

    return pair_aside(only_a, only_b, one_measure)


# Values a memory shares with many others of its subject, in one spelling or another
# ("nightly" / "daily", "prod" / "production", "Monday" / "Montag"): no sign of one fact.
# Plain numbers count things of every kind; a version or an address is an identifier.
_COMMON_MEASURES = frozenset({"number", "rate", "env", "version", "weekday", "month", "season"})


def value_in_other_words(older: Reading, newer: Reading) -> bool:
    """Whether the two give one value, a quantity with its unit, a date or a time, each in
    its own words ("3 h 45 min" / "225 minutes", "110 cm" / "1.1 m", "March 3" / "3
    March"): what two facts seldom share, and what no word of the two texts has in
    common."""
    written = {
        t.key: fold(t.text)
        for t in older.tokens
        if t.kind == "value" and t.key.split(":")[0] not in _COMMON_MEASURES
    }
    return any(
        t.key in written and written[t.key] != fold(t.text)
        for t in newer.tokens
        if t.kind == "value"
    )


def restated(older: Reading, newer: Reading) -> bool:
    """The newer's change is to what the older says (where no value differs): a value
    both write, both asserted, and every word of the newer but its verb the older's too
    ("Stock of the fixture is now 5 units." / "We have 5 units of the fixture in stock.",
    "The spare cable moved to drawer 3." / "... is kept in drawer 3."). Its change cue
    says nothing of the older, which was already so; not "Grace Liu left; the new VP is
    Omar Said." after "Grace Liu is the VP." nor "Hat die Fotos von Dropbox nach iCloud
    umgezogen." after "Die Fotos liegen in Dropbox.": what the newer adds is the change."""
    if older.sign != newer.sign:
        return False
    if not keytokens.key_tokens(older.body) & keytokens.key_tokens(newer.body):
        return False
    verb = newer.tokens[newer.predicate_at] if newer.predicate_at >= 0 else None
    return all(found_in(t, older) for t in newer.content if t is not verb)
