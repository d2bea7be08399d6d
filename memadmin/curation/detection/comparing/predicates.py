"""Whether two readings of memories (curation.detection.reading.clause) say one predicate:
one class of the lexicon (or an event that sets the other's: "moved to" sets where one
lives), one verb (or the verb done again: "written" / "rewritten"), a copula on both
sides. Read by frames."""

from __future__ import annotations

from memadmin.curation.detection.comparing.matching import same_word
from memadmin.curation.detection.reading.clause import Reading
from memadmin.curation.detection.reading.words import (
    PredicateClass,
    Token,
    is_copula,
    same_class,
)


def same_predicate(older: Reading, newer: Reading) -> bool:
    """One predicate: one class (or one sets the other), one verb, or a stance the newer
    restates as a change ("wants a window seat" / "now prefers an aisle seat")."""
    if one_class(older.predicate, newer.predicate):
        return True
    if (
        newer.change
        and stance_class(older.predicate)
        and stance_class(newer.predicate)
        and older.predicate.stance == newer.predicate.stance
    ):
        return True
    if older.predicate_at < 0 or newer.predicate_at < 0:
        return False
    verb_a, verb_b = older.tokens[older.predicate_at], newer.tokens[newer.predicate_at]
    return verb_a.lemma == verb_b.lemma or done_again(older, newer)


def one_class(class_a: PredicateClass | None, class_b: PredicateClass | None) -> bool:
    """One predicate: the same class, or an event that sets the other ("moved to" sets
    where one lives)."""
    if class_a is None or class_b is None:
        return False
    if same_class(class_a, class_b):
        return True
    return _sets(class_a, class_b) or _sets(class_b, class_a)


def _sets(event: PredicateClass, state: PredicateClass) -> bool:
    """Whether an event of class `event` gives `state` a new value: "moved to" where one
    lives; "switched", "rescheduled" anything but what is fixed (a name, a birthday)."""
    return state.name in event.sets or ("*" in event.sets and not state.fixed)


def stance_class(found: PredicateClass | None) -> bool:
    return found is not None and found.stance != 0


def done_again(older: Reading, newer: Reading) -> bool:
    """Whether the newer's verb is the older's done again ("written" / "rewritten", "built"
    / "rebuilt"; a participle after a copula: "is painted" / "Repainted"): the same
    predicate, given a new value."""
    if older.predicate_at < 0 or newer.predicate_at < 0:
        return False
    done = older.tokens[older.predicate_at : older.predicate_at + 2]
    if done[0].kind != "verb":
        done = done[:1]  # a copula's participle only
    again = newer.tokens[newer.predicate_at].lemma
    return any(len(t.lemma) > 2 and again in (f"re{t.lemma}", f"re-{t.lemma}") for t in done)


def content_verbs(older: Reading, newer: Reading) -> bool:
    """Both predicates are content words of a class (no copula, no "have")."""
    return all(
        r.predicate is not None
        and r.predicate.name not in ("be", "have")
        and r.tokens[r.predicate_at].kind != "verb"
        for r in (older, newer)
    )


def copulas(older: Reading, newer: Reading) -> bool:
    return all(r.predicate is not None and r.predicate.name == "be" for r in (older, newer))


def crossed(older: Reading, newer: Reading) -> bool:
    """Two copulas whose sides swapped, each's subject in the other's complement ("PO of
    CEMS: Jana Vogel" / "Jana Vogel is the PO of CEMS"); or one verb in the passive and
    the active, the passive's subject in the active's object ("Node is pinned to 20.11" /
    "The project pins Node 20.11": the active's subject is the agent the passive leaves
    unsaid; not one it names, "Plant Mannheim-2 reports SO2 and NOx" / "NOx readings are
    reported in mg/Nm³": a plant's, against readings in general)."""

    def said_after(token: Token, reading: Reading) -> bool:
        return any(same_word(token, other) for other in reading.objects)

    if not copulas(older, newer):
        passive = [r for r in (older, newer) if _passive(r)]
        active = newer if passive == [older] else older
        return (
            len(passive) == 1
            and active.predicate_at >= 0
            and not any(t.kind in ("name", "value") for t in active.subject_words)
            and passive[0].tokens[passive[0].predicate_at].lemma
            == active.tokens[active.predicate_at].lemma
            and any(said_after(t, active) for t in passive[0].subject_words)
        )
    return any(said_after(t, older) for t in newer.subject_words) and any(
        said_after(t, newer) for t in older.subject_words
    )


def _passive(reading: Reading) -> bool:
    """A predicate after a copula of its own ("is pinned", "was moved")."""
    at = reading.predicate_at
    return at > 0 and is_copula(reading.tokens[at - 1]) and at - 1 >= reading.subject_end


def stance_of_doing(older: Reading, newer: Reading) -> bool:
    """A stance on one side whose object is the other's verb ("Likes to play cricket" /
    "No longer plays cricket", "Loves hiking" / "Hikes a lot"): a hobby said two ways,
    the doing liked and the doing, one predicate."""
    for stance, doing in ((older, newer), (newer, older)):
        if not stance.stance or doing.stance or stance.predicate_at < 0 or doing.predicate_at < 0:
            continue
        after = stance.tokens[stance.predicate_at + 1 : stance.clause_end]
        liked = [t for t in after if t.text != "to"][:1]
        if liked and same_word(liked[0], doing.tokens[doing.predicate_at]):
            return True
    return False
