"""What the rules read of a candidate pair: an exact copy, near-identical texts that may
merge with no review, one statement, a conflict, or two facts. This is a reading, not a
decision: it is one part of the pair's evidence (curation.detection.comparing.evidence),
and the pair model weighs it with the rest (curation.detection.scoring). No LLM here.

The rules read each memory as a clause (curation.detection.reading.clause) and compare
the two (curation.detection.comparing.frames): two subjects, two predicates, two events or
two values of a slot that holds several are two facts; one statement asserted and
denied, or a slot that holds one value given two, is a conflict; one statement, with or
without added detail, is one fact when the similarity says so, and may merge with no
review only when nothing differs (`automatic_merge`). Where the readings are not sure,
the similarity signals read the pair (`_by_signals`): the embedding cosine and the
namespace's TF-IDF containment, key-token differences, polarity and the different-things
readers of curation.detection.comparing.contrast.

Nothing here needs tags or categories: metadata may only veto (the operator's guards of
curation.detection.guards) or protect a memory.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from memadmin.curation.detection import guards
from memadmin.curation.detection.comparing import (
    alignment,
    contrast,
    frames,
    later,
    opposites,
    order,
    relations,
)
from memadmin.curation.detection.comparing.relations import Relation
from memadmin.curation.detection.reading import lexical, polarity, roles
from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.detection.verdicts import Verdict
from memadmin.store.lexicon import languages_differ

# A pair this alike merges with no review even where a word differs in form (every
# guard still passes, and no reader sees a difference): seed 004 saw 0.93 merge
# "Hetzner" with "Railway"; near-exact only.
NEAR_EXACT = 0.98


@dataclass(frozen=True)
class RuleReading:
    """What the rules read of a pair: the verdict they would give, the similarity shown to
    reviewers, and what the readers found on the way (the relation of the two clause
    readings; for a pair whose values differ, the overlap of the texts with those values
    set aside, and whether it reads as one slot)."""

    verdict: str
    similarity: float  # the combined score shown to reviewers
    cosine: float
    lexical: float
    method: str  # exact | vector | lexical | multilingual
    reasons: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()  # why a person must look: protected, a guard
    conflict_kind: str = ""  # contradiction | update
    differing_tokens: tuple[str, ...] = ()
    # A conflict, two facts or a metadata guard: the two may never share a cluster.
    never_together: bool = False
    relation: Relation | None = None
    slot_overlap: float | None = None
    one_slot: bool = False

    def saying(self, reason: str, **changes) -> RuleReading:
        """This reading with one more reason (and any other field changed)."""
        return replace(self, reasons=(*self.reasons, reason), **changes)


def similarity_of(a, b, cosine: float, tfidf: lexical.TfIdf, thresholds: Thresholds):
    """(combined similarity, lexical score, method) of a pair. Text the embedding model
    cannot read (mostly CJK) is compared by its terms alone."""
    containment = tfidf.containment(a.content, b.content)
    if max(lexical.cjk_share(a.content), lexical.cjk_share(b.content)) >= thresholds.cjk_share:
        return containment, containment, "lexical"
    return (cosine + containment) / 2, containment, "vector"


def on_review_scale(multi: float, anchor: float, thresholds: Thresholds) -> float:
    """The multilingual cosine moved onto the review scale (the rule's own threshold,
    `anchor`, lands on the review threshold, 1.0 on 1.0): e5's cosines sit in a
    compressed band, and the cluster floor must mean one thing for every pair."""
    span = (1.0 - thresholds.review) / (1.0 - anchor)
    return max(0.0, min(1.0, thresholds.review + (multi - anchor) * span))


def read_pair(
    a,
    b,
    *,
    cosine: float,
    tfidf: lexical.TfIdf,
    thresholds: Thresholds,
    multi: float | None = None,
    user_names: frozenset[str] = frozenset(),
) -> RuleReading:
    """What the rules read of a candidate pair. `a` is the older memory; `cosine` is
    MiniLM's, `multi` the multilingual model's (None where a side has no vector of it);
    `user_names` the names the namespace's user goes by."""
    if a.content_hash == b.content_hash:
        return _exact(a, b)
    similarity, containment, method = similarity_of(a, b, cosine, tfidf, thresholds)
    reading_a, reading_b = roles.read_both(a.content, b.content)
    cross = languages_differ(a.content, b.content)
    relation = frames.compare(reading_a, reading_b, user_names=user_names)
    relation = later.of_later_clauses(reading_a, reading_b, relation, user_names)
    relation = later.of_next_clause(reading_a, reading_b, relation, user_names)
    relation = opposites.reversed_values(relation, reading_a, reading_b)
    found = RuleReading(Verdict.DISTINCT, similarity, cosine, containment, method)
    found = replace(found, relation=relation)
    if relation.two_facts:
        return found.saying(relation.said(), never_together=True)
    if relation.kind in (relations.OPPOSITE, relations.NEW_VALUE):
        # Across languages the words cannot be matched: the multilingual model must place
        # a stance and its opposite on one subject.
        # A value that changed in a slot both name needs no more than the slot.
        floor = thresholds.multi_conflict if relation.kind == relations.OPPOSITE else 0.0
        if not cross or (multi is not None and multi >= floor):
            return _conflict(found, relation, reading_b)
        relation = Relation(relations.UNREAD)
    body_a, body_b = reading_a.body, reading_b.body
    # The readings compare the first clause; a value another clause gives is the key
    # tokens' to compare.
    more_clauses = any(r.clause_end < len(r.tokens) for r in (reading_a, reading_b))
    if relation.kind == relations.UNREAD or (
        more_clauses and contrast.key_token_differences(body_a, body_b)
    ):
        found, decided = _by_signals(found, body_a, body_b, tfidf, thresholds, multi, cross)
        if decided:
            return found
    return _one_statement(a, b, found, relation, thresholds, multi=multi, cross=cross)


def _conflict(found: RuleReading, relation: Relation, newer) -> RuleReading:
    return found.saying(
        relation.said(),
        verdict=Verdict.CONFLICT,
        conflict_kind="update" if relation.update or newer.change else "contradiction",
        differing_tokens=(relation.detail,) if relation.detail else (),
        never_together=True,
    )


def _one_statement(a, b, found, relation, thresholds, *, multi, cross) -> RuleReading:
    """A pair that says one thing (or that nothing tells apart): guards first, then an
    automatic merge when nothing at all differs, else one fact when similar enough."""
    guard = guards.metadata_guard(a, b)
    if guard:
        return found.saying(guard, never_together=True)
    protected = guards.is_protected(a) or guards.is_protected(b)
    if (
        thresholds.auto_merge_enabled
        and not protected
        and found.method == "vector"
        and automatic_merge(a.content, b.content, cosine=found.cosine, thresholds=thresholds)
    ):
        return found.saying(
            f"nothing differs, and the meaning is alike ({found.cosine:.2f})",
            verdict=Verdict.AUTO_MERGE,
        )
    if multi is not None and (cross or found.method == "vector"):
        floor = thresholds.multi_cross if cross else thresholds.multi_review
        scaled = on_review_scale(multi, floor, thresholds)
        if multi >= floor and scaled > found.similarity:
            # The multilingual model reads what MiniLM cannot: another language, or a
            # paraphrase in other words (the reason says which: a curator reading "across
            # languages" under two English sentences would look for what is not there).
            how = "across languages" if cross else "in other words"
            found = found.saying(
                f"alike in meaning {how} ({multi:.2f}; alike from {floor:.2f})",
                similarity=scaled,
                method="multilingual",
            )
    if (
        thresholds.review <= found.similarity < thresholds.align_until
        and found.method in ("vector", "multilingual")
        and not cross
        and relation.kind not in (relations.SAME, relations.REFINES)
    ):
        # A pair that shares little: a reworded fact pairs up its other words, two facts
        # about one subject do not (curation.detection.comparing.alignment).
        aligned = alignment.word_alignment(a.content, b.content)
        if aligned is not None and aligned < thresholds.align_floor:
            return found.saying(f"the words each adds mean other things ({aligned:.2f} alike)")
    if found.similarity < thresholds.review:
        return found
    found = replace(found, verdict=Verdict.REVIEW)
    if found.method != "multilingual":
        found = found.saying(
            f"alike in meaning and words ({found.similarity:.2f}; "
            f"alike from {thresholds.review:.2f})"
        )
    if relation.kind == relations.REFINES:
        found = found.saying(relation.said())
    if protected:
        found = replace(found, flags=(*found.flags, "protected"))
    return found


def automatic_merge(text_a: str, text_b: str, *, cosine: float, thresholds: Thresholds) -> bool:
    """Whether two texts may merge with no person looking (the guards and protection are
    the caller's): every content word of each side has its counterpart on the other, in
    the same order (the same lemma, value or name, or a word of the same class of
    predicate: "loves" / "enjoys"), with the same sign and at a cosine of at least the
    automatic threshold; or a cosine of NEAR_EXACT with no difference any reader sees.
    Either way the names and values must keep their roles (order.roles_kept: "A is
    our champion at B" / "B is our champion at A" are two facts).
    The batch run, write time and the API all decide through this one function."""
    if cosine < thresholds.auto_merge:
        return False
    reading_a, reading_b = roles.read_both(text_a, text_b)
    if reading_a.language != reading_b.language or reading_a.sign != reading_b.sign:
        return False
    if reading_a.change != reading_b.change or reading_a.event != reading_b.event:
        return False
    if contrast.key_token_differences(reading_a.body, reading_b.body):
        return False
    if contrast.polarity_difference(reading_a.body, reading_b.body):
        return False
    if not order.roles_kept(reading_a, reading_b):
        return False  # the same words in other roles: two facts
    if order.words_in_order(reading_a, reading_b):
        return True
    if cosine < NEAR_EXACT:
        return False
    relation = frames.compare(reading_a, reading_b)
    return later.of_later_clauses(reading_a, reading_b, relation).kind == relations.SAME


# --- Where the readings are not sure: the similarity signals ------------------------------


def _by_signals(found, body_a, body_b, tfidf, thresholds, multi, cross):
    """The reading by similarity and the key-token readers, for pairs the clause readings
    cannot place (texts read without their reporting preambles): (the reading, True)
    for a conflict or two facts, (the reading with what it found of the slot, False)
    to go on as one statement."""
    # e5 is compressed (unrelated memories 0.72-0.8): it vouches for one subject only
    # across languages, where MiniLM cannot read one side.
    multi_subject = cross and multi is not None and multi >= thresholds.multi_subject
    same_subject = found.similarity >= thresholds.conflict or multi_subject
    subjects = contrast.different_subjects(body_a, body_b)
    if subjects:
        # "pve1 has 64 GB RAM" / "pve2 has 32 GB RAM": two things, neither one fact
        # nor a changed one.
        said = f"{relations.WORDS[relations.OTHER_SUBJECT]}: {subjects[0]} / {subjects[1]}"
        return found.saying(said, never_together=True), True
    differences = contrast.key_token_differences(body_a, body_b)
    opposed = contrast.polarity_difference(body_a, body_b)
    newer_changes = polarity.announces_change(body_b)

    # "prefers Python for scripts" / "works at Veolia": values differ because the facts
    # do; once the values are set aside, a changed fact still reads the same (one slot).
    # Across languages the words cannot coincide: the multilingual model says whether
    # the two fill one slot.
    overlap = None
    if differences and not cross:
        overlap = contrast.slot_overlap(body_a, body_b, differences, tfidf)

    def one_slot(values) -> bool:
        if cross:
            return multi_subject
        if values is differences:
            return overlap >= thresholds.conflict_slot
        return contrast.slot_overlap(body_a, body_b, values, tfidf) >= thresholds.conflict_slot

    same_slot = bool(differences) and one_slot(differences)
    found = replace(found, slot_overlap=overlap, one_slot=same_slot)
    added = contrast.added_values(body_a, body_b) if newer_changes else []
    changed = bool(added) and one_slot(added)
    if (
        (differences or opposed or changed)
        and not cross  # parallel wording says nothing across languages
        and (things := contrast.different_things(body_a, body_b))
    ):
        # Parallel sentences about two things ("Grip force for the plastic bottle is
        # 8 N" / "... for the glass bottle is 20 N"): no conflict, and never one fact.
        return found.saying(f"different things: {things}", never_together=True), True
    if same_subject and ((differences and (same_slot or opposed)) or opposed or changed):
        differing = tuple(
            relations.said_once(contrast.as_written(d, body_a, body_b) for d in differences)
        ) + ((opposed,) if opposed else ())
        conflict = found.saying(
            "; ".join(differing) or "the newer memory announces a change",
            verdict=Verdict.CONFLICT,
            differing_tokens=differing,
            conflict_kind="update" if newer_changes else "contradiction",
            never_together=True,
        )
        return conflict, True
    if differences:
        # Each says a value the other lacks: two facts, never one (a paraphrase keeps
        # its values; added detail is a value on one side only).
        said = f"different values: {contrast.as_written(differences[0], body_a, body_b)}"
        return found.saying(said, never_together=True), True
    return found, False


def _exact(a, b) -> RuleReading:
    found = RuleReading(
        Verdict.EXACT,
        1.0,
        1.0,
        1.0,
        "exact",
        ("the same text, but for case, spaces and punctuation",),
    )
    guard = guards.metadata_guard(a, b)
    if guard and not guard.startswith("different session"):
        # The same words from another source or category: shown, never collapsed.
        return replace(found, verdict=Verdict.REVIEW, flags=(f"guard: {guard}",))
    if guards.is_protected(a) or guards.is_protected(b):
        return replace(found, verdict=Verdict.REVIEW, flags=("protected",))
    return found
