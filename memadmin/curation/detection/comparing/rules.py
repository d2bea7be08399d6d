"""What a candidate pair becomes: an exact collapse, an automatic merge, a cluster for
review, a conflict, or nothing. No LLM here (curation.llm_verdicts asks one about the
pairs this leaves in doubt).

The judgement reads each memory as a clause (curation.detection.reading) and compares
the two (curation.detection.frames): two subjects, two predicates, two events or two
values of a slot that holds several are two facts; one statement asserted and denied, or
a slot that holds one value given two, is a conflict; one statement, with or without
added detail, is proposed for review when the similarity says so, and merged with no
review only when nothing differs (`automatic_merge`). Where the readings are not sure,
the similarity signals decide as they did before the readings (`_by_signals`): the
embedding cosine and the namespace's TF-IDF containment, key-token differences, polarity
and the different-things readers of curation.detection.keytokens.

Nothing here needs tags or categories: metadata may only veto (the documented guards of
curation.detection.guards) or protect a memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.conf import settings

from memadmin.curation.detection.comparing import alignment, contrast, frames, matching
from memadmin.curation.detection.reading import clause as reading
from memadmin.curation.detection.reading import keytokens, lexical, polarity
from memadmin.curation.detection.scoring import guards
from memadmin.store.lexicon import languages_differ


@dataclass(frozen=True)
class Thresholds:
    """Every number a judgement uses; defaults from settings (calibrated on labelled data
    for all-MiniLM-L6-v2: see the README's calibration section)."""

    auto_merge: float  # cosine at or above which a clean pair may merge without review
    auto_merge_enabled: bool
    review: float  # combined similarity at or above which a pair is proposed
    candidate: float  # cosine floor of the vector layer
    conflict: float  # similarity from which a pair is "same subject" (for conflicts)
    conflict_slot: float  # overlap, values set aside, from which a difference is a conflict
    neighbours: int  # k of the vector layer: each memory's nearest by MiniLM
    multi_neighbours: int  # each memory's nearest by the multilingual model
    cjk_share: float  # from this share of CJK letters, a text is compared lexically
    # The multilingual model's own thresholds (its cosines sit in a compressed band).
    multi_candidate: float  # its floor for candidate pairs
    multi_review: float  # a same-language pair it proposes for review
    multi_cross: float  # a pair across languages it proposes for review
    multi_subject: float  # a pair across languages it calls one subject
    multi_conflict: float  # across languages, a stance and its opposite: one subject
    # Below align_until, a pair proposed by similarity must also pair up the words each
    # side adds (curation.detection.alignment) at align_floor or more.
    align_until: float
    align_floor: float
    # The tiers of the calibrated model (curation.detection.confidence), as probabilities:
    # proposed from propose_*, possible from possible_*; an automatic merge needs
    # P(one fact) >= auto_confidence as well as the rules' strict check.
    propose_one: float
    propose_conflict: float
    possible_one: float
    possible_conflict: float
    auto_confidence: float

    @classmethod
    def from_settings(cls) -> Thresholds:
        return cls(
            auto_merge=settings.DEDUP_AUTO_MERGE_THRESHOLD,
            auto_merge_enabled=settings.DEDUP_AUTO_MERGE,
            review=settings.DEDUP_REVIEW_THRESHOLD,
            candidate=settings.DEDUP_CANDIDATE_THRESHOLD,
            conflict=settings.DEDUP_CONFLICT_THRESHOLD,
            conflict_slot=settings.DEDUP_CONFLICT_SLOT,
            neighbours=settings.DEDUP_NEIGHBOURS,
            multi_neighbours=settings.DEDUP_MULTI_NEIGHBOURS,
            cjk_share=settings.DEDUP_CJK_SHARE,
            multi_candidate=settings.DEDUP_MULTI_CANDIDATE_THRESHOLD,
            multi_review=settings.DEDUP_MULTI_REVIEW_THRESHOLD,
            multi_cross=settings.DEDUP_MULTI_CROSS_THRESHOLD,
            multi_subject=settings.DEDUP_MULTI_SUBJECT_THRESHOLD,
            multi_conflict=settings.DEDUP_MULTI_CONFLICT_THRESHOLD,
            align_until=settings.DEDUP_ALIGN_UNTIL,
            align_floor=settings.DEDUP_ALIGN_FLOOR,
            propose_one=settings.DEDUP_PROPOSE_ONE,
            propose_conflict=settings.DEDUP_PROPOSE_CONFLICT,
            possible_one=settings.DEDUP_POSSIBLE_ONE,
            possible_conflict=settings.DEDUP_POSSIBLE_CONFLICT,
            auto_confidence=settings.DEDUP_AUTO_CONFIDENCE,
        )


# A pair this alike merges with no review even where a word differs in form (every
# guard still passes, and no reader sees a difference): seed 004 saw 0.93 merge
# "Hetzner" with "Railway"; near-exact only.
NEAR_EXACT = 0.98


class Verdict:
    EXACT = "exact"  # same normalised text: collapse into the representative
    AUTO_MERGE = "auto_merge"  # nothing differs, every guard passes: merge, undoable
    REVIEW = "review"  # a cluster for a curator
    CONFLICT = "conflict"  # same subject and slot, they disagree
    DISTINCT = "distinct"  # nothing to do


@dataclass
class PairJudgement:
    verdict: str
    similarity: float  # the combined score shown to reviewers
    cosine: float
    lexical: float
    method: str  # exact | vector | lexical | multilingual
    reasons: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)  # why a person must look: protected...
    conflict_kind: str = ""  # contradiction | update
    differing_tokens: list[str] = field(default_factory=list)
    # A conflict, two facts or a metadata guard: the two may never share a cluster,
    # whatever their other members say.
    never_together: bool = False
    decided_by: str = "rule"  # rule | llm | human (a cached verdict)
    # What the readers found on the way (curation.detection.evidence reads them): the
    # relation of the two clause readings, and for a pair whose values differ, the
    # overlap of the texts with those values set aside and whether it reads as one slot.
    relation: frames.Relation | None = None
    slot_overlap: float | None = None
    one_slot: bool = False
    # What the calibrated model made of the evidence (curation.detection.confidence):
    # P(one fact), P(conflict), P(two facts); None for an exact copy (no doubt there).
    probabilities: tuple[float, float, float] | None = None
    tier: str = ""  # proposed | possible, for a cluster edge or a conflict
    rule_verdict: str = ""  # what the rules alone said, before the model
    rule_conflict_kind: str = ""
    rule_reasons: tuple[str, ...] = ()
    findings: tuple[str, ...] = ()  # the readers' findings, as a reviewer reads them
    evidence: object = None  # the evidence values (asked again to explain or ask the LLM)
    llm_answer: str = ""  # what the LLM answered of the pair, when it was asked

    @property
    def confidence(self) -> float:
        """The probability of what the pair became: one fact for a cluster edge (or an
        automatic merge), a conflict for a conflict, two facts for nothing."""
        if self.probabilities is None:
            return 1.0
        p_one, p_conflict, p_two = self.probabilities
        if self.verdict == Verdict.CONFLICT:
            return p_conflict
        if self.verdict in (Verdict.REVIEW, Verdict.AUTO_MERGE):
            return p_one
        return p_two

    @property
    def p_one(self) -> float:
        return 1.0 if self.probabilities is None else self.probabilities[0]

    def conflict_fields(self) -> dict:
        """What decisions.open_conflict records of a conflict judgement."""
        return {
            "kind": self.conflict_kind,
            "reason": "; ".join(self.reasons),
            "differing_tokens": self.differing_tokens,
            "detected_by": self.decided_by,
            "tier": self.tier or "proposed",
            "confidence": round(float(self.confidence), 4),
            "evidence": list(self.findings),
        }


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


def judge_pair(
    a,
    b,
    *,
    cosine: float,
    tfidf: lexical.TfIdf,
    thresholds: Thresholds,
    multi: float | None = None,
    user_names: frozenset[str] = frozenset(),
) -> PairJudgement:
    """What a candidate pair becomes. `a` is the older memory; `cosine` is MiniLM's,
    `multi` the multilingual model's (None where a side has no vector of it);
    `user_names` the names the namespace's user goes by (see `user_names`)."""
    if a.content_hash == b.content_hash:
        return _judge_exact(a, b)
    similarity, containment, method = similarity_of(a, b, cosine, tfidf, thresholds)
    judgement = PairJudgement(Verdict.DISTINCT, similarity, cosine, containment, method)
    reading_a, reading_b = reading.read(a.content), reading.read(b.content)
    cross = languages_differ(a.content, b.content)
    relation = frames.compare(reading_a, reading_b, user_names=user_names)
    judgement.relation = relation
    if relation.two_facts:
        judgement.reasons.append(_describe(relation))
        judgement.never_together = True
        return judgement
    if relation.kind in (frames.OPPOSITE, frames.NEW_VALUE):
        # Across languages the words cannot be matched: the multilingual model must place
        # a stance and its opposite on one subject.
        # A value that changed in a slot both name needs no more than the slot.
        floor = thresholds.multi_conflict if relation.kind == frames.OPPOSITE else 0.0
        if not cross or (multi is not None and multi >= floor):
            return _conflict(judgement, relation, reading_b)
        relation = frames.Relation(frames.UNREAD)
    body_a, body_b = reading_a.body, reading_b.body
    # The readings compare the first clause; a value another clause gives is the key
    # tokens' to compare.
    more_clauses = any(r.clause_end < len(r.tokens) for r in (reading_a, reading_b))
    if relation.kind == frames.UNREAD or (
        more_clauses and contrast.key_token_differences(body_a, body_b)
    ):
        decided = _by_signals(a, b, judgement, tfidf, thresholds, multi=multi, cross=cross)
        if decided is not None:
            return decided
    return _one_statement(a, b, judgement, relation, thresholds, multi=multi, cross=cross)


def _conflict(judgement: PairJudgement, relation: frames.Relation, newer) -> PairJudgement:
    judgement.verdict = Verdict.CONFLICT
    judgement.conflict_kind = "update" if relation.update or newer.change else "contradiction"
    judgement.differing_tokens = [relation.detail] if relation.detail else []
    judgement.reasons.append(_describe(relation))
    judgement.never_together = True
    return judgement


_DESCRIPTIONS = {
    frames.OPPOSITE: "the same statement, one side denies or reverses it",
    frames.NEW_VALUE: "one slot, two values",
    frames.OTHER_VALUE: "two values of a slot that holds several, or two attributes",
    frames.OTHER_SUBJECT: "two subjects",
    frames.OTHER_PREDICATE: "another predicate of one subject",
    frames.EVENTS: "two events",
}


def _describe(relation: frames.Relation) -> str:
    said = _DESCRIPTIONS.get(relation.kind, relation.kind)
    return f"{said}: {relation.detail}" if relation.detail else said


def _one_statement(a, b, judgement, relation, thresholds, *, multi, cross) -> PairJudgement:
    """A pair that says one thing (or that nothing tells apart): guards first, then an
    automatic merge when nothing at all differs, else review when similar enough."""
    guard = guards.metadata_guard(a, b)
    if guard:
        judgement.reasons.append(guard)
        judgement.never_together = True
        return judgement
    protected = guards.is_protected(a) or guards.is_protected(b)
    if (
        thresholds.auto_merge_enabled
        and not protected
        and judgement.method == "vector"
        and automatic_merge(a.content, b.content, cosine=judgement.cosine, thresholds=thresholds)
    ):
        judgement.verdict = Verdict.AUTO_MERGE
        judgement.reasons.append(f"nothing differs (cosine {judgement.cosine:.3f})")
        return judgement
    if multi is not None and (cross or judgement.method == "vector"):
        floor = thresholds.multi_cross if cross else thresholds.multi_review
        scaled = on_review_scale(multi, floor, thresholds)
        if multi >= floor and scaled > judgement.similarity:
            # The multilingual model reads what MiniLM cannot: another language, or a
            # paraphrase in other words.
            judgement.similarity = scaled
            judgement.method = "multilingual"
            judgement.reasons.append(f"multilingual cosine {multi:.3f} >= {floor}")
    if (
        thresholds.review <= judgement.similarity < thresholds.align_until
        and judgement.method in ("vector", "multilingual")
        and not cross
        and relation.kind not in (frames.SAME, frames.REFINES)
    ):
        # A pair that shares little: a reworded fact pairs up its other words, two facts
        # about one subject do not (curation.detection.alignment).
        aligned = alignment.word_alignment(a.content, b.content)
        if aligned is not None and aligned < thresholds.align_floor:
            judgement.reasons.append(
                f"the words each adds mean other things (alignment {aligned:.2f})"
            )
            return judgement
    if judgement.similarity >= thresholds.review:
        judgement.verdict = Verdict.REVIEW
        if judgement.method != "multilingual":
            judgement.reasons.append(
                f"similarity {judgement.similarity:.3f} >= {thresholds.review}"
            )
        if relation.kind == frames.REFINES:
            judgement.reasons.append(f"one adds detail: {relation.detail}")
        if protected:
            judgement.flags.append("protected")
    return judgement


def automatic_merge(text_a: str, text_b: str, *, cosine: float, thresholds: Thresholds) -> bool:
    """Whether two texts may merge with no person looking (the guards and protection are
    the caller's): every content word of each side has its counterpart on the other, in
    the same order (the same lemma, value or name, or a word of the same class of
    predicate: "loves" / "enjoys"), with the same sign and at a cosine of at least the
    automatic threshold; or a cosine of NEAR_EXACT with no difference any reader sees.
    Either way the names and values must keep their roles (matching.roles_kept: "A is
    our champion at B" / "B is our champion at A" are two facts).
    The batch run, write time and the API all decide through this one function."""
    if cosine < thresholds.auto_merge:
        return False
    reading_a, reading_b = reading.read(text_a), reading.read(text_b)
    if reading_a.language != reading_b.language or reading_a.sign != reading_b.sign:
        return False
    if reading_a.change != reading_b.change or reading_a.event != reading_b.event:
        return False
    if contrast.key_token_differences(reading_a.body, reading_b.body):
        return False
    if contrast.polarity_difference(reading_a.body, reading_b.body):
        return False
    if not matching.roles_kept(reading_a, reading_b):
        return False  # the same words in other roles: two facts
    if matching.words_in_order(reading_a, reading_b):
        return True
    return cosine >= NEAR_EXACT and frames.compare(reading_a, reading_b).kind == frames.SAME


# --- Where the readings are not sure: the similarity signals ------------------------------


def _by_signals(a, b, judgement, tfidf, thresholds, *, multi, cross) -> PairJudgement | None:
    """The judgement by similarity and the key-token readers, for pairs the clause
    readings cannot place: a conflict, two facts (returned), or None (go on as one
    statement). Texts are read without their reporting preambles."""
    body_a, body_b = reading.read(a.content).body, reading.read(b.content).body
    similarity = judgement.similarity
    # e5 is compressed (unrelated memories 0.72-0.8): it vouches for one subject only
    # across languages, where MiniLM cannot read one side.
    multi_subject = cross and multi is not None and multi >= thresholds.multi_subject
    same_subject = similarity >= thresholds.conflict or multi_subject
    subjects = contrast.different_subjects(body_a, body_b)
    if subjects:
        # "pve1 has 64 GB RAM" / "pve2 has 32 GB RAM": two things, neither one fact
        # nor a changed one.
        judgement.reasons.append(f"different subjects: {subjects[0]} / {subjects[1]}")
        judgement.never_together = True
        return judgement
    differences = contrast.key_token_differences(body_a, body_b)
    opposed = contrast.polarity_difference(body_a, body_b)
    newer_changes = polarity.announces_change(body_b)

    # "prefers Python for scripts" / "works at Veolia": values differ because the facts
    # do; once the values are set aside, a changed fact still reads the same (one slot).
    # Across languages the words cannot coincide: the multilingual model says whether
    # the two fill one slot.
    if differences and not cross:
        judgement.slot_overlap = slot_overlap(body_a, body_b, differences, tfidf)

    def one_slot(values) -> bool:
        if cross:
            return multi_subject
        if values is differences:
            return judgement.slot_overlap >= thresholds.conflict_slot
        return slot_overlap(body_a, body_b, values, tfidf) >= thresholds.conflict_slot

    same_slot = bool(differences) and one_slot(differences)
    judgement.one_slot = same_slot
    added = _added_values(body_a, body_b) if newer_changes else []
    changed = bool(added) and one_slot(added)
    if (
        (differences or opposed or changed)
        and not cross  # parallel wording says nothing across languages
        and (things := contrast.different_things(body_a, body_b))
    ):
        # Parallel sentences about two things ("Grip force for the plastic bottle is
        # 8 N" / "... for the glass bottle is 20 N"): no conflict, and never one fact.
        judgement.reasons.append(f"different things: {things}")
        judgement.never_together = True
        return judgement
    if same_subject and ((differences and (same_slot or opposed)) or opposed or changed):
        judgement.verdict = Verdict.CONFLICT
        judgement.differing_tokens = [as_written(d, body_a, body_b) for d in differences] + (
            [opposed] if opposed else []
        )
        judgement.conflict_kind = "update" if newer_changes else "contradiction"
        judgement.never_together = True
        judgement.reasons.append(
            "; ".join(judgement.differing_tokens) or "the newer memory announces a change"
        )
        return judgement
    if differences:
        # Each says a value the other lacks: two facts, never one (a paraphrase keeps
        # its values; added detail is a value on one side only).
        judgement.reasons.append(f"different values: {as_written(differences[0], body_a, body_b)}")
        judgement.never_together = True
        return judgement
    return None


def as_written(difference: contrast.KeyTokenDifference, text_a: str, text_b: str) -> str:
    """A key-token difference as the texts write it ("quantity (length): 42 cm / 45 cm",
    not the canonical "0.42 vs 0.45"), for reasons people read."""
    measure = difference.kind.removeprefix("quantity (").removesuffix(")")
    kind = "quantity" if measure != difference.kind else difference.kind

    def written(values, text) -> str:
        tokens, words = keytokens.key_tokens(text), keytokens.words_of(text)
        said = []
        for value in values:
            wanted = f"{measure}={value}" if kind == "quantity" else value
            found = next((t for t in tokens if t.kind == kind and t.value == wanted), None)
            if found is None or found.position >= len(words):
                said.append(value)
                continue
            base = found.written or words[found.position].raw
            if found.position + 1 < len(words):
                # "3 am": the word after it when only both read as the value.
                longer = f"{base} {words[found.position + 1].raw}"
                if found in keytokens.key_tokens(longer) and found not in keytokens.key_tokens(
                    base
                ):
                    base = longer
            said.append(base)
        return ", ".join(said)

    return (
        f"{difference.kind}: {written(difference.only_in_a, text_a)} / "
        f"{written(difference.only_in_b, text_b)}"
    )


def _judge_exact(a, b) -> PairJudgement:
    judgement = PairJudgement(Verdict.EXACT, 1.0, 1.0, 1.0, "exact", ["same normalised text"])
    guard = guards.metadata_guard(a, b)
    if guard and not guard.startswith("different session"):
        # The same words from another source or category: shown, never collapsed.
        judgement.verdict = Verdict.REVIEW
        judgement.flags.append(f"guard: {guard}")
    elif guards.is_protected(a) or guards.is_protected(b):
        judgement.verdict = Verdict.REVIEW
        judgement.flags.append("protected")
    return judgement


# Values that say when a fact was stated or changed, not what it is about.
WHEN_KINDS = frozenset({"date", "weekday", "month"})


def slot_overlap(text_a: str, text_b: str, differences, tfidf: lexical.TfIdf) -> float:
    """The containment of two texts with the values that differ set aside, and the values
    of a kind only one text has ("updated on 2025-11-18": when, not what): their words
    as written, but of a quantity only its number (the unit is the slot: "minutes of
    runtime")."""
    kinds = {d.kind for d in differences}
    tokens_a, tokens_b = keytokens.key_tokens(text_a), keytokens.key_tokens(text_b)
    one_sided = ({t.kind for t in tokens_a} ^ {t.kind for t in tokens_b}) & WHEN_KINDS
    written = []
    for token in tokens_a | tokens_b:
        if token.kind == "quantity":
            if f"quantity ({token.value.split('=')[0]})" in kinds:
                written.append(re.sub(r"[^\d.,]+", " ", token.written))
        elif token.kind in one_sided or (token.kind in kinds and token.kind != "name"):
            written.append(token.written or token.value)
    values = [v for d in differences for v in (*d.only_in_a, *d.only_in_b)]
    ignore = frozenset(lexical.terms(" ".join(written + values)))
    return tfidf.containment(text_a, text_b, ignore=ignore)


def _added_values(older: str, newer: str) -> list[contrast.KeyTokenDifference]:
    """The values the newer text brings of a kind the older also has (a new value beside
    the old one: "now listens on 9100 (8080 clashed)"), as differences from the older
    values the newer does not repeat."""
    old_tokens = keytokens.key_tokens(older)
    new_tokens = keytokens.key_tokens(newer)
    old_kinds = {token.kind for token in old_tokens}
    across = reading.read(older).language != reading.read(newer).language
    added = {
        token
        for token in new_tokens - old_tokens
        if token.kind in old_kinds
        and not (token.kind == "name" and contrast.keeps_name(token.value, older, across=across))
    }
    return [
        contrast.KeyTokenDifference(
            kind,
            tuple(sorted(t.value for t in old_tokens - new_tokens if t.kind == kind)),
            tuple(sorted(t.value for t in added if t.kind == kind)),
        )
        for kind in sorted({t.kind for t in added})
    ]
