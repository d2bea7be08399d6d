"""Who holds a role: "Anna is the team lead" says what "The team lead is Anna" says. A
copula whose subject is a name and whose complement is a role with the definite article
names the role's one holder (the role is what the sentence is about; the name is its
value). Read as written, two such sentences about two people ("Anna is the team lead" /
"Ben is now the team lead") are about two subjects, two facts; read role first they are
one slot with two values, as "The team lead is Anna" / "The team lead is now Ben" are.

Only where both texts name a holder so: one such sentence against another kind of text
keeps its own reading (comparing.frames sees a copula's sides swapped against the other
order). The indefinite article names a class, not a role of one holder ("Anna is a
nurse" / "Ben is a nurse": two facts), and a possessive one of several ("Mia is Tom's
daughter") unless its noun names a role of one holder ("Priya is her manager": the
lexicon's `[roles]`); both are read as written. So is a verb whose object has one holder
at a time ("Alice owns the payments service": "The owner of the payments service is
Alice"; the lexicon's `[holders]`). English only, where the article is "the"."""

from __future__ import annotations

import re
from functools import cache

from memadmin.curation.detection.reading import clause
from memadmin.curation.detection.reading.clause import Reading
from memadmin.curation.detection.reading.words import Token, is_copula, lemma, relation_word
from memadmin.store.lexicon import fold, lexicon, words
from memadmin.store.text import text_cache


def read_both(text_a: str, text_b: str) -> tuple[Reading, Reading]:
    """The readings of two memories' texts, role first where both name a role's holder,
    and a role said by a verb ("reports to") said by its noun (`role_named`). Where both
    say it by the verb of two people, each is read as written: "Carla reports to Dev" /
    "Dev reports to Carla" are two facts, which two possessives would hide."""
    said_a, said_b = _role_verb(text_a), _role_verb(text_b)
    if said_a and said_b and said_a[0] != said_b[0]:
        said_a = said_b = None
    reading_a, role_a, holder_a = _alone(role_named(text_a) if said_a else text_a)
    reading_b, role_b, holder_b = _alone(role_named(text_b) if said_b else text_b)
    if holder_a != holder_b and _name_words(holder_a) & _name_words(holder_b):
        # "Ines K." / "Ines M.", "J. Alvarez" / "R. Alvarez": two people a store tells
        # apart by an initial, each of whom may hold a role of their own ("manages the
        # Lisbon office").
        return reading_a, reading_b
    if role_a and role_b:
        return clause.read(role_a), clause.read(role_b)
    # One names the holder, the other is written role first already ("Dr. Ortiz is her
    # GP." / "Her GP is Dr. Lang."): both role first, one slot and its holders.
    if role_a and _opens_with_role(reading_b, clause.read(role_a)):
        return clause.read(role_a), reading_b
    if role_b and _opens_with_role(reading_a, clause.read(role_b)):
        return reading_a, clause.read(role_b)
    return reading_a, reading_b


def _opens_with_role(reading: Reading, role_first_: Reading) -> bool:
    """Whether a copula's subject is the role another text's holder was said to hold."""
    if reading.predicate is None or reading.predicate.name != "be" or reading.negated:
        return False
    subject = [t.lemma for t in reading.subject_words]
    return bool(subject) and subject == [t.lemma for t in role_first_.subject_words]


@text_cache
def _alone(text: str) -> tuple[Reading, str, frozenset[tuple[str, str]]]:
    """A text's reading, the text said role first, and its holder: read once a run, for
    every pair a memory is in."""
    reading = clause.read(text)
    return reading, role_first(reading), _holder(reading)


def _holder(reading: Reading) -> frozenset[tuple[str, str]]:
    """The words of the name a text opens with, written with capitals, as written and as
    read (a name's initial is in its lemma: "ines k.")."""
    main = reading.tokens[: reading.clause_end]
    return frozenset((t.text, t.lemma) for t in main[: _name_end(main)] if t.content)


def _name_words(holder: frozenset[tuple[str, str]]) -> set[str]:
    """The words of a holder's name, less its initials ("j. alvarez": alvarez)."""
    return {w for t, lemma in holder for w in (t, *lemma.split()) if len(w.rstrip(".")) > 1}


def _name_end(main) -> int:
    """Where the words written with capitals a clause opens with end."""
    return next((i for i, t in enumerate(main) if not t.upper), len(main))


def role_named(text: str) -> str:
    """The text with a verb that names its object's role towards a person said by the
    role's noun ("She reports to Daniel Osei." -> "Her manager is Daniel Osei."; the
    lexicon's `[roles_by_verb]`), or "" where it has none. The readers compare a noun
    with a noun: "reports to" and "manager" have no word in common."""
    said = _role_verb(text)
    if said is None:
        return ""
    who, adverbs, noun, rest = said
    # No subject: the user's ("Reports to Priya": the user's manager is Priya).
    owner = _POSSESSIVES.get(who.lower(), f"{who or 'User'}'s")
    role = f"{owner} {noun}"
    return f"{role[0].upper()}{role[1:]} is {adverbs} {rest}".replace("  ", " ")


@text_cache
def _role_verb(text: str) -> tuple[str, str, str, str] | None:
    """(who, the change words said with the verb, the role's noun, what follows) of a
    text that names a person's role by a verb ("reports to"), or a slot by the plural it
    switched ("Switched dentists to Dr. Brandt"), or None. A person: a pronoun, "User",
    names written with capitals, or no one (the user); not "The Berlin office"."""
    found = _ROLE_VERB.match(text.strip())
    if found is not None:
        before, verb, rest = found.group(1).split(), found.group(2), found.group(3).strip()
        noun = _nouns_by_verb("roles_by_verb").get(fold(verb))
    elif switched := _SWITCHED.match(text.strip()):
        # "Switched dentists to Dr. Brandt": her dentist is now Dr. Brandt (one of a kind
        # at a time, swapped for another); the plural's noun names the slot.
        before, rest = [*switched.group(1).split(), "now"], switched.group(3).strip()
        noun = lemma(fold(switched.group(2)), "en")
        if rest[:1].islower() and rest.split()[0] not in ("a", "an", "the"):
            return None  # "Changed jobs to join Acme": a purpose, not the new one
    else:
        return None
    if noun is None or not rest.strip(" .!"):
        return None
    adverbs = " ".join(w.lower() for w in before if fold(w) in words("change"))  # "Now"
    who = [w for w in before if fold(w) not in words("change")]
    if who and (fold(who[0]) in _NOT_A_PERSON or not all(w[:1].isupper() for w in who)):
        return None
    return " ".join(who), adverbs, noun, rest


# Who, the verb (a phrase of the lexicon's [roles_by_verb]), what follows.
_ROLE_VERB = re.compile(r"^([^,;:]{0,60}?)\s*\b(reports? to)\s+(.+)$", re.I)
# Who, the plural after "switched" or "changed", what follows "to" ("Switched banks to
# Monzo").
_SWITCHED = re.compile(r"^([^,;:]{0,60}?)\s*\b(?:switched|changed)\s+([a-z]+s)\s+to\s+(.+)$", re.I)
_POSSESSIVES = {"she": "her", "he": "his", "they": "their", "i": "my", "we": "our"}
_NOT_A_PERSON = frozenset({"the", "a", "an", "this", "that", "our", "my", "their", "his", "her"})


@cache
def _nouns_by_verb(section: str) -> dict[str, str]:
    """A lexicon table of nouns, each with its verbs, looked up by the verb: `[holders]`
    ("owns": owner), `[roles_by_verb]` ("reports to": manager)."""
    return {verb: noun for noun, verbs in lexicon()[section].items() for verb in verbs}


def role_first(reading: Reading) -> str:
    """The text of `reading` said role first ("Ben is now the team lead." -> "The team
    lead is now Ben."; "Bob owns the payments service now." -> "The owner of the payments
    service is now Bob."), or "" when it does not name a role's holder."""
    main = reading.tokens[: reading.clause_end]
    if (
        reading.negated
        or reading.opening
        or reading.label
        or reading.said_when
        or reading.subject_start
    ):
        return ""
    if passive := _passive_holder(reading, main):
        return passive
    # A name, written with capitals, and maybe its title ("Dr. Weber"); not "She".
    at = _name_end(main)
    if not any(t.content for t in main[:at]) or at >= len(main) - 2:
        return ""
    if any(t.kind not in ("word", "name", "function") for t in main[:at]):
        return ""
    if any(_names_a_role(t, reading.language) for t in main[:at]):
        return ""  # "Manager is the CTO": a role written first, not its holder
    copula = at == reading.predicate_at and reading.predicate and reading.predicate.name == "be"
    verb_at = at
    while not copula and verb_at < len(main) - 2 and main[verb_at].text in words("change"):
        verb_at += 1  # "K. Obi now manages the office": the verb after its "now"
    holder_noun = _nouns_by_verb("holders").get(main[verb_at].text)
    if not copula and holder_noun is None:
        return ""
    article = verb_at + 1
    while article < len(main) and main[article].text in words("change"):
        article += 1  # "is now the", "is currently the"; not "is on the"
    role = list(main[article + 1 :])
    after = []
    while role and role[-1].text in words("change"):
        after.insert(0, role.pop())  # "owns the payments service now"
    if not role or role[0].kind not in ("word", "name"):
        return ""  # "Deadline is the 15th": a value, not a role
    if any(t.kind == "verb" or t.text in _RELATIVES for t in role):
        return ""  # "Anna is the one who decides": a clause of its own
    determiner = main[article]
    if determiner.text != "the" and not (
        copula and determiner.kind == "possessive" and _role_noun(role)
    ):
        return ""  # "Mia is Tom's daughter", "Anna is a nurse": one of several
    body = reading.body
    verb_end = main[at].start + len(main[at].text)
    said = body[determiner.start : role[-1].start + len(role[-1].text)]
    adverbs = " ".join(t.text for t in (*main[at:article], *after) if t.text in words("change"))
    linking = f"{body[main[at].start : verb_end] if copula else 'is'} {adverbs}".strip()
    if holder_noun is not None:
        said = f"the {holder_noun} of {said}"
    name = body[: main[at].start].strip()
    return f"{said[0].upper()}{said[1:]} {linking} {name}."


_RELATIVES = frozenset({"who", "whom", "whose", "which", "that"})


def _passive_holder(reading: Reading, main) -> str:
    """A holder said in the passive, role first ("The payments squad is now led by Joe
    Park." -> "The lead of the payments squad is now Joe Park."; the lexicon's
    `[holders_passive]`), or ""."""
    by = next((i for i, t in enumerate(main) if t.text == "by"), None)
    if by is None or by < 3 or by + 1 >= len(main):
        return ""
    noun = _nouns_by_verb("holders_passive").get(main[by - 1].text)
    copula = next((i for i in range(by - 2, 0, -1) if is_copula(main[i])), None)
    if noun is None or copula is None:
        return ""
    if any(t.text not in words("change") for t in main[copula + 1 : by - 1]):
        return ""  # "is run by", "was led by": only a "now" between
    if not all(t.upper for t in main[by + 1 :] if t.content):
        return ""  # a holder written with capitals, not "by the finance team"
    body = reading.body
    thing = body[main[0].start : main[copula].start].strip()
    thing = thing[:1].lower() + thing[1:] if main[0].text in ("the", "a", "an") else thing
    adverbs = " ".join(t.text for t in main[copula + 1 : by - 1])
    linking = f"{main[copula].text} {adverbs}".strip()
    holder = body[main[by + 1].start :].strip().rstrip(".")
    return f"The {noun} of {thing} {linking} {holder}."


def _names_a_role(token, language: str) -> bool:
    """A word of role or relation, which a sentence may open with in place of a name
    ("Manager is the CTO", "Owner is Bob", "Sister is a nurse")."""
    return _role_noun([token]) or relation_word(token, language)


def _role_noun(role) -> bool:
    """Whether a phrase ends in a noun of a role one person holds: the lexicon's [roles]
    ("her manager") or the holder of a [holders] verb ("our product owner")."""
    content = [t for t in role if t.content]
    nouns = _role_nouns()
    return bool(content) and (content[-1].lemma in nouns or content[-1].text in nouns)


@cache
def _role_nouns() -> frozenset[str]:
    """The nouns of `[roles]`, each a role one person holds towards someone ("her
    manager"; "her daughter" may be one of several), and of `[holders]` ("owner")."""
    roles = frozenset(word for names in lexicon()["roles"].values() for word in names)
    return roles | frozenset(_nouns_by_verb("holders").values())


def owned_relation(reading: Reading, owner: Token) -> str:
    """The relation a copula's subject holds towards `owner`, a name said with it ("Ana is
    Ben's sister": "sister"), where one may hold it towards several; else "". "Ana is
    Carl's sister" is another fact, not Ana's one value changed; "Carl's wife" is."""
    if reading.predicate is None or reading.predicate.name != "be" or owner.kind != "name":
        return ""
    index = reading.tokens.index(owner)
    after = reading.tokens[index + 1 : index + 3]
    if len(after) < 2 or after[0].text not in ("'s", "’s"):
        return ""
    noun = after[1]
    if not relation_word(noun, reading.language) or noun.lemma in words("held_once"):
        return ""
    return noun.lemma


def two_relations(older: Reading, newer: Reading, only_a, only_b) -> bool:
    """Whether two copulas say two relations (or roles) one person holds towards another,
    the words each adds a noun phrase after a possessive ("Jonas is his brother" / "Jonas
    is his landlord": a brother may be the landlord too; "his flatmate" / "his business
    partner"), not two of those one holds towards one person at a time ("Tom is her
    boyfriend" / "... her husband": one changed)."""
    relations = _relation_held(older, only_a), _relation_held(newer, only_b)
    return all(relations) and not set(relations) <= set(words("held_once"))


def role_held(reading: Reading) -> Token | None:
    """The noun of a role (`[roles]`, `[holders]`) a copula says its subject, a name,
    holds after a possessive ("Dr. Lena Vogt is her GP": "gp"), else None."""
    nouns = [t for t in reading.objects if t.kind == "word"][-1:]
    if nouns and _relation_held(reading, nouns) and nouns[0].lemma in _role_nouns():
        return nouns[0]
    return None


def _relation_held(reading: Reading, nouns) -> str:
    """The relation or role `nouns` name after a possessive in a copula whose subject is
    written with capitals, a name ("Nadia is her accountant"), else ""."""
    if reading.predicate is None or reading.predicate.name != "be" or not nouns:
        return ""
    if not reading.subject_words or not all(t.upper for t in reading.subject_words):
        return ""
    at = [reading.tokens.index(t) for t in nouns if t in reading.tokens]
    if len(at) != len(nouns) or at != list(range(at[0], at[0] + len(at))):
        return ""  # one phrase, its words in a row
    if at[0] == 0 or reading.tokens[at[0] - 1].kind != "possessive":
        return ""
    return nouns[-1].lemma if all(t.kind == "word" for t in nouns) else ""
