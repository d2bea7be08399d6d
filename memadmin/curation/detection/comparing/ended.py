"""What a newer memory takes back of an older one: "Prefers light theme" / "Actually I
changed my mind, the light theme is too bright" (what both say of the same thing);
"Runs 5 km three times a week" / "Stopped running" (the activity the older's verb
names); "Pixel the cat is 3" / "Pixel passed away" (a subject that ended, with all that
was said of it). A cessation is read by reading.clause (the lexicon's `[cessation]`)."""

from __future__ import annotations

from functools import cache
from itertools import takewhile

from memadmin.curation.detection.comparing import things
from memadmin.curation.detection.comparing.matching import found_in, same_or_unnumbered, spelled
from memadmin.curation.detection.comparing.predicates import copulas
from memadmin.curation.detection.comparing.relations import OPPOSITE, Relation
from memadmin.curation.detection.reading.clause import Reading
from memadmin.curation.detection.reading.words import Token
from memadmin.store.lexicon import lexicon, words


def taken_back(older: Reading, newer: Reading) -> Relation | None:
    """The newer's cessation of what the older says (an update, the opposite of it), or
    None."""
    if not newer.ceased or older.ceased or any(t.lemma in words("cessation") for t in older.tokens):
        return None  # "Used to smoke but quit in 2019" tells its own end: none taken back
    if older.negated:
        return None  # "No longer uses Jira" / "Stopped using Jira": both deny it
    objects = [t for t in older.objects if t.kind != "value"]
    if _subject_ended(newer):  # "Pixel died": the older's subject, or a name it gives
        objects = list(older.subject_words) or [t for t in objects if t.upper]
    elif not objects and older.predicate_at >= 0 and not copulas(older, older):
        objects = [older.tokens[older.predicate_at]]  # "Runs 5 km" / "Stopped running"
    # "Loves to bake" / "Stopped baking": the activity liked, as the cessation's gerund
    # (the older's own verb is _activity_ended's to weigh).
    gerunds = [t for t in objects if t in older.objects and _said_as_gerund(t, newer)]
    found = [t for t in objects if found_in(t, newer) or t in gerunds]
    other_thing = things.other_modifier_of_one_noun(older, newer)  # "the peanut allergy"
    most = bool(found) and 2 * len(found) >= len(objects)
    if (most or _names_ended(older, objects, newer)) and not other_thing:
        ended = found or [t for t in objects if t.kind == "name"][:1]
        return Relation(OPPOSITE, f"taken back: {spelled(ended, older.body)}", update=True)
    if _activity_ended(older, newer):
        verb = older.tokens[older.predicate_at]
        return Relation(OPPOSITE, f"taken back: {spelled([verb], older.body)}", update=True)
    return None


def _activity_ended(older: Reading, newer: Reading) -> bool:
    """Whether the newer's cessation ends the older's verb, said as its gerund right after
    the cessation or its particle ("Smokes" / "Quit smoking", "Runs every morning" /
    "Stopped running after the knee injury", "gave up running"). Only where the older's
    verb takes nothing but when it is done ("every morning", "on weekends"): "Plays the
    piano" / "Stopped playing football" ends another thing."""
    at = older.predicate_at
    if at < 0 or older.tokens[at].kind != "word" or copulas(older, older):
        return False
    if not all(t.kind == "value" or _said_when(older, t) for t in older.objects):
        return False
    verb = older.tokens[at].lemma
    ending = words("cessation")
    main = newer.tokens[: newer.clause_end]
    for index, token in enumerate(main[:-1]):
        if token.kind == "word" and (token.lemma in ending or token.text in ending):
            at = next((i for i in range(index + 1, len(main)) if main[i].kind != "function"), None)
            if at is None:
                return False
            return verb in _gerund_bases(main[at].text) and not _takes_a_thing(main, at + 1)
    return False


def _takes_a_thing(main, at: int) -> bool:
    """Whether the word after a gerund is a thing it takes ("smoking meat", "running the
    Monday meetings"), not when or why ("in March", "after the knee injury", "two years
    ago")."""
    if at >= len(main):
        return False
    token = main[at]
    if token.kind == "value" or token.text in words("markers", "openings"):
        return False
    return token.kind != "function" or token.text in ("the", "a", "an")


def _said_as_gerund(token: Token, reading: Reading) -> bool:
    """Whether a verb is in the reading's main clause as its "-ing" form."""
    return token.kind == "word" and any(
        token.lemma in _gerund_bases(t.text) for t in reading.tokens[: reading.clause_end]
    )


def _said_when(reading: Reading, token: Token) -> bool:
    """A part of the day said after "every" or "each" ("every morning"): when, not what."""
    at = reading.tokens.index(token)
    return token.text in words("rates", "parts_of_day") and (
        at > 0 and reading.tokens[at - 1].text in words("rates", "every")
    )


def _gerund_bases(word: str) -> tuple[str, ...]:
    """The verbs an English "-ing" form may be of: "smoking" smoke, "running" run,
    "playing" play."""
    if not word.endswith("ing") or len(word) < 6:
        return ()
    stem = word[:-3]
    doubled = (stem[:-1],) if len(stem) > 2 and stem[-1] == stem[-2] else ()
    return (stem, f"{stem}e", *doubled)


def _names_ended(older: Reading, objects: list, newer: Reading) -> bool:
    """The first name the older's verb takes, in the newer's cessation itself: "Works at
    Shopify as a staff engineer" / "Left Shopify; now at Stripe" (what one works as ends
    with where); not a name only a later clause has ("Left Google; now at Shopify"), nor
    one that qualifies a word ("summarise the Lumen Health handbook")."""
    first = next((i for i, t in enumerate(older.tokens) if t in objects and t.kind == "name"), None)
    if first is None:
        return False
    name = list(takewhile(lambda t: t.kind == "name", older.tokens[first:]))
    following = older.tokens[first + len(name) : first + len(name) + 1]
    if following and following[0].kind == "word":
        return False  # "the Lumen Health on-call handbook": a handbook
    ended = newer.tokens[: newer.clause_end]
    return all(any(same_or_unnumbered(t, n) for t in ended) for n in name)


def _subject_ended(reading: Reading) -> bool:
    """A cessation of nothing but its subject: "Pixel passed away last spring", "Grandpa
    Joe died in May" (after the verb only a time, or the words of the phrase itself);
    not "Tom quit smoking"."""
    return bool(reading.subject_words) and all(
        t.kind == "value" or t.text in _phrase_words() for t in reading.objects
    )


@cache
def _phrase_words() -> frozenset[str]:
    """The words of the cessation phrases ("away" of "passed away")."""
    return frozenset(w for phrase in lexicon()["cessation"]["phrases"] for w in phrase.split())
