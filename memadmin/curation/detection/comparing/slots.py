"""Whether the slot two memories give different values holds one value at a time ("lives
in", "the cache is", a number, a role after "as") or several ("likes", "speaks"): what
tells a changed value (a conflict) from another value beside it (two facts); and what the
differing words are (two values of one kind or two attributes, a manner, a time said
alone). Read by frames from the clause readings."""

from __future__ import annotations

from dataclasses import replace

from memadmin.curation.detection.comparing import alignment
from memadmin.curation.detection.comparing.matching import (
    found_in,
    measures,
    same_word,
    time_kind,
    values_only,
)
from memadmin.curation.detection.comparing.predicates import same_predicate
from memadmin.curation.detection.reading.clause import Reading
from memadmin.curation.detection.reading.polarity import excepts
from memadmin.curation.detection.reading.roles import owned_relation, two_relations
from memadmin.curation.detection.reading.words import (
    Token,
    class_of_word,
    classes,
    slot_nouns,
)
from memadmin.store.lexicon import HAN, words


def slot_of(older: Reading, newer: Reading, only_a, only_b) -> str:
    """Whether the slot where the texts differ holds one value or several."""
    if _each_for_its_time(only_a, only_b):
        return "many"  # "21 degrees in winter" / "24 degrees in summer"
    if measures(only_a) & measures(only_b) and not _things_differ_too(only_a, only_b):
        return "one"  # a measured value: the same measure of one thing has one value
    if values_only(only_a) and values_only(only_b):
        # Numbers, dates, times of a thing both name ("meetings on Tuesday" / "meetings
        # on Thursday", "port 8080" / "port 9100"): one value at a time.
        return "one"
    if len(only_a) == len(only_b) == 1 and owned_relation(older, only_a[0]) == (
        owned_relation(newer, only_b[0]) or None
    ):
        return "many"  # "Ana is Ben's sister" / "Ana is Carl's sister": a sister of both
    if two_relations(older, newer, only_a, only_b):
        return "many"  # "Jonas is his brother" / "Jonas is his landlord": both
    for reading, only, other, its in (
        (older, only_a, newer, only_b),
        (newer, only_b, older, only_a),
    ):
        if _after_role_marker(reading, only[0]) and _in_its_slot(other, its):
            return "one"
    if all(_for_a_use(r, t) for r, only in ((older, only_a), (newer, only_b)) for t in only):
        # "The spare camera is for field tests." / "... is for the demo rig.": one thing
        # serves several uses.
        return "many"
    if exclusive(older, newer):
        return "one"  # "I only work day shifts now", "uses Postgres as the only datastore"
    if any(_before_shared_purpose(older, newer, t) for t in only_a):
        return "one"
    if _names_one_slot(older) or _names_one_slot(newer) or _shared_role(older, newer):
        return "one"  # "has Irish citizenship", "als Datenbank nutzen wir X"
    if any(r.predicate is not None and r.predicate.sets for r in (older, newer)):
        return "one"  # "moved to", "switched to": gives one slot a new value
    for reading, other, its in ((older, newer, only_b), (newer, older, only_a)):
        found = reading.predicate
        if found is not None and found.slot and _first_after_predicate(reading, only_a + only_b):
            return found.slot if _in_its_slot(other, its) else "many"
    return "one" if _one_choice_of_one_thing(older, newer, only_a, only_b) else "many"


def _one_choice_of_one_thing(older: Reading, newer: Reading, only_a, only_b) -> bool:
    """ "Prefers replies in Spanish" / "Now prefers replies in English": a predicate of
    one value (a choice) of one thing both name first, which each qualifies by a name or
    a value of its own: that thing's one choice, two ways."""
    if len(only_a) != 1 or len(only_b) != 1 or any(t.kind == "word" for t in (*only_a, *only_b)):
        return False
    if any(r.predicate is None or r.predicate.slot != "one" for r in (older, newer)):
        return False
    if any(r.predicate.name == "be" for r in (older, newer)):
        return False  # a copula names no choice: "is a fan of Muse" / "is a fan of Queen"
    first_a, first_b = older.objects[:1], newer.objects[:1]
    return (
        bool(first_a and first_b)
        and first_a[0].kind == "word"
        and same_word(first_a[0], first_b[0])
    )


def _each_for_its_time(only_a, only_b) -> bool:
    """Whether each side gives a value (a number, a time, a quantity) for another
    recurring time (a season, a day of the week): "Keeps the thermostat at 21 degrees in
    winter." / "... at 24 degrees in summer." are two settings, each for its time, not
    one changed."""
    times_a = {t.value for t in only_a if _recurring(t)}
    times_b = {t.value for t in only_b if _recurring(t)}
    return bool(times_a and times_b and times_a != times_b) and all(
        any(t.kind == "value" and not _recurring(t) for t in only) for only in (only_a, only_b)
    )


def _recurring(token: Token) -> bool:
    kind, _, value = token.value.partition(":")
    return kind in ("season", "weekday") or (kind == "rate" and "@" in value)


def _things_differ_too(only_a, only_b) -> bool:
    """Whether each side names something else beside its measured value: "the Boston
    marathon in April" / "the Chicago marathon in October", "the 8:15 train to work" /
    "the 17:40 train home" measure two things, each its own time."""
    return all(any(t.kind != "value" for t in only) for only in (only_a, only_b))


def reworded(older: Reading, newer: Reading, only_a, only_b) -> bool:
    """Whether only words differ (no name, no value), and not one word exchanged for
    another with every other word of the two clauses the same and in place ("Plays tennis
    on Tuesdays" / "Plays chess on Tuesdays": another value, not a rewording; the words
    are no synonyms, frames set those aside before)."""
    if not all(t.kind == "word" for t in only_a + only_b):
        return False
    # Nor one phrase for another, in place ("into the pension plan" / "into a savings
    # account"): the articles aside, the words that differ stand together on each side.
    clause_a = [t for t in older.tokens[: older.clause_end] if t.text not in _ARTICLES]
    clause_b = [t for t in newer.tokens[: newer.clause_end] if t.text not in _ARTICLES]
    if len(only_a) != len(only_b) or len(clause_a) != len(clause_b):
        return True
    at = [i for i, (x, y) in enumerate(zip(clause_a, clause_b, strict=True)) if x.text != y.text]
    in_place = at == list(range(at[0], at[0] + len(only_a))) if at else False
    return not (
        in_place
        and [clause_a[i] for i in at] == list(only_a)
        and [clause_b[i] for i in at] == list(only_b)
    )


_ARTICLES = frozenset({"the", "a", "an"})


def _names_one_slot(reading: Reading) -> bool:
    """Whether the predicate's first object phrase has a noun of a class that holds one
    value ("citizenship", "job", "address")."""
    nouns = slot_nouns()
    start = reading.predicate_at + 1 if reading.predicate_at >= 0 else 0
    phrase = _phrase(reading.tokens[start : reading.clause_end])
    return any(
        (found := nouns.get(t.lemma)) is not None and found.slot == "one" and not _verb_form(t)
        for t in phrase
    )


def _verb_form(token: Token) -> bool:
    """A class's verb as written, not its noun: "a dog named Max" names no slot of names."""
    return class_of_word(token.text) is not None and token.text not in slot_nouns()


def _in_its_slot(reading: Reading, only: list[Token]) -> bool:
    """Whether what one side adds stands where its predicate's value does: in a phrase
    after one of its class's prepositions ("works at the hospital"), or anywhere where
    the class takes none. Not "night shifts" in "Works night shifts at the hospital",
    beside "as a hospital nurse": a schedule beside a role, two attributes."""
    if reading.predicate is None or not reading.predicate.preps:
        return True
    return _after_role_marker(reading, only[0]) or _first_after_predicate(reading, only)


def _shared_role(older: Reading, newer: Reading) -> bool:
    """Both give the thing its role ("uses X as the cache", "als Datenbank nutzen wir X"):
    the value in that role is one."""
    role = words("markers", "role")
    for reading, other in ((older, newer), (newer, older)):
        tokens = reading.tokens[: reading.clause_end]
        for index, token in enumerate(tokens):
            if token.kind == "marker" and token.text in role:
                # The phrase's last word names the role ("as a hospital nurse": a nurse).
                phrase = _phrase(tokens[index + 1 :])
                if phrase and found_in(phrase[-1], other):
                    return True
    return False


def exclusive(*readings: Reading) -> bool:
    """Whether one of the readings makes its value exclusive: by a word ("only", "nur",
    "seulement", "只"), or by a negation that excepts it ("never answers in any language
    but English")."""
    only = words("markers", "exclusive")
    for reading in readings:
        main = reading.tokens[: reading.clause_end]
        if any(t.text in only for t in main) or (
            any(t.kind == "negator" for t in main) and excepts(" ".join(t.text for t in main))
        ):
            return True
    return False


def sole_holder(older: Reading, newer: Reading) -> bool:
    """Whether one side says its subject alone does what both say of two subjects ("Only
    Priya has admin rights on the cluster." / "Marco has admin rights on the cluster.",
    "Nobody but Priya ..."): who does it is one slot, with two values."""
    for reading, other in ((older, newer), (newer, older)):
        if not reading.objects or not exclusive(_before_predicate(reading)):
            continue
        if same_predicate(reading, other) and all(found_in(t, other) for t in reading.objects):
            return all(found_in(t, reading) for t in other.objects)
    return False


def _before_predicate(reading: Reading) -> Reading:
    """The reading with its main clause cut at the predicate (what exclusive reads)."""
    return replace(reading, clause_end=max(reading.subject_end, 0))


def shared_values(objects, leftover) -> bool:
    """Whether `objects` hold a name or a value not among `leftover` (kept on both sides)."""
    return any(t.kind != "word" for t in objects if t not in leftover)


def _first_after_predicate(reading: Reading, residue: list[Token]) -> bool:
    """Whether the predicate's own slot is where the texts differ: its first object
    ("lives in north London" / "in south London"), or for a class that takes a
    preposition the first word after it ("deploy the side project to Fly.io" / "to
    Render"); not a word further on ("is allergic to X")."""
    objects = reading.objects
    if not objects:
        return False
    tokens = reading.tokens[reading.predicate_at + 1 : reading.clause_end]
    if reading.language == "zh" and not any(t.content for t in tokens):
        # Chinese says where, to whom and with what before its verb ("她在上海工作": works
        # in Shanghai): with nothing after the verb, its slot is the phrase before it.
        tokens = reading.tokens[reading.subject_end : reading.predicate_at]
    preps = reading.predicate.preps if reading.predicate is not None else frozenset()
    if not preps:
        return any(t in residue for t in _phrase(tokens))
    # Every phrase after one of the class's words ("deployed CEMS to Coolify on Hetzner").
    starts = [i + 1 for i, t in enumerate(tokens) if t.text in preps] or [0]
    return any(t in residue for start in starts for t in _phrase(tokens[start:]))


def _phrase(tokens) -> list[Token]:
    """The first run of content words (articles inside it): "a Toyota Corolla", "north
    London", "the side project"."""
    phrase: list[Token] = []
    for token in tokens:
        if token.content:
            phrase.append(token)
        elif phrase and token.text not in ("a", "an", "the"):
            break
    return phrase


def _after_role_marker(reading: Reading, token: Token) -> bool:
    """ "works at Acme as a data analyst": the words of the phrase after "as" fill the
    role."""
    return _after_marker(reading, token, "role")


def _for_a_use(reading: Reading, token: Token) -> bool:
    """The token says what something is for ("is for field tests"), not the object of a
    verb that takes "for" ("works for Airbus": an employer)."""
    takes = reading.predicate.preps if reading.predicate is not None else frozenset()
    return _after_marker(reading, token, "purpose") and not takes & words("markers", "purpose")


def _after_marker(reading: Reading, token: Token, key: str) -> bool:
    """Whether the token stands in the phrase after one of the [markers] `key` words."""
    marking = words("markers", key)
    index = reading.tokens.index(token)
    for before in reversed(reading.tokens[:index]):
        if before.kind == "marker":
            return before.text in marking
        if not (before.content or before.kind == "function"):
            return False
    return False


def _before_shared_purpose(older: Reading, newer: Reading, token: Token) -> bool:
    """ "uses Docker for local development" / "uses Podman for ...": the word before a
    purpose both texts give fills one slot."""
    purpose = words("markers", "purpose")
    tokens_a = older.tokens
    index = tokens_a.index(token)
    following = [t for t in tokens_a[index + 1 : older.clause_end] if t.kind != "function"]
    if not following or following[0].text not in purpose:
        return False
    return any(found_in(t, newer) for t in following[1:] if t.content)


def role_words_only(older: Reading, newer: Reading, only_a, only_b) -> bool:
    """ "Customer contact at Globex is Hank Scorpio" / "Hank Scorpio is our point of
    contact at Globex", "The team lead is Anna" / "Anna is the product owner": two
    copulas whose sides swapped, one name said on both, and words added only where each
    names a role. The role named two ways, or two roles of one holder: no value changed,
    which the similarity and the LLM tell apart."""
    if not only_a or not only_b or any(t.kind != "word" for t in (*only_a, *only_b)):
        return False
    for first, second, adds_first, adds_second in (
        (older, newer, only_a, only_b),
        (newer, older, only_b, only_a),
    ):
        holder = [t for t in first.objects if t.kind == "name"]
        if (
            holder
            and all(any(same_word(t, u) for u in second.subject_words) for t in holder)
            and all(t in first.subject_words for t in adds_first)
            and all(t in second.objects for t in adds_second)
        ):
            return True
    return False


def purpose_beside_the_value(older: Reading, newer: Reading, only_a, only_b) -> bool:
    """ "Relocated to Madrid for work." / "Moved to Madrid for a new job.": an event
    that sets a value ("moved" sets where one lives) names the same value on both sides,
    and every word that differs stands after it, in a purpose ("for", "pour"): why it
    happened, said in other words, not a new value."""
    if not all(r.predicate is not None and r.predicate.sets for r in (older, newer)):
        return False
    purpose = words("markers", "purpose")
    for reading, only in ((older, only_a), (newer, only_b)):
        value = _phrase(reading.tokens[reading.predicate_at + 1 : reading.clause_end])
        if not value or any(t in only for t in value):
            return False  # the value itself differs ("to Madrid" / "to Lisbon")
        # Tokens know their place in the text: index() finds each one where it stands.
        after = reading.tokens.index(value[-1])
        clause = reading.tokens[: reading.clause_end]
        opened = next((i for i, t in enumerate(clause) if t.text in purpose), None)
        if opened is None or opened <= after:
            return False
        if any(reading.tokens.index(t) <= opened for t in only):
            return False
    return True


def noun_named(reading: Reading) -> bool:
    """A class read from the subject's noun over a copula ("her name is", "his birthday
    is"): the copula is the predicate, or the noun itself is ("User's name is Kenji",
    where "name" is a word of its class too)."""
    found = reading.predicate
    if found is None or found.name in ("be", "have") or reading.predicate_at < 0:
        return False
    token = reading.tokens[reading.predicate_at]
    return token.kind == "verb" or classes()[1].get(token.lemma) is found


def fixed_and_other(older: Reading, newer: Reading) -> bool:
    """ "Omar was born in Porto." / "Omar's home is in Porto.": the copula's class is
    named by its noun, and one side says what never changes (where one was born, one's
    name, nationality) where the other says another class: two facts of one value."""
    if not (noun_named(older) or noun_named(newer)):
        return False
    return any(r.predicate.fixed for r in (older, newer))


# --- What the values in a slot are ------------------------------------------------------

# Two words of one slot are of one kind (two cities, two job titles) from this MiniLM
# cosine of the words alone; below it they name two attributes ("vegetarian" / "single").
KIN = 0.3


def of_one_kind(only_a: list[Token], only_b: list[Token]) -> bool:
    """Two values of one kind (two names, two dates, two job titles), not two attributes
    ("vegetarian" / "allergic to cats")."""
    kinds_a = {t.value.split(":")[0] for t in only_a if t.value}
    kinds_b = {t.value.split(":")[0] for t in only_b if t.value}
    if kinds_a & kinds_b:
        return True
    words_a = [t.text for t in only_a if t.kind == "word"]
    words_b = [t.text for t in only_b if t.kind == "word"]
    if not words_a or not words_b:
        # Two values of one kind, not a name against a number or a date ("Denver" /
        # "the 21st").
        return bool(kinds_a and kinds_b) and ("name" in kinds_a) == ("name" in kinds_b)
    if any(HAN.search(w) for w in words_a + words_b):
        # MiniLM cannot read Chinese words: a word or two in the slot each is the value.
        return len(only_a) <= 2 and len(only_b) <= 2
    return alignment.kinship(words_a, words_b) >= KIN


def another_occasion(only_a: list[Token], only_b: list[Token]) -> bool:
    """Two times of day, and a word beside one of them that the other lacks ("Takes the
    8:15 train" / "Takes the 17:40 train home"): another occasion, or the same one moved.
    The readers cannot tell which."""
    clock_a = any(t.value.startswith("time:") for t in only_a)
    clock_b = any(t.value.startswith("time:") for t in only_b)
    return clock_a and clock_b and any(t.kind == "word" for t in (*only_a, *only_b))


def none_and_some(only_a: list[Token], only_b: list[Token]) -> bool:
    """One side's value is none ("Lives with two roommates" / "Now lives alone"): whatever
    the slot held, it holds nothing else with it, however many it may hold."""
    nothing = words("markers", "none")

    def none_of_it(only: list[Token]) -> bool:
        return all(t.text in nothing or t.lemma in nothing for t in only)

    return none_of_it(only_a) != none_of_it(only_b)


# How often is a value ("meets weekly" / "meets daily"); other -ly words after a verb say
# how it is done.
_FREQUENCIES = frozenset(
    {
        "daily",
        "weekly",
        "monthly",
        "yearly",
        "hourly",
        "nightly",
        "quarterly",
        "biweekly",
        "fortnightly",
        "annually",
    }
)


def manner(token: Token, found: Reading) -> bool:
    """An English adverb of manner right after a verb ("works remotely", "runs slowly"):
    how, not what. "I work remotely" / "I work from home" name no two workplaces."""
    if found.language != "en" or found.predicate_at < 0 or token.kind != "word":
        return False
    at = found.predicate_at + 1
    if at >= len(found.tokens) or found.tokens[at] is not token:
        return False
    if found.predicate is not None and found.predicate.name == "be":
        return False  # "is lonely": a state, a value
    return len(token.text) >= 6 and token.text.endswith("ly") and token.text not in _FREQUENCIES


def shape(reading: Reading, residue: list[Token]) -> tuple[bool, bool]:
    """(an article before the value, a preposition inside or after it): "a nurse" and
    "a doctor" have one shape, "vegetarian" and "allergic to shellfish" two."""
    tokens = reading.tokens
    start = tokens.index(residue[0])
    before = tokens[start - 1] if start else None
    article = before is not None and before.text in ("a", "an", "ein", "eine", "un", "une")
    end = tokens.index(residue[-1])
    inside = any(
        t.kind == "function" and t.text not in ("a", "an", "the")
        for t in tokens[start : min(end + 2, reading.clause_end)]
    )
    return article, inside


def time_shifted(older: Reading, newer: Reading, only_a: list[Token]) -> bool:
    """The newer moves a date or time only the older gives by a verb that moves anything
    ("pushed back a week", "delayed by two weeks", "slipped to Friday"): the older's
    time is the value that changed, not a time of its own to set aside."""
    moving = newer.predicate is not None and "*" in newer.predicate.sets
    return moving and any(time_kind(t) for t in only_a)


def without_lone_times(only_a: list[Token], only_b: list[Token]):
    """Times only one side gives ("wohnt seit März in Bonn", "moved to Lyon in 2024") say
    when, not what: set aside."""
    kinds_a = {time_kind(t) for t in only_a} - {""}
    kinds_b = {time_kind(t) for t in only_b} - {""}
    return (
        [t for t in only_a if not time_kind(t) or time_kind(t) in kinds_b],
        [t for t in only_b if not time_kind(t) or time_kind(t) in kinds_a],
    )


# Words before a name that say nothing of its slot ("the ISP router", "the Nextcloud VM").
_ARTICLES = frozenset(
    "the a an this that der die das den dem des ein eine le la les un une".split()
)


def named_one(older: Reading, newer: Reading, only_a, only_b):
    """ "works as a software engineer at Company A" / "works as a senior full-stack
    developer at Company B": too many words differ for one slot, but the one name that
    differs on each side stands after the same preposition, in a slot that holds one
    value: that names the slot that changed, the role around it reworded. ([name],
    [name]) or None."""
    named = [[t for t in only if t.kind == "name"] for only in (only_a, only_b)]
    if any(len(names) != 1 for names in named):
        return None  # no name, or another differs too ("the Nextcloud VM to pve3")
    before = [
        _preposition(reading, reading.tokens.index(names[0]) - 1)
        for reading, names in zip((older, newer), named, strict=True)
    ]
    if not before[0] or before[0] != before[1]:
        return None
    return (named[0], named[1]) if slot_of(older, newer, named[0], named[1]) == "one" else None


def _preposition(reading: Reading, at: int) -> str:
    """The word at `at` when it is a function word and no article ("at" Company A, "is
    on" shelf B4), or ""."""
    if not 0 <= at < reading.clause_end:
        return ""
    token = reading.tokens[at]
    return token.text if token.kind == "function" and token.text not in _ARTICLES else ""


def where_and_what(older: Reading, newer: Reading) -> bool:
    """ "Ana's apartment has two bedrooms." / "Ana's apartment is on the fourth floor.":
    one subject, what it has and where it is (a copula before a preposition), and no word
    said of it in common: two attributes. (A copula alone says too little to tell: "is
    on the Enterprise plan" / "has an Enterprise subscription" share the plan.)"""
    if {r.predicate.name if r.predicate else None for r in (older, newer)} != {"be", "have"}:
        return False
    subject = {t.key for t in older.subject_words}
    if not subject or subject != {t.key for t in newer.subject_words}:
        return False
    copula = older if older.predicate.name == "be" else newer
    if not _opening(copula):
        return False
    return not {t.key for t in older.objects} & {t.key for t in newer.objects}


def attribute_of_a_thing(older: Reading, newer: Reading, only_a, only_b) -> bool:
    """ "The cache is Redis", "Package manager: pnpm": a copula after a named thing gives
    its one value, whatever words the two values are, after the same preposition or none
    ("is on shelf B4" / "is for field tests", "is on the Team plan" / "is a native of
    Madrid": two attributes), but a bare number against words ("Anna is 29" / "Anna is a
    nurse"). (Of the user, "is vegetarian" / "is single": their kinship decides.)"""
    if not all(r.predicate is not None and r.predicate.name == "be" for r in (older, newer)):
        return False
    if not older.subject_words or not newer.subject_words:
        return False
    return _opening(older) == _opening(newer) and not _number_against_words(only_a, only_b)


def _number_against_words(only_a: list[Token], only_b: list[Token]) -> bool:
    """One side's value a bare number, the other's words or names, no value of any kind."""
    numbers = [bool(o) and all(t.value.startswith("number:") for t in o) for o in (only_a, only_b)]
    no_values = [all(t.kind in ("word", "name") for t in o) for o in (only_a, only_b)]
    return (numbers[0] and no_values[1]) or (numbers[1] and no_values[0])


def said_alike(older: Reading, newer: Reading, only_a, only_b) -> bool:
    """Two values after a copula said the same way: one shape, and the same preposition
    after the copula or none."""
    return shape(older, only_a) == shape(newer, only_b) and _opening(older) == _opening(newer)


def _opening(reading: Reading) -> str:
    """The preposition right after the predicate ("is on shelf B4": on), or ""."""
    return _preposition(reading, reading.predicate_at + 1)
