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
from memadmin.curation.detection.comparing.relations import EVENTS, SAME, Relation
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
