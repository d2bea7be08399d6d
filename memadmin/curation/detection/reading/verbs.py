"""What a word is as a verb, read from its form and place: a conjugated verb ("plays",
"took", "wohnt"), a participle ("lowered", "gezogen", "déménagé"), the main verb after an
auxiliary or a copula, a German simple past; and whether a clause's verb tells a past
event. The clause reader (reading.clause) asks these to find a memory's predicate."""

from __future__ import annotations

from functools import cache

from memadmin.curation.detection.reading import places
from memadmin.curation.detection.reading.tokens import s_form
from memadmin.curation.detection.reading.words import (
    PredicateClass,
    Token,
    class_of,
    classes,
    is_copula,
    per_language,
    predicate_class,
    relation_word,
)
from memadmin.store.lexicon import lexicon, words


def verb_after(main, index: int, language: str, *, any_word: bool) -> int | None:
    """The main verb after an auxiliary ("does not smoke", "can swim": any word) or a
    copula ("is now training", "was lowered": a participle or a class word), within two
    words; in German at the end of the clause ("ist nach Dresden gezogen"); or None."""
    if language == "de":
        for position in range(len(main) - 1, index, -1):
            token = main[position]
            if token.kind == "word" and (participle(token, language) or class_of(token)):
                return position
            if token.content:
                break  # the last content word is no verb: no participle at the end
    skipped = 0
    for position in range(index + 1, len(main)):
        token = main[position]
        if token.kind == "negator" or token.text in (
            "now",
            "still",
            "also",
            "no",
            "longer",
            "never",
        ):
            continue
        if token.kind not in ("word", "verb") or skipped >= 2:
            return None
        found = class_of(token)
        if any_word or (found is not None and found.name != "be") or participle(token, language):
            return position
        if irregular_participle(main, position, language):
            return position
        skipped += 1
    return None


def been_to(main, index: int, language: str) -> PredicateClass | None:
    """ "Has been to Japan", "has never been to Japan": "been" before "to" says a visit,
    as "visited" does, not what its subject is."""
    following = main[index + 1] if index + 1 < len(main) else None
    if language == "en" and main[index].text == "been" and following and following.text == "to":
        return predicate_class("visit")
    return None


def irregular_participle(main, position: int, language: str) -> bool:
    """ "is built on", "was held in", "is written in": an English participle with no -ed,
    its preposition right after, is the predicate of a passive, as "is hosted on" is; not
    a plural ("are tools for") nor a comparative ("is older than")."""
    token = main[position]
    following = main[position + 1] if position + 1 < len(main) else None
    return (
        language == "en"
        and token.lemma != token.text
        and not token.text.endswith(("s", "er", "est"))
        and following is not None
        and following.kind == "function"
    )


def participle(token: Token, language: str) -> bool:
    text = token.text
    if language == "en":
        return text.endswith(("ing", "ed")) and token.lemma != text
    if language == "de":
        return text.startswith("ge") and text.endswith(("t", "en")) and token.lemma != text
    if language == "fr":
        return text.endswith(("é", "ée", "és", "ées", "i", "u", "is", "it")) and token.lemma != text
    return False


def verb_form(token: Token, language: str) -> bool:
    """A word that reads as a conjugated verb by its form: "plays", "took", "visited",
    "wohnt", "habite" (its lemma differs), a class word or a verb of cessation ("quit"),
    never "hiking" (a gerund), nor a Romance noun of a person, whose lemma differs too
    ("irmã": "irmão")."""
    if token.kind != "word" or token.text.endswith("ing") or _degree(token, language):
        return False
    if language != "en" and relation_word(token, language):
        return False
    cessation = words("cessation")
    return (
        token.lemma != token.text
        or class_of(token) is not None
        or token.text in cessation
        or token.lemma in cessation
    )


def _degree(token: Token, language: str) -> bool:
    """An English adjective's comparative or superlative, whose lemma differs as a verb's
    does: "best" (good), "worse" (bad), "fastest", "larger", "bigger"; as in "Personal
    best in the marathon: ...", no verb."""
    text, lemma = token.text, token.lemma
    if language != "en" or lemma == text:
        return False
    if lemma in ("good", "bad", "well", "much", "many", "little", "far"):
        return True
    return text.endswith(("er", "est")) and text[:2] == lemma[:2] and len(text) > len(lemma)


# German verbs in the present whose form is not their lemma's nor ends like a present.
GERMAN_MODALS = frozenset({"mag", "kann", "will", "muss", "darf", "soll", "weiß"})


def german_past(verb: Token) -> bool:
    """ "lief", "schwamm", "wohnte", "spielten": a German simple past (the present ends
    in -t, -st, -e or -en)."""
    text = verb.text
    if verb.lemma == text or text in GERMAN_MODALS:
        return False
    return text.endswith(("te", "ten")) or not text.endswith(("t", "st", "e", "en"))


# What may stand between a verb and its object: articles, quantifiers, possessives.
_BEFORE_AN_OBJECT = frozenset(
    "the a an all my our her his their its your this these those some".split()
)


def moves_a_thing(main, index: int) -> bool:
    """Whether the verb at `index` ("moved") has an object right after it ("Moved all
    notes to Obsidian", "moved the couch to the hall"): a thing given a new place, not
    the subject gone to live somewhere ("Moved to Lyon", "Moved back to Lyon": a particle
    is no object; "moved back the deadline" moves one)."""
    for token in main[index + 1 :]:
        if token.text in _BEFORE_AN_OBJECT or token.kind == "possessive" or token.text == "back":
            continue
        return token.content and token.kind != "value"
    return False


# Values that say when, not where: a thing moved to one of them is rescheduled.
_TIMES = ("time:", "weekday:", "date:")


def moved(main, index: int, found: PredicateClass) -> PredicateClass:
    """What "moved" at `index` says: a thing given a new value ("Moved all notes to
    Obsidian": switch), a thing given a new time ("The meeting moved to 4 pm", "Dinner
    moved to 6:30": rescheduled), or the subject gone to live elsewhere ("Moved to Lyon",
    "Moved to Berlin in May": the verb's own class)."""
    if moves_a_thing(main, index):
        return predicate_class("switch")
    after = next((t for t in main[index + 1 :] if t.content), None)
    if after is not None and after.kind == "value" and after.value.startswith(_TIMES):
        return predicate_class("reschedule")
    return found


# English adjectives by their ending, as memories open with them and no verb: "Allergic
# to penicillin", "Fluent in Japanese", "Responsible for hiring", "Nervous about flying".
_ADJECTIVE_ENDINGS = ("ic", "ent", "ant", "ous", "ful", "ive", "able", "ible")


def unsaid_copula(found: tuple, clause_end: int, predicate_at: int, language: str):
    """The tokens, the clause's end and its main tokens with the copula a memory leaves out
    when it opens with an adjective and its preposition ("Allergic to penicillin" says
    "Is allergic to penicillin") or a colon in its place ("Allergic: shellfish"); or
    None. Not a noun ("Dinner with the team") nor a word of a class ("Based in Lyon")."""
    main = found[:clause_end]
    if language != "en" or len(main) < 3:
        return None
    first, second = main[0], main[1]
    if first.kind != "word" or class_of(first) is not None or first.lemma != first.text:
        return None
    colon = predicate_at == 1 and second.text in (":", "：")
    if not first.text.endswith(_ADJECTIVE_ENDINGS) or not (predicate_at < 0 or colon):
        return None
    prepositions = ("to", "in", "of", "for", "with", "about", "at", "on", "from")
    if not colon and (second.kind not in ("function", "marker") or second.text not in prepositions):
        return None
    copula = Token(text="is", lemma="be", start=first.start, kind="verb")
    if colon:  # the colon stands where the preposition would
        found = (first, second._replace(kind="function", lemma=second.text), *found[2:])
    found = (copula, *found)
    return found, clause_end + 1, found[: clause_end + 1]


def reduced_relative(main, index: int, seen: list[Token]) -> bool:
    """A participle right after its noun, with a copula after it: "The cat named Bo is 3",
    "the flat rented in May was ...": which one, not what is said of it (the copula
    says that). Not after a name ("Ana named her cat Bo")."""
    token = main[index]
    if not token.text.endswith("ed") or not seen or seen[-1].kind != "word":
        return False
    return any(t.kind == "verb" and is_copula(t) for t in main[index + 1 :])


def past_event(main, predicate_at: int, predicate, language: str, folded: str) -> bool:
    """Something that happened (a past tense of a predicate other than "be"), not a
    state that holds: "Swam 2 km on Monday", "Visited Rome in 2019", "A visité Lisbonne",
    "周一跑了5公里"."""
    verb = main[predicate_at] if predicate_at >= 0 else None
    # A copula tells a state: "Birthday: 12 March", "Her home was in Lyon" (lives).
    if verb is None or verb.lemma == "be" or (predicate is not None and predicate.name == "be"):
        return False
    before = {t.text for t in main[max(0, predicate_at - 3) : predicate_at]}
    if language == "en":
        if verb.text in ("had", "did", "got", "was", "were") or (
            verb.lemma != verb.text and not verb.text.endswith(("s", "ing"))
        ):
            return not before & {"is", "are", "am", "be"}  # "is learning" is no event
        return False
    past_auxiliaries = per_language("past_auxiliaries", language)
    if language in ("de", "fr"):
        participles = [t for t in main[predicate_at:] if participle(t, language)]
        has_auxiliary = bool(before & past_auxiliaries) or any(
            t.text in past_auxiliaries for t in main[:predicate_at]
        )
        if language == "fr" and not has_auxiliary and verb.lemma in words("markers", "movement_fr"):
            has_auxiliary = bool(before & {"est", "sont", "suis", "es"})  # "s'est installée"
        if language == "de" and german_past(verb):
            return True
        return has_auxiliary and bool(participles or participle(verb, language))
    if language == "zh":
        return "了" in folded or "过" in folded
    return False


def inside_a_compound(main, index: int) -> bool:
    """A word of a class between two nouns before a copula or a colon: a noun inside a
    compound ("Oil change interval: 10k km", "The password change policy is strict")."""
    before, after = main[index - 1 : index], main[index + 1 : index + 3]
    return (
        len(before) == 1
        and before[0].kind == "word"
        and len(after) == 2
        and after[0].kind == "word"
        and after[1].kind == "verb"
        and is_copula(after[1])
    )


def value_given(main, predicate_at: int, found: PredicateClass | None, language: str):
    """The class of a verb that gives a slot a new value, or None where it gives none: a
    routine ("Changes the oil every 10,000 km": done again and again), or going back to
    no choice ("Went back to bed", "went back to school"). Any other class as it is."""
    if found is not None and found.sets and routine(main, predicate_at, language):
        return None
    if found is not None and found.name == "return" and not gone_back_to_a_choice(main):
        return None
    return found


def routine(main, predicate_at: int, language: str) -> bool:
    """Whether a verb that gives a slot a new value is said of a routine, in the present
    and "every" so often ("Changes the oil every 10,000 km", "Rotates the keys every 90
    days"): a thing done again and again, no new value of anything."""
    if language != "en" or predicate_at < 0:
        return False
    verb = main[predicate_at]
    if not s_form(verb.text):
        return False
    return any(t.text in words("rates", "every") for t in main[predicate_at + 1 :])


def phrased(main: tuple[Token, ...], folded: str) -> tuple[int, PredicateClass] | None:
    """A class said by a phrase ("can't stand", "cannot tolerate", "ne supporte pas"): the
    predicate is the phrase's last word, of the phrase's class (not "bear" as in born). A
    phrase that names its value after "to" has its verb first ("went back to QWERTY",
    "rent went up to 1350"): what stands before it is the subject, the rest no object."""
    for phrase, found in classes()[2]:
        if phrase in folded:
            said = phrase.split()
            verb = said[0] if said[-1] == "to" else said[-1]
            at = next((i for i, t in enumerate(main) if verb in (t.text, t.lemma)), None)
            return None if at is None else (at, found)
    return None


@cache
def phrase_words(name: str) -> frozenset[str]:
    """The words of a class's phrases ("back" of "went back to"): no object of its verb."""
    phrases = [phrase for phrase, found in classes()[2] if found.name == name]
    return frozenset(word for phrase in phrases for word in phrase.split())


def gone_back_to_a_choice(main) -> bool:
    """Whether what a clause went back to ("Went back to QWERTY", "reverted to Postgres
    14", "went back to full-time") is a choice: a name, a value, or a word of opposite
    states; not a place or a thing done ("went back to bed", "to school", "to the café",
    "to Munich for the holidays").
    """
    at = next((i for i, t in enumerate(main) if t.text == "to"), None)
    after = next((t for t in main[at + 1 :] if t.content), None) if at is not None else None
    if after is None or (after.kind == "name" and places.is_city(after.text)):
        return False
    return after.kind in ("name", "value") or after.text in _states()


@cache
def _states() -> frozenset[str]:
    """The words of opposite states (lexicon.toml: polarity.opposite_states)."""
    pairs = lexicon()["polarity"]["opposite_states"]
    return frozenset(word for pair in pairs for side in pair for word in side)
