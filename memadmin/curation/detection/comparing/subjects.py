"""Whether two memories' subjects are two things or people: "Ada lives in Chicago" /
"Lives in Denver" (Ada and the user), "the unit-test job takes..." / "the integration job
takes..." (two jobs), "Kenta's manager" / "Kenta" (someone named by a relation); and not
where one is the other said otherwise ("Favourite movie" / "His favorite film")."""

from __future__ import annotations

from memadmin.curation.detection.comparing import alignment, contrast, opposites, things
from memadmin.curation.detection.comparing.matching import (
    found_in,
    one_name_aside,
    owners_aside,
    phrase,
    read_alike,
    role_named,
    same_word,
    spelled,
)
from memadmin.curation.detection.comparing.predicates import crossed, same_predicate
from memadmin.curation.detection.reading import roles
from memadmin.curation.detection.reading.clause import Reading
from memadmin.curation.detection.reading.words import Token, relation_word, same_limit
from memadmin.store.lexicon import HAN


def other_subjects(older, newer, user_names, *, across: bool) -> str:
    """A description of the two subjects when they are two things or people, else ""."""
    subject_a, subject_b = owners_aside(older, newer, user_names)
    if across:
        if (HAN.search(older.text) is None) != (HAN.search(newer.text) is None):
            # "王伟" / "Wei": a name in Chinese characters and one in letters cannot be
            # compared by their spelling; the multilingual model says whether they are one.
            return ""
        names_a = [t.lemma for t in subject_a if t.kind == "name"]
        names_b = [t.lemma for t in subject_b if t.kind == "name"]
        if names_a and names_b and not contrast.keeps_name(names_a[0], newer.text, across=True):
            return f"{names_a[0]} / {names_b[0]}"
        return _relation_against_no_one(subject_a, subject_b, older, newer)
    if older.opening or newer.opening:
        return ""  # "After ~40 min of nonstop cycling the J4 ...": no subject read first
    if subject_a and subject_b:
        return _both_named(subject_a, subject_b, older, newer)
    # One names someone or something, the other is about the user: two subjects when
    # the other text has none of those words and says the same of its own subject
    # ("Ada lives in Chicago" / "Lives in Denver"; "Lin's sister lives in Chengdu" /
    # "Lin moved to Futian"), unless that name is the user's (`user_names`).
    named, holder, other = (subject_a, older, newer) if subject_a else (subject_b, newer, older)
    if not named or role_named(holder, other):
        return ""
    role = roles.role_held(holder)
    if role is not None and found_in(role, other):
        return ""  # "Dr. Lena Vogt is her GP." / "Changed GP to Dr. Aydin.": its holder
    # Named, and by no name the other text says: someone else, whatever else both say
    # ("Has two daughters" / "His daughter Ana is 8": Ana is 8, not the user; but
    # "Alice's cat Miso is a tabby" / "Has a cat called Miso" share Miso).
    names = [t for t in named if t.kind == "name"]
    if names and not any(found_in(t, other) for t in names):
        return f"{phrase(named, holder.body)} / the user"
    if _object_of_one_verb(named, holder, other):
        return f"{phrase(named, holder.body)} / the user"
    if any(found_in(t, other) for t in named):
        return ""
    if things.labels_an_attribute(holder, named):
        return ""  # "Timezone: CET", "Diet: vegan": a label of an attribute, no one else
    # "Tom", "her son", "Lin's sister"
    someone = any(t.kind == "name" or relation_word(t, holder.language) for t in named)
    parallel = (  # "Ada lives" / "Lives"
        named[0].upper and same_predicate(older, newer) and not _its_thing_changed(holder, other)
    )
    if someone or parallel or _moved_thing(holder, other):
        return f"{phrase(named, holder.body)} / the user"
    return ""


def _both_named(subject_a, subject_b, older: Reading, newer: Reading) -> str:
    """Two subjects each text names: two things or people, described, or ""."""
    # Two subjects when each has a word the other text lacks and the rest is said
    # the same way ("the unit-test job takes..." / "the integration job takes...").
    only_a, only_b = one_name_aside(
        [t for t in subject_a if not found_in(t, newer)],
        [t for t in subject_b if not found_in(t, older)],
        older,
        newer,
        subject_a,
        subject_b,
    )
    if (
        only_a
        and only_b
        and same_predicate(older, newer)
        and not crossed(older, newer)
        and not one_word_for_another(only_a, only_b)
        and not read_alike(only_a, only_b)
        and not things.one_address(older, newer, only_a + only_b)
    ):  # "the printer on floor 2" / "Floor 2 printer": one name, in two cases
        return f"{spelled(only_a, older.body)} / {spelled(only_b, newer.body)}"
    # One subject the other's with a word of kinship or role added ("Kenta's manager"
    # / "Kenta", "Alice's partner Tom" / "Alice"): someone else, named by their
    # relation; not where it names the other's ("Her daughter Emma" / "Emma").
    longer, reading = (only_a, older) if only_a else (only_b, newer)
    full, shorter = (subject_a, subject_b) if only_a else (subject_b, subject_a)
    if (
        not (only_a and only_b)
        and _within(shorter, full)
        and any(relation_word(t, reading.language) for t in longer)
        and not _named_by_relation(full, shorter, reading.language)
        and not _modifies_the_same_noun(longer, reading, shorter)
        and not things.owner_only(longer, reading, newer if only_a else older)
    ):
        return f"{phrase(subject_a, older.body)} / {phrase(subject_b, newer.body)}"
    return ""


def _relation_against_no_one(subject_a, subject_b, older: Reading, newer: Reading) -> str:
    """Across two languages, someone named by a relation against no one named: two
    subjects ("Er wohnt in Hamburg." / "His brother lives in Hamburg."); not where no
    clause was read on the bare side ("Su perro se llama Toby." before Spanish was)."""
    for named, reading, bare, other in (
        (subject_a, older, subject_b, newer),
        (subject_b, newer, subject_a, older),
    ):
        if (
            not bare
            and other.predicate_at >= 0
            and any(relation_word(t, reading.language) for t in named)
        ):
            return f"{phrase(named, reading.body)} / the user"
    return ""


def _named_by_relation(subject: list[Token], shorter: list[Token], language: str) -> bool:
    """ "Her daughter Emma" / "Emma": the other subject's words are a name after the word
    of relation, or before it, set beside it ("Pixel the cat", "Emma, her daughter"):
    who they are, not whose ("Kenta's manager" / "Kenta"; "her manager's email")."""
    at = next((i for i, t in enumerate(subject) if relation_word(t, language)), len(subject))
    named = [t for t in subject[at + 1 :] if t.kind == "name"]
    if 0 < at < len(subject):  # not "Kenta's manager": a name and "'s" (three letters)
        before, word = subject[at - 1], subject[at]
        if before.kind == "possessive" or word.start - before.start - len(before.text) > 3:
            named += [t for t in subject[:at] if t.upper and t.kind != "possessive"]
    return all(any(same_word(t, u) for u in named) for t in shorter)


def _modifies_the_same_noun(longer: list[Token], reading: Reading, shorter) -> bool:
    """ "The team retro" / "Retros": each word of relation stands right before a noun the
    other subject names, as its modifier: one thing, no one else. Not a word of relation
    that heads its phrase ("Kenta's manager" / "Kenta", "Her sister's car" / "Her car")."""
    related = [t for t in longer if relation_word(t, reading.language)]
    for word in related:
        following = reading.tokens[reading.tokens.index(word) + 1 :][:1]
        if not following or not any(same_word(following[0], t) for t in shorter):
            return False
    return bool(related)


def _object_of_one_verb(named: list[Token], holder: Reading, other: Reading) -> bool:
    """ "Reports to Tom." / "Tom reports to the CTO.": one verb, and whom the other says
    it of after the verb, a name, is this one's subject: Tom and the user, two subjects
    (not a thing: "Ships orders in 2 days." / "Orders ship in 2 days."). Not where this
    one says it back of the user ("Married Tom." / "Tom married her."), nor a verb
    that gives the subject a new value ("Her GP is Dr. Vogt." / "Changed GP to ..."), nor
    a passive, whose subject is the verb's object ("Report-worker is built on ...")."""
    if other.predicate_at < 0 or holder.predicate_at < 1:
        return False
    if holder.tokens[holder.predicate_at - 1].kind == "verb":
        return False
    verbs = holder.tokens[holder.predicate_at], other.tokens[other.predicate_at]
    if verbs[0].lemma != verbs[1].lemma:
        return False
    after = other.tokens[other.predicate_at + 1 :]
    if not all(any(u.kind == "name" and same_word(t, u) for u in after) for t in named):
        return False
    back = holder.tokens[holder.predicate_at + 1 :]
    return not any(_the_user_as_object(back, at) for at in range(len(back)))


def _the_user_as_object(tokens, at: int) -> bool:
    """ "her" in "Tom married her": the user, the verb's object; not "her grandmother"
    ("Mia calls her grandmother": someone else, whose the possessive says)."""
    token, following = tokens[at], tokens[at + 1 : at + 2]
    if token.kind in ("user", "pronoun"):
        return True
    return token.kind == "possessive" and not (following and following[0].kind in ("word", "name"))


def _its_thing_changed(holder: Reading, other: Reading) -> bool:
    """ "Gym membership is at Urban Sports Club" / "Upgraded Urban Sports Club to the L
    plan": what a verb of any change acts on is a thing the other names, its subject's,
    not something the user does beside it ("Proxmox cluster has three nodes: pve1, pve2,
    pve3" / "Migrated the Nextcloud VM from pve1 to pve3": a VM the other does not name)."""
    found = other.predicate
    if found is None or "*" not in found.sets or other.predicate_at < 0:
        return False
    after = other.tokens[other.predicate_at + 1 : other.clause_end]
    to = next((i for i, t in enumerate(after) if t.text in ("to", "for")), 0)
    thing = [t for t in after[:to] if t.content]
    return bool(thing) and all(found_in(t, holder) for t in thing)


def _within(shorter: list[Token], longer: list[Token]) -> bool:
    """Whether every word of one subject is in the other: "Kenta" in "Kenta's manager",
    not "Tickets" (said after the other's verb: "The team uses Jira for tickets")."""
    return all(any(same_word(t, u) for u in longer) for t in shorter)


def _moved_thing(holder: Reading, other: Reading) -> bool:
    """A thing rescheduled ("The project deadline was pushed to Wednesday"), or moved
    where the other says where the user lives ("User's dentist appointment moved to the
    21st" / "Lives in Denver"): the thing's new value is not the user's."""
    found = holder.predicate
    if found is None:
        return False
    if found.name == "reschedule":
        return True
    return "live" in found.sets and other.predicate is not None and other.predicate.name == "live"


def one_word_for_another(only_a: list[Token], only_b: list[Token]) -> bool:
    """ "Favourite movie is Inception" / "His favorite film is Inception": one word a
    synonym of the other's, not two things. (One limit for another, "top speed" / "max
    speed", words.limits_aside has set aside: the word models set "top" / "max" apart.)"""
    if len(only_a) != 1 or len(only_b) != 1:
        return False
    if only_a[0].kind != "word" or only_b[0].kind != "word" or same_limit(*only_a, *only_b):
        return False  # a limit alone ("Max" / "Top"): two people's names
    if HAN.search(only_a[0].text + only_b[0].text):
        return False  # MiniLM cannot read Chinese words: any two look alike to it
    if opposites.opposed(only_a[0].text, only_b[0].text):
        return False  # "left-handed" / "right-handed": the models put opposites close
    return alignment.synonyms(only_a[0].text, only_b[0].text)
