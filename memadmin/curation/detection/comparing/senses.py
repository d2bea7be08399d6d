"""One verb, two senses: whether two clauses that share a verb (or whose verbs share a
class) use it in the sense of one slot ("works at Acme" / "works remotely": a class that
holds only with its prepositions; "Lives in Porto" / "Moved the office to Lyon": a thing
moved, not the user). Read by frames beside comparing.slots."""

from __future__ import annotations

from memadmin.curation.detection.comparing import alignment
from memadmin.curation.detection.comparing.matching import found_in
from memadmin.curation.detection.reading.clause import Reading
from memadmin.curation.detection.reading.verbs import moves_a_thing
from memadmin.curation.detection.reading.words import Token, class_of, same_class


def held_on_one_side(older: Reading, newer: Reading) -> bool:
    """One verb whose class holds only with its prepositions ("works at", "lives in"):
    one side has it, the other none, where another preposition or a word of manner comes
    after the verb instead, and no value (a value keeps the class away for its own
    reason: "runs 2 replicas in production")."""
    held = [r for r in (older, newer) if r.predicate is not None]
    if len(held) != 1 or not held[0].predicate.preps:
        return False
    other = newer if held[0] is older else older
    if other.predicate_at < 0 or not same_class(
        class_of(other.tokens[other.predicate_at]), held[0].predicate
    ):
        return False
    after = other.tokens[other.predicate_at + 1 : other.clause_end]
    return bool(after) and not any(t.kind == "value" for t in after)


def verb_phrases(older: Reading, newer: Reading) -> str:
    """Each side's verb and the word after it ("work at / work remotely")."""

    def phrase(reading: Reading) -> str:
        at = reading.predicate_at
        return " ".join(t.text for t in reading.tokens[at : min(at + 2, reading.clause_end)])

    return f"{phrase(older)} / {phrase(newer)}"


def state_and_other_verb(class_a, class_b, verb_a: Token, verb_b: Token) -> bool:
    """One side says a state that holds one value (where one lives or works), the other
    a verb of no class, not a synonym of the first."""
    if (class_a is None) == (class_b is None):
        return False
    known = class_a or class_b
    if known.slot != "one" or known.name == "be" or known.stance or known.sets:
        return False
    if verb_a.kind != "word" or verb_b.kind != "word":
        return False  # a copula or a colon: it says too little to tell
    other = verb_b if class_a is not None else verb_a
    if class_of(other) is not None:
        return False  # a word of a class its context did not allow ("deploys with ...")
    return not alignment.synonyms(verb_a.lemma, verb_b.lemma)


def moved_elsewhere(older: Reading, newer: Reading) -> bool:
    """Whether the newer moves a thing the older does not name ("Lives in Porto" / "Moved
    the office to Lyon"): the office's new place, not the user's, another predicate as
    "moved" was before it moved things (the older's thing in other words, "head office" /
    "headquarters", reads so too)."""
    at = newer.predicate_at
    if newer.predicate is None or at < 0 or not moves_a_thing(newer.tokens, at):
        return False
    verb = class_of(newer.tokens[at])
    if verb is None or verb.name != "move":
        return False
    moved = []
    for token in newer.tokens[at + 1 : newer.clause_end]:
        if token.kind in ("function", "marker") and moved:
            break  # "to", "nach": the new place follows
        if token.content:
            moved.append(token)
    return bool(moved) and not any(found_in(t, older) for t in moved)
