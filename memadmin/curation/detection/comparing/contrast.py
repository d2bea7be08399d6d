"""What two texts' values are to each other: the key tokens each has and the other lacks
("deployed on Hetzner" / "deployed on Railway", "port 8080" / "port 9090"), names one
or two ("Postgres" / "PostgreSQL", "J4" / "Joint 4", Lisbon / Lissabon), the subjects and
things two parallel sentences name, and a stance or a negation one side reverses.

Values come from curation.detection.reading.clause (key tokens in canonical form, stances,
negated names): a value written another way never looks like a changed fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from memadmin.curation.detection.comparing import acronyms, opposites, things
from memadmin.curation.detection.reading import (
    clause,
    keytokens,
    lexical,
    measured,
    places,
    rounding,
)
from memadmin.curation.detection.reading.keytokens import (
    compounds,
    frame_stems,
    key_tokens,
    name_parts,
    subject,
    words_of,
)
from memadmin.curation.detection.reading.polarity import (
    changed_from,
    content_stems,
    negated_names,
    set_against,
    stance,
    stance_stems,
)
from memadmin.curation.detection.reading.quantities import one_time_of_day, said_roughly
from memadmin.curation.detection.reading.tokens import numeronym, text_words
from memadmin.store.lexicon import HAN, language_of, plain, stop_words
from memadmin.store.text import text_cache

# What a label adds to a name ("Company A", "Joint 4", "Postgres 16"): the
# name without it names another of the kind, not this one in short.
_LABEL_ADDED = re.compile(r" (?:\d{1,3}|[a-z])")


def _longer_form(longer: str, shorter: str) -> bool:
    """ "postgresql" of "postgres": a longer form of one name, not a label added to a word
    ("company a" is not "company", nor "joint 4" "joint")."""
    return longer.startswith(shorter) and not _LABEL_ADDED.fullmatch(longer[len(shorter) :])


def _compatible(kind: str, value: str, others: set[str]) -> bool:
    """A name is kept by the other text when it appears there (an initial with or without
    its stop: "K." / "K.'s"), another name of one city ("Wien" / "Vienna"), a longer or
    shorter form (Postgres / PostgreSQL, but not a label's word alone: "Company" keeps no
    "Company A"), its short form ("Joint 4" / "J4"); a date when a fuller or partial form
    of it does."""
    if kind == "date":
        return any(
            value == o
            or o.endswith(value)
            or value.endswith(o)
            or o.startswith(value)
            or value.startswith(o)
            for o in others
        )
    if value in others or value.rstrip(".") in {o.rstrip(".") for o in others}:
        return True
    if any(places.one_place(value, other) for other in others):
        return True  # "Köln" / "Cologne": one city in two languages
    if any(numeronym(value, other) or numeronym(other, value) for other in others):
        return True  # "k8s" / "Kubernetes"
    letters, number = name_parts(value)
    for other in others:
        if value == other:
            return True
        if min(len(value), len(other)) >= 4 and (
            _longer_form(value, other) or _longer_form(other, value)
        ):
            return True
        other_letters, other_number = name_parts(other)
        if (
            number
            and number == other_number
            and (letters.startswith(other_letters) or other_letters.startswith(letters))
        ):
            return True
    return False


_INITIAL_FIRST = re.compile(r"([a-z])\. (\S+)")  # "a. ruiz"
_INITIAL_LAST = re.compile(r"(\S+) ([a-z])\.")  # "yuki a."


def _initialled(name: str) -> tuple[str, str, bool] | None:
    """A name with an initial as its initial, the word it keeps and whether the initial
    comes first ("a. ruiz": "a", "ruiz", True; "yuki a.": "a", "yuki", False), or None."""
    for pattern, initial_at, kept_at in ((_INITIAL_FIRST, 1, 2), (_INITIAL_LAST, 2, 1)):
        match = pattern.fullmatch(name)
        if match:
            return match[initial_at], match[kept_at], pattern is _INITIAL_FIRST
    return None


def _initialled_kept(value: str, text: str) -> bool:
    """A name with an initial kept by the full name in the other text: "A. Ruiz" by "Ana
    Ruiz" (a name its initial begins, before the family name), "Yuki A." by "Yuki Abe".
    "Yuki A." / "Yuki R." and "A. Ruiz" / "Luis Ruiz" stay two people: each initial
    begins no name of the other; nor is a company's legal form a name ("Eva Ltd")."""
    parts = _initialled(value)
    if parts is None:
        return False
    initial, kept, initial_first = parts
    full = rf"({initial.upper()}[^\W\d_]*[a-zà-ÿ])"  # "Ana", not "A." nor "AB"
    kept = rf"(?i:{re.escape(kept)})"
    found = rf"\b{full}\s+{kept}\b" if initial_first else rf"\b{kept}\s+{full}\b"
    forms = keytokens.legal_forms()
    return any(name.lower() not in forms for name in re.findall(found, text))


def one_person(token, text: str) -> bool:
    """Whether a name written with an initial (a reading's token: "a. ruiz", "yuki a.")
    is the full name of the other text ("Ana Ruiz", "Yuki Abe"). Only that way round: the
    plain names of one text ("ana", "ruiz") are not all in the other ("Ana" / "A.
    Smith"), and "Yuki" and "Yuki M." may be two people."""
    return token.upper and _initialled_kept(token.lemma, text)


def numbered(word: str, name: str) -> bool:
    """Whether one is the other with a number after it, as a version is written: a word
    at the start of a sentence ("Postgres version is 15") and the name with its number
    ("Upgraded to Postgres 16"), either way round."""
    shorter, longer = sorted((word, name), key=len)
    number = longer[len(shorter) + 1 :]
    return longer.startswith(shorter + " ") and number[:1].isdigit() and " " not in number


def written_apart(compound: str, text: str) -> bool:
    """Whether a compound of words joined by hyphens ("per-user", "on-call") is in the
    text with its words apart ("50 GiB per user", "the cardiologist on call")."""
    if "-" not in compound:
        return False
    apart = r"\s+".join(re.escape(part) for part in compound.split("-") if part)
    return re.search(rf"(?<!\w){apart}(?!\w)", text.lower()) is not None


# How alike two spellings of one name in two languages are, at least (difflib's ratio:
# Lisbon / Lissabon 0.86, Lisbonne 0.86; Hetzner / Railway 0.14).
NAME_ACROSS_LANGUAGES = 0.7


def same_date(value: str, others: set[str]) -> bool:
    """Whether a date value is one of `others`, in a fuller or partial form
    ("-04-03" and "2026-04-03")."""
    return _compatible("date", value, others)


def keeps_name(name: str, text: str, *, across: bool) -> bool:
    """Whether `text` has the name (key token value) `name`, in any form a key-token
    comparison accepts (`across`: the name comes from a text in another language, so
    another spelling of it counts)."""
    others = text_words(text) | {t.value for t in key_tokens(text) if t.kind == "name"}
    return (_compatible_across if across else _compatible)("name", name, others)


def same_name(name_a: str, name_b: str, *, across: bool = False) -> bool:
    """Two names (key token values) that name one thing, either way round ("postgres 16"
    / "postgresql 16", "j4" / "joint 4"; across languages a close spelling too)."""
    compatible = _compatible_across if across else _compatible
    return compatible("name", name_a, {name_b}) or compatible("name", name_b, {name_a})


def _compatible_across(kind: str, value: str, others: set[str]) -> bool:
    """_compatible, or a spelling of the name in another language (a close one, its
    accents aside: "München" / "Munich" 0.77)."""
    return _compatible(kind, value, others) or any(
        SequenceMatcher(None, plain(value), plain(other)).ratio() >= NAME_ACROSS_LANGUAGES
        for other in others
        if len(other) >= 4
    )


@dataclass(frozen=True)
class KeyTokenDifference:
    kind: str
    only_in_a: tuple[str, ...]
    only_in_b: tuple[str, ...]

    def describe(self) -> str:
        return f"{self.kind}: {', '.join(self.only_in_a)} vs {', '.join(self.only_in_b)}"


@text_cache
def key_token_differences(text_a: str, text_b: str) -> tuple[KeyTokenDifference, ...]:
    """Kinds of key token for which each text has a value the other lacks ("on Tuesday" /
    "on Thursday", "3.11" / "3.13", "auth-svc" / "billing-svc"; a value on one side only
    is added detail). Cached: a judgement asks it of one pair more than once."""
    tokens_a, tokens_b = key_tokens(text_a), key_tokens(text_b)
    across = language_of(text_a) != language_of(text_b)
    differences = []
    for kind in sorted({token.kind for token in tokens_a | tokens_b}):
        values_a = {token.value for token in tokens_a if token.kind == kind}
        values_b = {token.value for token in tokens_b if token.kind == kind}
        if kind == "quantity":
            roughly = said_roughly(text_a) | said_roughly(text_b)
            differences.extend(_quantity_differences(values_a, values_b, roughly))
            continue
        if kind == "name":
            # A sentence-initial name is not extracted ("NOx readings..."), but the word is
            # there: any word of the other text keeps a name. Across languages a name
            # keeps its spelling of the other language (Lisbon / Lissabon / Lisbonne).
            words_a, words_b = values_a | text_words(text_a), values_b | text_words(text_b)
            keeps = _compatible_across if across else _compatible
            only_a = sorted(v for v in values_a if not keeps(kind, v, words_b))
            only_b = sorted(v for v in values_b if not keeps(kind, v, words_a))
            only_a, only_b = acronyms.names_aside(only_a, only_b, text_a, text_b)
            # "A. Ruiz" / "Ana Ruiz": the name a name with an initial stands for.
            only_a = [v for v in only_a if not _initialled_kept(v, text_b)]
            only_b = [v for v in only_b if not _initialled_kept(v, text_a)]
        elif kind == "date":
            only_a = sorted(v for v in values_a if not _compatible(kind, v, values_b))
            only_b = sorted(v for v in values_b if not _compatible(kind, v, values_a))
        else:
            only_a, only_b = sorted(values_a - values_b), sorted(values_b - values_a)
        if kind == "time" and len(only_a) == len(only_b) == 1:  # "7:30" / "19:30"
            only_a = [] if one_time_of_day(only_a[0], only_b[0], text_a, text_b) else only_a
        if only_a and only_b:
            differences.append(KeyTokenDifference(kind, tuple(only_a), tuple(only_b)))
    differences.extend(_compound_differences(text_a, text_b))
    differences.extend(_title_differences(text_a, text_b))
    return tuple(differences)


def _title_differences(text_a: str, text_b: str) -> list[KeyTokenDifference]:
    """Titles are part of a name, no name of their own ("Dr. Lavoie" is Lavoie), but two
    are two people: "Mr. Weber" / "Mrs. Weber" (`things.titles_of_two_people`). A title on
    one side only is added detail, and "Dr." / "Mrs.", "Mrs." / "Ms." may name one."""
    titles = things.titles_of_two_people(text_a, text_b)
    return [KeyTokenDifference("name", titles[:1], titles[1:])] if titles else []


def _quantity_differences(
    values_a: set[str], values_b: set[str], roughly: frozenset[str]
) -> list[KeyTokenDifference]:
    """A measure taken on both sides with different values is a changed quantity, even
    when the newer text also mentions the old value ("15 N; at 12.5 N it slipped"); of
    the measures said `roughly`, a conversion rounded as written is none."""
    differences = []
    measures_a = {value.split("=")[0] for value in values_a}
    measures_b = {value.split("=")[0] for value in values_b}
    spans = _span_difference(values_a, values_b, measures_a, measures_b)
    if spans:
        differences.append(spans)
    for measure in sorted(measures_a & measures_b):
        of_a = {v.split("=")[1] for v in values_a if v.startswith(f"{measure}=")}
        of_b = {v.split("=")[1] for v in values_b if v.startswith(f"{measure}=")}
        # "5 foot 6" / "168 cm": one value, converted and rounded.
        if not rounding.same_values(measure, of_a, of_b, measure in roughly):
            differences.append(
                KeyTokenDifference(
                    f"quantity ({measure})", tuple(sorted(of_a)), tuple(sorted(of_b))
                )
            )
    return differences


def _span_difference(values_a, values_b, measures_a, measures_b) -> KeyTokenDifference | None:
    """A time span one text gives in calendar units and the other in fixed ones, with no
    value of one within measured.SPAN_TOLERANCE of a value of the other: "kept for 30 days" /
    "kept for 3 months"."""
    one_each = {"duration", "calendar"}
    span_a, span_b = measures_a & one_each, measures_b & one_each
    if not span_a or not span_b or span_a & span_b:
        return None  # no span on a side, or one measure on both (compared as usual)

    def seconds(values) -> dict[str, float]:
        found = {}
        for value in values:
            measure, number = value.split("=")
            if measure in one_each:
                scale = measured.SECONDS_PER_MONTH if measure == "calendar" else 1.0
                found[value] = float(number) * scale
        return found

    spans_a, spans_b = seconds(values_a), seconds(values_b)
    if any(measured.one_length(x, y) for x in spans_a.values() for y in spans_b.values()):
        return None
    return KeyTokenDifference("quantity (duration)", tuple(sorted(spans_a)), tuple(sorted(spans_b)))


def _compound_differences(text_a: str, text_b: str) -> list[KeyTokenDifference]:
    """Identifiers of several parts that share one and differ in another: "auth-svc" /
    "billing-svc", "m5.large" / "m5.xlarge", "debian-12" / "debian-11", "cems-api" /
    "cems-ingest". Each names another thing, however alike the rest of the text."""
    compounds_a, compounds_b = compounds(text_a), compounds(text_b)
    only_a, only_b = compounds_a - compounds_b, compounds_b - compounds_a
    pairs = [
        (a, b)
        for a in only_a
        for b in only_b
        if _one_part_differs(re.split(r"[-_.]", a), re.split(r"[-_.]", b))
    ]
    if not pairs:
        return []
    return [
        KeyTokenDifference(
            "identifier", tuple(sorted({a for a, _ in pairs})), tuple(sorted({b for _, b in pairs}))
        )
    ]


def _one_part_differs(parts_a: list[str], parts_b: list[str]) -> bool:
    """A part that differs, one alike ("T-shirts" / "T-shirt": a plural differs in none)."""
    if len(parts_a) != len(parts_b):
        return False
    same = sum(_singular(a) == _singular(b) for a, b in zip(parts_a, parts_b, strict=True))
    return 0 < same < len(parts_a)


def _singular(part: str) -> str:
    return part[:-1] if len(part) > 3 and part.isalpha() and part.endswith("s") else part


def different_subjects(text_a: str, text_b: str) -> tuple[str, str] | None:
    """The two entities, when both texts name one first and they differ: two facts about
    two things ("pve1 has 64 GB RAM" / "pve2 has 32 GB RAM"), neither a duplicate nor a
    conflict however alike the rest."""
    a, b = subject(text_a), subject(text_b)
    if a is None or b is None or _compatible("name", a, {b}):
        return None
    return a, b


def different_things(text_a: str, text_b: str) -> str | None:
    """Two parallel sentences about two things, where a value also differs (so they
    would read as a conflict): "Jana hat am 12. April Geburtstag" / "Felix hat am 21.
    April Geburtstag" (another first word, the same second one); "Grip force for the
    plastic water bottle is 8 N" / "Grip force for the glass bottle is 20 N" (the same
    start, then other words that neither text has elsewhere, before any value). A
    description, or None. A changed fact keeps its subject and changes its value."""
    subjects = different_subjects(text_a, text_b)
    if subjects:
        return f"{subjects[0]} / {subjects[1]}"
    raw_a, raw_b = words_of(text_a), words_of(text_b)
    first_a, first_b = (raw_a[0].lower, raw_b[0].lower) if raw_a and raw_b else ("", "")
    if (
        len(raw_a) > 1
        and len(raw_b) > 1
        and raw_a[1].lower == raw_b[1].lower
        and raw_a[0].raw[0].isupper()
        and raw_b[0].raw[0].isupper()
        and not {first_a, first_b} & stop_words()
        and not keytokens.is_predicate(first_a, language_of(text_a))
        and not keytokens.is_predicate(first_b, language_of(text_b))
        and first_a not in text_words(text_b)
        and first_b not in text_words(text_a)
    ):
        return f"{first_a} / {first_b}"
    frame_a, frame_b = frame_stems(text_a), frame_stems(text_b)
    return (
        _diverging_objects(frame_a, frame_b)
        or otherwise_qualified(text_a, text_b)
        or things.otherwise_modified(text_a, text_b)
    )


def otherwise_qualified(text_a: str, text_b: str) -> str | None:
    """Two things told apart by what qualifies their noun, when a value differs too:
    "owes 830 euros to the welder from Porto" / "owes 769 euros to the welder from
    Perth" (two welders, a debt each), "... to the plumber from Dakar" / "... to the
    landlord from Dakar" (two people). Where only the qualifier differs, the two fill
    one slot two ways: not two things."""
    things_a, things_b = keytokens.qualified_things(text_a), keytokens.qualified_things(text_b)
    for (noun_a, link), name_a in things_a.items():
        for (noun_b, link_b), name_b in things_b.items():
            if link != link_b:
                continue
            same_name = _compatible("name", name_a, {name_b})
            if (noun_a != noun_b or not same_name) and _other_values_differ(text_a, text_b):
                return f"{noun_a} {link} {name_a} / {noun_b} {link} {name_b}"
    return None


def _other_values_differ(text_a: str, text_b: str) -> bool:
    # A value, not a name: "GitHub Pages" / "Netlify" differ in "pages" too, and that is
    # still the one qualifier.
    rest_a = {token for token in key_tokens(text_a) if token.kind != "name"}
    rest_b = {token for token in key_tokens(text_b) if token.kind != "name"}
    return rest_a != rest_b


def _diverging_objects(
    frame_a: list[tuple[str, bool, str]], frame_b: list[tuple[str, bool, str]]
) -> str | None:
    """The two qualifiers when the texts part after a shared start and join again on a
    shared word before any value: "the plastic water bottle is 8 N" / "the glass bottle
    is 20 N" name two bottles. Texts that part at a value or a name and never join
    again before it ("runs HAOS in a VM" / "runs on a Raspberry Pi") fill one slot two
    ways: that is a conflict, not two things."""
    shared = 0
    while shared < min(len(frame_a), len(frame_b)) and frame_a[shared][0] == frame_b[shared][0]:
        shared += 1
    if not shared or shared >= min(len(frame_a), len(frame_b)):
        return None
    rest_a, rest_b = frame_a[shared:], frame_b[shared:]
    if rest_a[0][1] or rest_b[0][1]:
        return None  # the texts part at a value: one thing, changed
    before_value_a = [stem for stem, *_ in _until_value(rest_a)]
    before_value_b = [stem for stem, *_ in _until_value(rest_b)]
    if rest_a[0][0] in before_value_b or rest_b[0][0] in before_value_a:
        return None  # the same words, reordered
    if not set(before_value_a[1:]) & set(before_value_b[1:]):
        return None
    return f"{rest_a[0][2]} / {rest_b[0][2]}"  # the words, not their stems


def _until_value(frame: list[tuple[str, bool, str]]) -> list[tuple[str, bool, str]]:
    for index, (_, value, _) in enumerate(frame):
        if value:
            return frame[:index]
    return frame


@text_cache
def polarity_difference(text_a: str, text_b: str) -> str | None:
    """Opposite stances ("likes" / "hates", "loves" / "can't stand", "mag" / "mag
    keine", "aime" / "n'aime pas"), opposite states ("enabled" / "disabled"), or a term
    one text negates that the other asserts: a description of the clash, or None."""
    if not _shared_object(text_a, text_b):
        return None  # "likes coffee" / "hates cilantro": stances on two things
    pos_a, neg_a = stance(text_a)
    pos_b, neg_b = stance(text_b)
    if (pos_a and neg_b and not neg_a) or (pos_b and neg_a and not neg_b):
        return f"{', '.join(sorted(pos_a | neg_a))} / {', '.join(sorted(pos_b | neg_b))}"
    opposite = opposites.opposite_states(text_a, text_b)
    if opposite:
        return opposite
    negated = _negation_clash(text_a, text_b)
    if negated:
        return f"{negated}, said by one and denied by the other"
    return None


def _shared_object(text_a: str, text_b: str) -> bool:
    """Whether the texts share a content word besides stance words and their first word:
    a stance is about something ("likes cilantro" / "hates cilantro")."""
    # Who holds the stance (the first word: "Alice likes..." / "Alice hates...") is not
    # what it is about. Not subject(): in a short sentence that is the object ("uses X").
    subjects = {words[0].lower for words in (words_of(text_a), words_of(text_b)) if words}
    left_out = stance_stems() | {s[:5] for s in subjects if s}
    shared = content_stems(text_a) & content_stems(text_b)
    return bool(shared - left_out) or bool(HAN.search(text_a + text_b))


def _negation_clash(text_a: str, text_b: str) -> str | None:
    """A term one text only asserts and the other only negates ("uses Jenkins" / "does
    not use Jenkins; uses GitHub Actions")."""
    (asserted_a, negated_a), (asserted_b, negated_b) = _asserted(text_a), _asserted(text_b)
    clash = sorted(
        ((asserted_a - negated_a) & (negated_b - asserted_b))
        | ((asserted_b - negated_b) & (negated_a - asserted_a))
    )
    return ", ".join(clash) if clash else None


def _asserted(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(names asserted, names negated): none asserted where the clause ends them ("Stopped
    using Jira"), nor what a choice is set against ("TypeScript over JavaScript"), nor
    the value a change replaced."""
    (asserted, negated), reading = negated_names(text), clause.read(text)
    against = {t.text for t in set_against(reading)}
    former = {t.text for t in changed_from(reading)}  # "switched from Vodafone to O2"
    asserted_now = frozenset() if reading.ceased else asserted - against - former
    return asserted_now, negated | (asserted & against)


# --- Differences as the texts write them, and what is left once they are set aside ------


def as_written(difference: KeyTokenDifference, text_a: str, text_b: str) -> str:
    """A key-token difference as the texts write it ("quantity (length): 42 cm / 45 cm",
    not the canonical "0.42 vs 0.45"), for reasons people read."""
    measure = difference.kind.removeprefix("quantity (").removesuffix(")")
    kind = "quantity" if measure != difference.kind else difference.kind

    def written(values, text) -> str:
        tokens, words = keytokens.key_tokens(text), keytokens.words_of(text)
        said = []
        for value in values:
            # A value of another measure read as this one's keeps its own ("two weeks" /
            # "2 years": a duration and a calendar span).
            wanted = f"{measure}={value}" if kind == "quantity" and "=" not in value else value
            found = next((t for t in tokens if t.kind == kind and t.value == wanted), None)
            if found is None or found.position >= len(words):
                said.append(value)
                continue
            base = found.written or words[found.position].raw
            if found.position + 1 < len(words):
                # "3 am": the word after it when only both read as the value.
                longer = f"{base} {words[found.position + 1].raw}"
                if found in keytokens.key_tokens(longer) and found not in keytokens.key_tokens(
                    base
                ):
                    base = longer
            said.append(base)
        return ", ".join(said)

    return (
        f"{difference.kind}: {written(difference.only_in_a, text_a)} / "
        f"{written(difference.only_in_b, text_b)}"
    )


# Values that say when a fact was stated or changed, not what it is about.
WHEN_KINDS = frozenset({"date", "weekday", "month"})


def slot_overlap(text_a: str, text_b: str, differences, tfidf: lexical.TfIdf) -> float:
    """The containment of two texts with the values that differ set aside, and the values
    of a kind only one text has ("updated on 2025-11-18": when, not what): their words
    as written, but of a quantity only its number (the unit is the slot: "minutes of
    runtime")."""
    kinds = {d.kind for d in differences}
    tokens_a, tokens_b = keytokens.key_tokens(text_a), keytokens.key_tokens(text_b)
    one_sided = ({t.kind for t in tokens_a} ^ {t.kind for t in tokens_b}) & WHEN_KINDS
    written = []
    for token in tokens_a | tokens_b:
        if token.kind == "quantity":
            if f"quantity ({token.value.split('=')[0]})" in kinds:
                written.append(re.sub(r"[^\d.,]+", " ", token.written))
        elif token.kind in one_sided or (token.kind in kinds and token.kind != "name"):
            written.append(token.written or token.value)
    values = [v for d in differences for v in (*d.only_in_a, *d.only_in_b)]
    ignore = frozenset(lexical.terms(" ".join(written + values)))
    return tfidf.containment(text_a, text_b, ignore=ignore)


def added_values(older: str, newer: str) -> list[KeyTokenDifference]:
    """The values the newer text brings of a kind the older also has (a new value beside
    the old one: "now listens on 9100 (8080 clashed)"), as differences from the older
    values the newer does not repeat."""
    old_tokens = keytokens.key_tokens(older)
    new_tokens = keytokens.key_tokens(newer)
    old_kinds = {token.kind for token in old_tokens}
    across = clause.read(older).language != clause.read(newer).language
    added = {
        token
        for token in new_tokens - old_tokens
        if token.kind in old_kinds
        and not (token.kind == "name" and keeps_name(token.value, older, across=across))
    }
    return [
        KeyTokenDifference(
            kind,
            tuple(sorted(t.value for t in old_tokens - new_tokens if t.kind == kind)),
            tuple(sorted(t.value for t in added if t.kind == kind)),
        )
        for kind in sorted({t.kind for t in added})
    ]
