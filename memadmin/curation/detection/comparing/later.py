"""The clauses after the first. The readings compare each memory's first clause
(reading.clause); where those say the same and both memories go on, what the later
clauses say is the pair's relation: "Works at Acme; leads the data team." / "Works at
Acme; leads the web team." are not one statement, and "Is vegetarian. Eats fish on
Fridays." / "Is vegetarian. Never eats fish." disagree. Read as the same, each such pair
was one fact at 0.98 or more, and "Deploys on Fridays, but only after noon." / "...
only before noon." merged with no person looking.
"""

from __future__ import annotations

from memadmin.curation.detection.comparing import contrast, frames
from memadmin.curation.detection.comparing.matching import found_in
from memadmin.curation.detection.comparing.relations import (
    EVENTS,
    NEW_VALUE,
    OPPOSITE,
    OTHER_PREDICATE,
    OTHER_VALUE,
    REFINES,
    SAME,
    UNREAD,
    Relation,
)
from memadmin.curation.detection.reading.clause import Reading, read

# Clauses compared past the first at most: a memory is a sentence or three.
DEEPEST = 3


def of_later_clauses(
    older: Reading,
    newer: Reading,
    relation: Relation,
    user_names: frozenset[str] = frozenset(),
    depth: int = 0,
) -> Relation:
    """`relation` (of the first clauses: frames.compare), or where it is the same
    statement and both memories say more that differs, the relation of what they say
    next (`user_names` as frames.compare takes them)."""
    if relation.kind != SAME or depth >= DEEPEST:
        return relation
    later_a, later_b = later_clause(older), later_clause(newer)
    if later_a is None or later_b is None or _said_alike(later_a, later_b):
        return relation
    later_a, later_b = _named(later_a, later_b, older), _named(later_b, later_a, newer)
    found = frames.compare(later_a, later_b, user_names=user_names)
    if found.kind == EVENTS and contrast.key_token_differences(later_a.text, later_b.text):
        # "Plays chess online - rated 1500." / "... - rated 1720.": a fragment with no
        # subject read as two events, where a value differs; the key tokens read that
        # as one statement's value changed (rules), as before.
        return relation
    return of_later_clauses(later_a, later_b, found, user_names, depth + 1)


def of_next_clause(
    older: Reading, newer: Reading, relation: Relation, user_names: frozenset[str] = frozenset()
) -> Relation:
    """`relation`, or where the first clauses say two things of one subject ("Works at
    Deloitte" / "Changed jobs"), or are unread, and one memory of one clause meets the
    other's next clause in one slot, that: "Works at Spotify." / "Got a new job; now works
    at Shopify." (the job is news, where she works the slot: a changed value, where it was
    another thing said at 0.75). The same statement said again after news is the news
    added ("Lives in Berlin." / "Got married; lives in Berlin.")."""
    if relation.kind not in (OTHER_PREDICATE, OTHER_VALUE, UNREAD):
        return relation
    for alone, going_on in ((older, newer), (newer, older)):
        if later_clause(alone) is not None:
            continue
        following = _said_next(going_on)
        if following is None or not _one_verb(alone, following):
            continue
        pair = (alone, following) if alone is older else (following, alone)
        found = frames.compare(*pair, user_names=user_names)
        if found.kind in (SAME, REFINES):
            return Relation(REFINES, found.detail)
        if found.kind in (OPPOSITE, NEW_VALUE):
            return found
    return relation


def _said_next(reading: Reading) -> Reading | None:
    """What a memory says after its first statement, said of its subject: the next
    clause, or a verb's phrase after "and" ("Ana sold her Seat and now drives a Toyota.":
    Ana now drives a Toyota)."""
    following = later_clause(reading) or _after_and(reading)
    tokens = reading.tokens
    if following is not None and _points_back(following):
        return None  # "Bought a piano; plays it daily": it is the news's, not a value
    if following is None or following.subject_words or not reading.subject_words:
        return following
    if reading.subject_end >= len(tokens):
        return following  # a subject and nothing said of it
    start, end = tokens[reading.subject_start].start, tokens[reading.subject_end].start
    return read(f"{_clause_text(reading)[start:end].strip()} {following.text}")


def _points_back(reading: Reading) -> bool:
    """Whether a clause names what it speaks of by a pronoun after its verb."""
    after = reading.tokens[max(reading.predicate_at, 0) + 1 : reading.clause_end]
    return any(t.kind == "pronoun" for t in after)


def _after_and(reading: Reading) -> Reading | None:
    """The phrase after the first "and" of a clause, where it says something by a verb of
    its own, not a participle, and names no subject ("... and now drives a Toyota"; not
    "... and her husband drives a Toyota", "Likes tea and coffee", nor "stayed healthy by
    playing basketball and eating well")."""
    ands = [t for t in reading.tokens[: reading.clause_end] if t.text == "and"]
    if not ands:
        return None
    following = read(_clause_text(reading)[ands[0].start + len("and") :].strip())
    if not following.predicate or following.subject_words:
        return None
    return None if following.tokens[following.predicate_at].text.endswith("ing") else following


def _one_verb(reading_a: Reading, reading_b: Reading) -> bool:
    """Whether two clauses say what they say by one predicate ("works at" / "now works
    at"): other verbs in a fragment with no subject ("switched to VS Code" / "Moved to
    Boulder") are no slot of one subject. Not predicates.same_predicate, where a verb that
    sets any slot ("switched to") is one with every verb: here it made "Uses Emacs." /
    "No longer uses Vim; switched to VS Code" one slot."""
    predicates = (reading_a.predicate, reading_b.predicate)
    return None not in predicates and predicates[0].name == predicates[1].name


def later_clause(reading: Reading) -> Reading | None:
    """The reading of what follows the first clause, or None where nothing does (or what
    follows is what the clause sets apart: "prefers tea, not coffee")."""
    if reading.denied or reading.clause_end >= len(reading.tokens):
        return None
    rest = _clause_text(reading)[reading.tokens[reading.clause_end].start :].strip()
    return read(rest) if rest else None


def _named(later: Reading, other: Reading, whole: Reading) -> Reading:
    """`later` re-read with the pronoun it opens with standing for what `other` (the
    other memory's later clause) names, where `whole` (the memory `later` ends) names it
    too: "Has a dog named Rex; he is a beagle." / "...; Rex is a beagle.": he is Rex."""
    if (
        len(later.subject) != 1
        or later.subject[0].kind != "pronoun"
        or not other.subject_words
        or not all(found_in(t, whole) for t in other.subject_words)
    ):
        return later
    subject = _clause_text(other)[: other.tokens[other.subject_end].start]
    rest = _clause_text(later)[later.tokens[later.subject_end].start :]
    return read(f"{subject.strip()} {rest}")


def _clause_text(reading: Reading) -> str:
    """The text the tokens' offsets are in (the body less its label)."""
    return reading.body[len(reading.label) :]


def _said_alike(reading_a: Reading, reading_b: Reading) -> bool:
    """The same words, in the same order (a later clause both repeat)."""
    return [t.lemma for t in reading_a.content] == [t.lemma for t in reading_b.content]
