"""Whether two sentences that say a value speak of two things told apart in a noun phrase:
"Use 20 N of grip force on the large sensor" / "... 15 N ... on the blue sensor" name two
sensors, a force each, not one sensor whose force changed; so do "The steel gripper pad
weighs 400 g" / "The weight of the new gripper pad is 400 g", built otherwise. And the
subjects that are one: a label of an attribute ("Diet: vegan"), one e-mail address said
of two nouns ("Contact: ana@acme.io" / "Her email is ana@acme.io")."""

from __future__ import annotations

import re
from functools import cache
from itertools import pairwise

from memadmin.curation.detection.comparing import alignment
from memadmin.curation.detection.reading import clause, keytokens
from memadmin.curation.detection.reading.clause import Reading
from memadmin.curation.detection.reading.keytokens import KeyToken, key_tokens, words_of
from memadmin.curation.detection.reading.words import (
    Token,
    one_measure_words,
    one_role_words,
    relation_word,
    same_limit_words,
)
from memadmin.store.lexicon import LEMMATISED, stop_words, words
from memadmin.store.text import text_cache


def otherwise_modified(text_a: str, text_b: str) -> str | None:
    """Two things told apart inside one noun phrase, when the sentences say a value of
    them: a description, or None. Where no value is said ("prefers the dark theme" /
    "... the light theme") the phrase is what fills the slot, two ways: not two things."""
    (words_a, values_a), (words_b, values_b) = _placeholders(text_a), _placeholders(text_b)
    verbs = _verb_of(text_a) | _verb_of(text_b)
    return _parallel_things(words_a, values_a, words_b, values_b) or _one_noun_two_modifiers(
        words_a, values_a, words_b, values_b, verbs
    )


def _verb_of(text: str) -> frozenset[str]:
    """The word the clause reader reads as the text's predicate: no noun of a phrase
    ("The hike took six hours." / "Hiking the ridge took 6 h.": "took" names nothing)."""
    reading = clause.read(text)
    if reading.predicate_at < 0:
        return frozenset()
    return frozenset({reading.tokens[reading.predicate_at].text})


def _parallel_things(words_a, values_a, words_b, values_b) -> str | None:
    """The sentences word for word alike (values and names aside) but for one noun
    phrase: "Use 20 N of grip force on the large sensor" / "... 15 N ... on the blue
    sensor" (a modifier: two sensors, a force each), "... on the ceramic bracket" / "...
    on the ceramic battery pack" (another noun), "The spare mug weighs 250 g" / "The 12V
    motor weighs 1.2 kg". The words that differ are in neither text elsewhere. One
    modifier before a noun both share tells two things apart whatever the values; a
    longer part only where a value outside it differs, or where the phrase opens the
    sentence (its subject): "The 12V battery pack is for the demo rig" / "... for the lab
    arm" fills one slot two ways."""
    start = _shared_run(words_a, words_b)
    end = min(_shared_run(words_a[::-1], words_b[::-1]), len(words_a) - start, len(words_b) - start)
    part_a, part_b = words_a[start : len(words_a) - end], words_b[start : len(words_b) - end]
    opener = _determiner_before(words_a, start)
    if opener is None or not _parts_of_two_things(part_a, part_b, words_a, words_b):
        return None
    outside_a = _values_outside(values_a, start, len(words_a) - end)
    outside_b = _values_outside(values_b, start, len(words_b) - end)
    if not outside_a and not outside_b:
        return None
    one_modifier = len(part_a) == len(part_b) == 1 and end > 0 and opener == start - 1
    if not (one_modifier or opener == 0 or outside_a != outside_b):
        return None
    return f"{_written(part_a, values_a, start)} / {_written(part_b, values_b, start)}"


def _one_noun_two_modifiers(words_a, values_a, words_b, values_b, verbs) -> str | None:
    """One noun after a determiner, a modifier of its own in each text (a word the other
    text does not have, or a value), and a value said outside it in both, however the
    sentences are built: "The steel gripper pad weighs 400 g" / "The weight of the new
    gripper pad is 400 g", "Stock of the steel tray: 5 units" / "We have 5 units of the
    small tray in stock": two pads, two trays."""
    modified_b = _modified_nouns(words_b)
    for noun, (modifier_a, at_a) in _modified_nouns(words_a).items():
        modifier_b, at_b = modified_b.get(noun, ("", 0))
        if (
            modifier_b
            and noun not in verbs
            and _parts_of_two_things((modifier_a,), (modifier_b,), words_a, words_b)
            and _values_outside(values_a, at_a, at_a + 1)
            and _values_outside(values_b, at_b, at_b + 1)
        ):
            written_a = _written((modifier_a,), values_a, at_a)
            written_b = _written((modifier_b,), values_b, at_b)
            if written_a.lower() != written_b.lower():  # "a UK work visa" / "her UK work visa"
                return f"{written_a} {noun} / {written_b} {noun}"
    return None


def _modified_nouns(words: tuple[str, ...]) -> dict[str, tuple[str, int]]:
    """noun -> (its modifier, where the modifier stands), for each determiner, modifier,
    noun: "the steel gripper pad" -> {"gripper": ("steel", 1)}."""
    found = {}
    for at in range(2, len(words)):
        determiner, modifier, noun = words[at - 2 : at + 1]
        if (
            determiner in keytokens.DETERMINERS
            and noun.isalpha()
            and noun not in stop_words()
            and modifier not in stop_words()
        ):
            found.setdefault(noun, (modifier, at - 1))
    return found


# A value or a name among a text's words, as `_placeholders` writes it.
_VALUE = "\0"


@text_cache
def _placeholders(text: str) -> tuple[tuple[str, ...], tuple[tuple[int, KeyToken], ...]]:
    """The words of a text, lower case, each value and name one placeholder; and the
    values with the index of their placeholder."""
    tokens = {token.position: token for token in key_tokens(text)}
    words, values, at, raw = [], [], 0, words_of(text)
    while at < len(raw):
        token = tokens.get(at)
        if token is None and raw[at].lower in _titles() and tokens.get(at + 1) is not None:
            at += 1  # "Mr. Patel" / "Mrs. Chen": a name's title is no modifier of a thing
        elif token is None:
            words.append(raw[at].lower)
            at += 1
        else:
            values.append((len(words), token))
            words.append(_VALUE)
            # "1.2 kg" is one value in two words; "Yuki A." one name in two.
            at += max(token.words, len(token.written.split()))
    return tuple(words), tuple(values)


@cache
def _titles() -> frozenset[str]:
    """Titles written before a name ("mr", "dr", "mme")."""
    return frozenset(words("honorifics"))


def _shared_run(words_a, words_b) -> int:
    """How many words the two sequences share from their start."""
    shared = 0
    while shared < min(len(words_a), len(words_b)) and words_a[shared] == words_b[shared]:
        shared += 1
    return shared


def _determiner_before(words: tuple[str, ...], at: int) -> int | None:
    """Where the determiner opening the noun phrase that `at` is in stands: at most two
    words before it, with no stop word between ("on the ceramic | bracket", "on the 12V
    | motor")."""
    for back in (1, 2):
        index = at - back
        if index < 0:
            return None
        if words[index] in keytokens.DETERMINERS:
            return index
        if words[index] in stop_words():
            return None
    return None


def _parts_of_two_things(part_a, part_b, words_a, words_b) -> bool:
    """Whether two differing parts name two things: a few words each, a word among them,
    none a stop word, none in the other text, none a short form of the other's ("prod" /
    "production"), not one limit, measure or role in two words ("top speed" / "max speed",
    "weight" / "mass", "her mother" / "her mom")."""
    plain_a = [word for word in part_a if word != _VALUE]
    plain_b = [word for word in part_b if word != _VALUE]
    return (
        0 < len(part_a) <= 3
        and 0 < len(part_b) <= 3
        and bool(plain_a or plain_b)
        and not set(plain_a + plain_b) & stop_words()
        and not set(plain_a) & set(words_b)
        and not set(plain_b) & set(words_a)
        and not any(x.startswith(y) or y.startswith(x) for x in plain_a for y in plain_b)
        and not (
            len(plain_a) == len(plain_b) == 1
            and any(one(*plain_a, *plain_b) for one in _ONE_THING_IN_TWO_WORDS)
        )
    )


_ONE_THING_IN_TWO_WORDS = (same_limit_words, one_measure_words, one_role_words)


def _values_outside(values, start: int, stop: int) -> list[KeyToken]:
    """The values (not names) a text says outside its words from `start` to `stop`."""
    return [token for at, token in values if not start <= at < stop and token.kind != "name"]


def _written(part: tuple[str, ...], values, start: int) -> str:
    """A part as its text writes it: each placeholder given its value back."""
    written = {at: token.written or token.value for at, token in values}
    return " ".join(written.get(start + k, word) for k, word in enumerate(part))


def legal_forms_differ(word_a: str, word_b: str) -> bool | None:
    """Whether the one word each text alone has names two legal forms of a company: True
    for two ("Tom Inc." / "Tom Ltd.": two companies of one name, told apart as "Sara Ltd."
    / "Zoe Ltd." are), False for one written two ways ("Inc." / "Incorporated"), None
    when either is no form."""
    forms = keytokens.legal_forms()
    form_a, form_b = forms.get(word_a), forms.get(word_b)
    return None if form_a is None or form_b is None else form_a != form_b


def one_form_two_ways(word_a: str, word_b: str, text_a: str, text_b: str) -> bool:
    """Whether the one word each text alone has is one legal form written two ways, each
    capitalised as a form is ("Tom Inc." / "Tom Incorporated"; not "a limited plan")."""
    return (
        legal_forms_differ(word_a, word_b) is False
        and bool(_capitalised(word_a, text_a))
        and bool(_capitalised(word_b, text_b))
    )


def two_of_one_name(text_a: str, text_b: str) -> str | None:
    """Two companies or two people the texts give one name, told apart by what stands
    around it: a legal form ("Tom Inc." / "Tom Ltd.") or a title ("Mr." / "Mrs."). Titles
    before two names tell nothing the names do not ("Their landlord is Mr. Patel." /
    "... is Mrs. Chen.": one landlord, two values)."""
    names_a, names_b = (
        {t.value for t in key_tokens(text) if t.kind == "name"} for text in (text_a, text_b)
    )
    titles = titles_of_two_people(text_a, text_b) if names_a & names_b else None
    return companies_of_one_name(text_a, text_b) or (" / ".join(titles) if titles else None)


def companies_of_one_name(text_a: str, text_b: str) -> str | None:
    """ "Marco is our champion at Tom Inc." / "... at Tom Ltd.": where the one word each
    text alone has is a legal form, two different ones, the texts speak of two companies
    of one name (told apart as "Sara Ltd." / "Zoe Ltd." are): a description, or None."""
    only_a, only_b = alignment.unshared(text_a, text_b)
    if len(only_a) == 1 and len(only_b) == 1 and legal_forms_differ(*only_a, *only_b):
        form_a, form_b = _capitalised(*only_a, text_a), _capitalised(*only_b, text_b)
        if form_a and form_b:  # not "a limited plan" / "an incorporated body"
            return f"two companies ({form_a} / {form_b})"
    return _one_name_two_forms(text_a, text_b)


def titles_of_two_people(text_a: str, text_b: str) -> tuple[str, str] | None:
    """ "Mr. Chen teaches math" / "Mrs. Chen teaches math": two titles (the lexicon's
    `[honorifics]`) name two people, whatever name follows, unless one may be borne beside
    the other ("Dr." / "Mrs."). A title is no name of its own: the readers see "Chen"."""
    titles_a, titles_b = keytokens.titles_in(text_a), keytokens.titles_in(text_b)
    either = words("honorifics", "any_person")
    only_a, only_b = sorted(titles_a - titles_b - either), sorted(titles_b - titles_a - either)
    return (only_a[0], only_b[0]) if only_a and only_b else None


def _one_name_two_forms(text_a: str, text_b: str) -> str | None:
    """ "Our contact at Acme GmbH is Jana" / "Our contact at Acme AG is Petra": one name
    with two legal forms after it, whatever else differs, is two companies (what is said
    of each is no change of the other's)."""
    forms_a, forms_b = _named_forms(text_a), _named_forms(text_b)
    for name, form_a in forms_a.items():
        form_b = forms_b.get(name)
        if form_b is not None and legal_forms_differ(form_a.lower, form_b.lower):
            return f"two companies ({form_a.raw} / {form_b.raw})"
    return None


def _named_forms(text: str) -> dict[str, tuple]:
    """A capitalised legal form by the capitalised name right before it ("Acme GmbH")."""
    found = words_of(text)
    forms = keytokens.legal_forms()
    return {
        before.lower: word
        for before, word in pairwise(found)
        if word.lower in forms and word.raw[:1].isupper() and before.raw[:1].isupper()
    }


def _capitalised(word: str, text: str) -> str:
    """`word` as `text` writes it where it is capitalised, as a form is, or ""."""
    return next((w.raw for w in words_of(text) if w.lower == word and w.raw[:1].isupper()), "")


def other_modifier_of_one_noun(reading_a, reading_b) -> bool:
    """Whether both name one noun after an article or preposition, each with a modifier
    of its own ("on the blue motor" / "on the 12V motor", "the old tray" / "the steel
    tray"): in a namespace of many things, two of them, whatever else both say alike."""
    in_a, in_b = _modified(reading_a.tokens), _modified(reading_b.tokens)
    return any(noun in in_b and in_b[noun].lemma != t.lemma for noun, t in in_a.items())


def subjects_modified_apart(reading_a, reading_b) -> str | None:
    """Two subjects of one noun, each with a modifier of its own after its article ("The
    new gripper pad" / "The steel gripper pad", "The staging cluster" / "The prod
    cluster"): two things, whatever each says. "New" counts as a modifier here, against
    another: alone it is the same thing's new value ("The new pad weighs 120 g")."""
    in_a = _modified(reading_a.tokens[: max(reading_a.subject_end, 0)])
    in_b = _modified(reading_b.tokens[: max(reading_b.subject_end, 0)])
    for noun, modifier in in_a.items():
        other = in_b.get(noun)
        if other is not None and _two_modifiers(modifier.text, other.text):
            return f"{modifier.text} / {other.text}"  # as the subjects' comparison says
    return None


def _two_modifiers(word_a: str, word_b: str) -> bool:
    """Two modifiers, not one in two words: a limit ("top" / "max"), a measure, a short
    form ("prod" / "production"), a name of it ("cems-ingest" / "ingest"), a synonym, or
    two times of one thing ("the current manager" / "the new manager")."""
    when = words("markers", "new") | words("markers", "current")
    return not (
        {word_a, word_b} <= when
        or word_a.startswith(word_b)
        or word_b.startswith(word_a)
        or word_a.endswith(f"-{word_b}")  # "cems-ingest" is the ingest service
        or word_b.endswith(f"-{word_a}")
        or same_limit_words(word_a, word_b)
        or one_measure_words(word_a, word_b)
        or alignment.synonyms(word_a, word_b)
    )


def _modified(tokens) -> dict:
    """Each noun (its lemma) after an article or preposition and one modifier: the
    modifier's token."""
    new = words("markers", "new")

    def modifier(token) -> bool:
        return token.kind in ("word", "value") or token.text in new

    return {
        tokens[i].lemma: tokens[i - 1]
        for i in range(2, len(tokens))
        if tokens[i].kind == "word"
        and modifier(tokens[i - 1])
        and tokens[i - 2].kind == "function"
        and tokens[i - 2].text not in new
    }


def labels_an_attribute(reading: Reading, subject: list[Token]) -> bool:
    """Whether a subject before a label's colon is a word of the language, not a name nor
    a relation ("Diet: vegan"; not "Ada: vegan", "Mum: vegan")."""
    if reading.predicate_at < 0 or reading.tokens[reading.predicate_at].text not in ":：":
        return False
    if reading.language not in LEMMATISED:
        return False  # simplemma's dictionaries that the clause reader loads
    import simplemma  # the lemmatiser the clause reader uses (reading.words.lemma)

    return all(
        t.kind == "word"
        and not relation_word(t, reading.language)
        and simplemma.is_known(t.text, lang=reading.language)
        for t in subject
    )


# An identifier written as one word: "acme/web-app", "@mira", "api.acme.io", "svc_auth".
_IDENTIFIER = re.compile(r"\w[/@_.]\w|^@\w")


def may_be_one(older: Reading, newer: Reading, differing: list[Token]) -> bool:
    """Whether two subjects the words tell apart may still be one: one address said of
    two nouns (one_address), or a person named on one side and said by a pronoun on the
    other, whose subject is a thing ("Mira is lactose intolerant." / "Dairy gives her
    stomach trouble, so she avoids milk.": two subjects at 0.89, "mira / dairy")."""
    return (
        one_address(older, newer, differing)
        or _said_by_pronoun(older, newer)
        or _said_by_pronoun(newer, older)
    )


# The pronouns of a third person, as subject, object or possessive. Not the lexicon's
# pronoun lists, which hold "we", "our", "it" ("Eva is our champion": no one else), nor
# other languages' ("il" is Italian's article, "sie" German's "they" and "you").
_THIRD_PERSON = frozenset({"she", "her", "hers", "he", "him", "his"})


def _said_by_pronoun(person: Reading, thing: Reading) -> bool:
    """`person`'s subject is a name or a relation (or a capitalised word no dictionary
    knows: "Mira" opening a sentence), `thing`'s a word of the language that names no
    one, and `thing` speaks of someone by a pronoun after it."""
    if not person.subject_words or not thing.subject_words:
        return False
    if thing.language not in LEMMATISED or person.language not in LEMMATISED:
        return False  # simplemma's dictionaries that the clause reader loads
    import simplemma  # the lemmatiser the clause reader uses (reading.words.lemma)

    def known(t: Token, language: str) -> bool:
        return simplemma.is_known(t.text, lang=language)

    named = all(
        t.kind == "name" or relation_word(t, person.language) or not known(t, person.language)
        for t in person.subject_words
    )
    a_thing = all(
        t.kind == "word" and known(t, thing.language) and not relation_word(t, thing.language)
        for t in thing.subject_words
    )
    after = thing.tokens[thing.subject_end : thing.clause_end]
    return named and a_thing and any(t.text in _THIRD_PERSON for t in after)


def one_address(older: Reading, newer: Reading, differing: list[Token]) -> bool:
    """ "Contact: ana@acme.io." / "Her email address is ana@acme.io.", "Phone: +49 170
    1234567" / "Mobile number is +49 170 1234567", "Their main repo is acme/web-app." /
    "Primary repository: acme/web-app.", "Zoom handle is @dana.k" / "Her Zoom username is
    dana.k.": one address, number or identifier said of two common nouns names one slot
    two ways, not two things."""
    addresses = [
        {
            t.value or t.text
            for t in r.objects
            if t.value.startswith(("email:", "phone:"))
            or (t.kind in ("word", "name") and _IDENTIFIER.search(t.text))
        }
        for r in (older, newer)
    ]
    # A name with a stop is as often a host many things run on ("Fly.io"): only one that
    # either side writes as a handle ("@dana.k") is an address.
    written = older.text + " " + newer.text
    shared = [
        a
        for a in addresses[0] & addresses[1]
        if not a.startswith("name:") or f"@{a.removeprefix('name:')}" in written
    ]
    return bool(shared) and all(t.kind == "word" for t in differing)


def owner_only(added: list[Token], reading: Reading, other: Reading) -> bool:
    """The words one subject adds only say whose it is ("The kid's school" / "School"),
    where the other names no owner of its own ("her school"). Not an owner said as
    someone's ("Her husband's shoe size" / "Shoe size": hers, set against his)."""
    at = [reading.tokens.index(t) for t in added]
    after = [reading.tokens[i + 1 :][:1] for i in at]
    if not all(following and following[0].text in ("'s", "’s") for following in after):
        return False
    if any(i and reading.tokens[i - 1].kind in ("possessive", "user") for i in at):
        return False
    subject = other.tokens[other.subject_start : other.subject_end]
    return not any(t.kind in ("possessive", "user", "pronoun") for t in subject)
