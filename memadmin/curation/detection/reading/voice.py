"""A value set by someone, said of the thing it was set on: "The bank raised her card limit
to €8,000." is read "Her card limit was raised to €8,000." where the other memory of the
pair is about that thing ("Credit card limit is €5,000."). Read as written, the one who
set it was the subject ("different subjects: credit / bank"), two facts at 0.94; the
passive was read right (a conflict at 0.96).

Only a verb that gives a slot a new value (a class of the lexicon with `sets`: "raised",
"extended", "moved", "changed"), a thing after it with its determiner ("the", "her"), and
its new value after "to"; and only where the thing's last word is the head of the other
memory's subject, so that "The team extended the trial to 60 days" stays the team's
where the other memory says nothing of a trial."""

from __future__ import annotations

import re

from memadmin.curation.detection.reading import clause
from memadmin.curation.detection.reading.words import class_of_word, lemma, slot_nouns
from memadmin.store.lexicon import fold

# Who, the verb, the thing (maybe with its determiner), the new value after "to".
_SET_BY = re.compile(
    r"^(?P<who>[^,;:]{1,40}?)\s+(?P<verb>[a-z]+ed|cut|set)\s+"
    r"(?P<thing>[^,;:]{1,50}?)\s+to\s+(?P<rest>.+)$",
    re.I,
)


def thing_first(text_a: str, text_b: str) -> tuple[str, str]:
    """The two texts, one that says who set a value of the thing the other is about said
    of that thing (the module's docstring); the texts as they are otherwise."""
    return _passive(text_a, text_b) or text_a, _passive(text_b, text_a) or text_b


def _passive(text: str, other: str) -> str:
    """`text` said of the thing its verb set, where `other` is about that thing; ""."""
    if " to " not in text:
        return ""  # most memories: no regular expression to try
    found = _SET_BY.match(text.strip())
    if found is None:
        return ""
    setting = class_of_word(fold(found.group("verb")))
    if setting is None or not setting.sets:
        return ""  # a verb of the past that sets no value: "worked", "talked"
    thing = found.group("thing")
    if len(thing.split()) > 6 or fold(thing.split()[0]) in _NOT_A_THING:
        return ""
    if not _about(clause.read(other), lemma(fold(thing.split()[-1]), "en")):
        return ""
    return f"{thing[:1].upper()}{thing[1:]} was {found.group('verb')} to {found.group('rest')}"


def _about(reading: clause.Reading, head: str) -> bool:
    """Whether a memory is about the thing a noun names: its subject's last word, or the
    slot its predicate is of ("Retention is 30 days": retention, a noun of `retain`)."""
    subject = [t for t in reading.subject_words if t.content]
    if subject:
        return subject[-1].lemma == head
    named = slot_nouns().get(head)
    return named is not None and reading.predicate is not None and named == reading.predicate


# What follows the verb and is no thing it set: "moved back to", "switched over to".
_NOT_A_THING = frozenset({"back", "over", "up", "down", "it", "them", "him"})
