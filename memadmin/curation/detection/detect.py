"""Candidate pairs within one namespace, in layers, and the rule-based judgement of a pair.

Layers: exact (normalised content hash), vector (cosine over stored embeddings: an exact
blocked matrix product in numpy, or pgvector's HNSW index for the k nearest), and lexical
(shared rare terms, for text the English embedding model cannot read, such as Chinese).

Judgement (no LLM): the embedding cosine and the namespace's TF-IDF containment are
averaged into one similarity; metadata guards, key-token differences and polarity decide
what a close pair becomes: an exact collapse, an automatic merge, a cluster for review, a
conflict, or nothing.
"""

from __future__ import annotations

import multiprocessing
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings

from memadmin.curation.detection import alignment, guards, keytokens, lexical
from memadmin.store.lexicon import language_of


@dataclass(frozen=True)
class Thresholds:
    """Every number a judgement uses; defaults from settings (calibrated on labelled data
    for all-MiniLM-L6-v2: see the README's calibration section)."""

    auto_merge: float  # cosine at or above which a clean pair merges without review
    auto_merge_enabled: bool
    review: float  # combined similarity at or above which a pair is proposed
    cluster_floor: float  # every pair inside a cluster must reach this
    candidate: float  # cosine floor of the vector layer
    conflict: float  # similarity from which a pair is "same subject" (for conflicts)
    conflict_slot: float  # overlap, values set aside, from which a difference is a conflict
    neighbours: int  # k of the vector layer
    require_shared_tag: bool
    cjk_share: float  # from this share of CJK letters, a text is compared lexically
    # The multilingual model's own thresholds (its cosines sit in a compressed band).
    multi_candidate: float  # its floor for candidate pairs
    multi_review: float  # a same-language pair it proposes for review
    multi_cross: float  # a pair across languages it proposes for review
    multi_subject: float  # a pair it calls same subject (a differing value: a conflict)
    # Below align_until, a pair proposed by similarity must also pair up the words each
    # side adds (curation.alignment) at align_floor or more.
    align_until: float
    align_floor: float

    @classmethod
    def from_settings(cls) -> Thresholds:
        return cls(
            auto_merge=settings.DEDUP_AUTO_MERGE_THRESHOLD,
            auto_merge_enabled=settings.DEDUP_AUTO_MERGE,
            review=settings.DEDUP_REVIEW_THRESHOLD,
            cluster_floor=settings.DEDUP_CLUSTER_FLOOR,
            candidate=settings.DEDUP_CANDIDATE_THRESHOLD,
            conflict=settings.DEDUP_CONFLICT_THRESHOLD,
            conflict_slot=settings.DEDUP_CONFLICT_SLOT,
            neighbours=settings.DEDUP_NEIGHBOURS,
            require_shared_tag=settings.DEDUP_REQUIRE_SHARED_TAG,
            cjk_share=settings.DEDUP_CJK_SHARE,
            multi_candidate=settings.DEDUP_MULTI_CANDIDATE_THRESHOLD,
            multi_review=settings.DEDUP_MULTI_REVIEW_THRESHOLD,
            multi_cross=settings.DEDUP_MULTI_CROSS_THRESHOLD,
            multi_subject=settings.DEDUP_MULTI_SUBJECT_THRESHOLD,
            align_until=settings.DEDUP_ALIGN_UNTIL,
            align_floor=settings.DEDUP_ALIGN_FLOOR,
        )


# --- Candidate pairs ---------------------------------------------------------------------


def exact_groups(hashes: Sequence[str]) -> list[list[int]]:
    """Positions sharing a content hash, for every hash seen more than once."""
    positions: dict[str, list[int]] = defaultdict(list)
    for position, content_hash in enumerate(hashes):
        positions[content_hash].append(position)
    return [group for group in positions.values() if len(group) > 1]


# The matrix the worker processes read: set before the pool forks, so each worker sees it
# copy-on-write instead of receiving a pickled copy with every block.
_SHARED: dict[str, np.ndarray] = {}


# Columns per tile: a 1,024 x 4,096 float32 tile (16 MB) stays in the L3 cache, where the
# comparison with the floor reads it back; whole rows of 100,000 columns (400 MB) went
# through main memory and ran at 51 GFLOPS per core instead of 89 (measured here).
TILE_COLUMNS = 4096


def _block_pairs(task: tuple[int, int, bool, float]) -> np.ndarray:
    """Pairs (i, j, cosine) with cosine >= floor for queries[start:end] against every
    vector (or, when `triangle`, against the vectors after each query only). The floor is
    applied inside each tile, so the full similarity matrix never exists."""
    start, end, triangle, floor = task
    vectors, queries = _SHARED["vectors"], _SHARED["queries"]
    rows = queries[start:end]
    block = vectors[rows]
    parts = []
    for column in range(int(rows[0]) if triangle else 0, len(vectors), TILE_COLUMNS):
        scores = block @ vectors[column : column + TILE_COLUMNS].T
        # flatnonzero then divmod: 15x faster than a 2-D nonzero (measured).
        flat = np.flatnonzero(scores >= floor)
        if not len(flat):
            continue
        i, j = np.divmod(flat, scores.shape[1])
        i, j, similarity = rows[i], j + column, scores.ravel()[flat]
        keep = j > i if triangle else j != i
        parts.append(np.stack([i[keep], j[keep], similarity[keep]], axis=1))
    return np.concatenate(parts).astype(np.float64) if parts else np.empty((0, 3))


def vector_pairs_exact(
    vectors: np.ndarray,
    query_positions: np.ndarray,
    *,
    floor: float,
    block_size: int | None = None,
    workers: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """Every pair (query, any) with cosine >= floor over unit vectors, as rows (low, high,
    cosine), each unordered pair once. A full run (every position a query) computes the
    upper triangle only. Large namespaces use worker processes (DEDUP_WORKERS): measured
    here, two processes with one BLAS thread each beat one process with two threads.
    `on_progress(done, total)` hears after each block how many of the pairs to compare
    are compared (blocks differ in cost: the triangle's first rows are the longest)."""
    query_positions = np.asarray(query_positions, dtype=np.int64)
    triangle = len(query_positions) == len(vectors)
    if block_size is None:
        # Blocks of 1,024 rows, but at least eight in a small namespace: the triangle
        # only saves work with several blocks (1,000 memories: 5.2 ms instead of 8.5).
        block_size = min(1024, max(128, len(query_positions) // 8))
    tasks = [
        (start, min(start + block_size, len(query_positions)), triangle, floor)
        for start in range(0, len(query_positions), block_size)
    ]
    work = [
        (end - start) * (len(vectors) - (int(query_positions[start]) if triangle else 0))
        for start, end, _, _ in tasks
    ]
    workers = settings.DEDUP_WORKERS if workers is None else workers
    _SHARED.update(vectors=vectors, queries=query_positions)
    parts = []
    try:
        if workers > 1 and len(query_positions) * len(vectors) >= settings.DEDUP_PARALLEL_MIN_WORK:
            context = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(
                max_workers=workers, mp_context=context, initializer=one_blas_thread
            ) as pool:
                for part in pool.map(_block_pairs, tasks):
                    parts.append(part)
                    _report(on_progress, work, len(parts))
        else:
            for task in tasks:
                parts.append(_block_pairs(task))
                _report(on_progress, work, len(parts))
    finally:
        _SHARED.clear()
    pairs = np.concatenate(parts) if parts else np.empty((0, 3))
    if triangle or not len(pairs):
        return pairs
    return _unique_pairs(pairs, query_positions)


def _report(on_progress: Callable[[int, int], None] | None, work: list[int], done: int) -> None:
    if on_progress is not None:
        on_progress(sum(work[:done]), sum(work))


def one_blas_thread() -> None:
    """For a worker process that does its own matrix products: BLAS threads would only
    compete with the other workers (and OpenBLAS's idle threads spin on the cores)."""
    from threadpoolctl import threadpool_limits

    _SHARED["limits"] = threadpool_limits(1)


def _unique_pairs(pairs: np.ndarray, query_positions: np.ndarray) -> np.ndarray:
    """Drop the mirrored copy of a pair found from both of its ends."""
    is_query = np.zeros(int(max(pairs[:, :2].max(), query_positions.max())) + 1, dtype=bool)
    is_query[query_positions] = True
    i, j = pairs[:, 0].astype(np.int64), pairs[:, 1].astype(np.int64)
    # A pair of two queries is seen twice: keep the copy with i < j.
    keep = ~is_query[j] | (i < j)
    pairs = pairs[keep]
    low, high = np.minimum(pairs[:, 0], pairs[:, 1]), np.maximum(pairs[:, 0], pairs[:, 1])
    return np.stack([low, high, pairs[:, 2]], axis=1)


def lexical_pairs(
    texts: Sequence[str], query_positions: Sequence[int], *, max_postings: int = 200
) -> set[tuple[int, int]]:
    """Pairs (low, high) that share a rare term, for CJK texts only (positions given):
    an inverted index over terms, skipping terms too common to mean anything."""
    postings: dict[str, list[int]] = defaultdict(list)
    for position, text in enumerate(texts):
        for term in set(lexical.terms(text)):
            postings[term].append(position)
    pairs: set[tuple[int, int]] = set()
    for position in query_positions:
        for term in set(lexical.terms(texts[position])):
            others = postings[term]
            if len(others) > max_postings:
                continue
            for other in others:
                if other != position:
                    pairs.add((min(position, other), max(position, other)))
    return pairs


# --- Judgement -----------------------------------------------------------------------------


class Verdict:
    EXACT = "exact"  # same normalised text: collapse into the representative
    AUTO_MERGE = "auto_merge"  # near-identical, every guard passes: merge, undoable
    REVIEW = "review"  # a cluster for a curator
    CONFLICT = "conflict"  # same subject, a key token or polarity differs
    DISTINCT = "distinct"  # nothing to do


@dataclass
class PairJudgement:
    verdict: str
    similarity: float  # the combined score shown to reviewers
    cosine: float
    lexical: float
    method: str  # exact | vector | lexical
    reasons: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)  # why a person must look: protected...
    conflict_kind: str = ""  # contradiction | update
    differing_tokens: list[str] = field(default_factory=list)
    # A conflict or a metadata guard: the two may never share a cluster, whatever their
    # other members say.
    never_together: bool = False
    decided_by: str = "rule"  # rule | llm | human (a cached verdict)

    def conflict_fields(self) -> dict:
        """What decisions.open_conflict records of a conflict judgement."""
        return {
            "kind": self.conflict_kind,
            "reason": "; ".join(self.reasons),
            "differing_tokens": self.differing_tokens,
            "detected_by": self.decided_by,
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
) -> PairJudgement:
    """What a candidate pair becomes. `a` is the older memory; `cosine` is MiniLM's,
    `multi` the multilingual model's (None where a side has no vector of it)."""
    if a.content_hash == b.content_hash:
        return _judge_exact(a, b)
    similarity, containment, method = similarity_of(a, b, cosine, tfidf, thresholds)
    judgement = PairJudgement(Verdict.DISTINCT, similarity, cosine, containment, method)
    cross = language_of(a.content) != language_of(b.content)
    topic = _same_topic(a, b)
    multi_subject = multi is not None and topic and multi >= thresholds.multi_subject
    same_subject = similarity >= thresholds.conflict or multi_subject
    subjects = keytokens.different_subjects(a.content, b.content)
    if subjects:
        # "pve1 has 64 GB RAM" / "pve2 has 32 GB RAM": two things, neither one fact
        # nor a changed one.
        judgement.reasons.append(f"different subjects: {subjects[0]} / {subjects[1]}")
        judgement.never_together = True
        return judgement
    differences = keytokens.key_token_differences(a.content, b.content)
    polarity = keytokens.polarity_difference(a.content, b.content)
    newer_changes = keytokens.announces_change(b.content)

    # "prefers Python for scripts" / "works at Veolia": values differ because the facts
    # do; once the values are set aside, a changed fact still reads the same (one slot).
    # Across languages the words cannot coincide: the multilingual model says whether
    # the two fill one slot.
    def one_slot(values) -> bool:
        if cross:
            return multi_subject
        return _same_slot(a, b, values, tfidf, thresholds)

    same_slot = bool(differences) and one_slot(differences)
    added = _added_values(a, b) if newer_changes else []
    changed = bool(added) and one_slot(added)
    if (
        (differences or polarity or changed)
        and not cross  # parallel wording says nothing across languages
        and (things := keytokens.different_things(a.content, b.content))
    ):
        # Parallel sentences about two things ("Grip force for the plastic bottle is
        # 8 N" / "... for the glass bottle is 20 N"): no conflict, and never one fact.
        judgement.reasons.append(f"different things: {things}")
        judgement.never_together = True
        return judgement
    if same_subject and ((differences and (same_slot or polarity)) or polarity or changed):
        judgement.verdict = Verdict.CONFLICT
        judgement.differing_tokens = [d.describe() for d in differences] + (
            [polarity] if polarity else []
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
        judgement.reasons.append(f"different values: {differences[0].describe()}")
        judgement.never_together = True
        return judgement
    guard = guards.metadata_guard(a, b)
    if guard:
        judgement.reasons.append(guard)
        judgement.never_together = True
        return judgement
    tags_a, tags_b = _topic_tags(a), _topic_tags(b)
    if thresholds.require_shared_tag and tags_a and tags_b and not tags_a & tags_b:
        judgement.reasons.append("no tag in common")
        return judgement
    protected = guards.is_protected(a) or guards.is_protected(b)
    if (
        thresholds.auto_merge_enabled
        and method == "vector"
        and not cross
        and cosine >= thresholds.auto_merge
        and not protected
    ):
        judgement.verdict = Verdict.AUTO_MERGE
        judgement.reasons.append(f"cosine {cosine:.3f} >= {thresholds.auto_merge}")
        return judgement
    if multi is not None and (cross or method == "vector"):
        floor = thresholds.multi_cross if cross else thresholds.multi_review
        scaled = on_review_scale(multi, floor, thresholds)
        if multi >= floor and scaled > similarity:
            # The multilingual model reads what MiniLM cannot: another language, or a
            # paraphrase in other words.
            judgement.similarity = scaled
            judgement.method = "multilingual"
            judgement.reasons.append(f"multilingual cosine {multi:.3f} >= {floor}")
    if (
        thresholds.review <= judgement.similarity < thresholds.align_until
        and judgement.method in ("vector", "multilingual")
        and not cross
    ):
        # A pair that shares little: a reworded fact pairs up its other words, two facts
        # about one subject do not (curation.alignment).
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
        if protected:
            judgement.flags.append("protected")
    return judgement


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


def _same_slot(a, b, differences, tfidf: lexical.TfIdf, thresholds: Thresholds) -> bool:
    """Whether two texts say the same thing about different values: their terms, less the
    values that differ (as written), still largely coincide."""
    return _slot_overlap(a, b, differences, tfidf) >= thresholds.conflict_slot


# Values that say when a fact was stated or changed, not what it is about.
WHEN_KINDS = frozenset({"date", "weekday", "month"})


def _slot_overlap(a, b, differences, tfidf: lexical.TfIdf) -> float:
    """The containment of two texts with the values that differ set aside, and the values
    of a kind only one text has ("updated on 2025-11-18": when, not what): their words
    as written, but of a quantity only its number (the unit is the slot: "minutes of
    runtime")."""
    kinds = {d.kind for d in differences}
    tokens_a, tokens_b = keytokens.key_tokens(a.content), keytokens.key_tokens(b.content)
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
    return tfidf.containment(a.content, b.content, ignore=ignore)


def _same_topic(a, b) -> bool:
    """Same category and source, and a topic tag in common when both have tags: where
    duplicates and conflicts live (a memory store rarely files one fact twice apart)."""
    if a.category != b.category or a.source_ref != b.source_ref:
        return False
    tags_a, tags_b = _topic_tags(a), _topic_tags(b)
    return not (tags_a and tags_b) or bool(tags_a & tags_b)


def _topic_tags(memory) -> set[str]:
    return set(memory.tags) - guards.session_tags(memory)


def _added_values(older, newer) -> list[keytokens.KeyTokenDifference]:
    """The values the newer text brings of a kind the older also has (a new value beside
    the old one: "now listens on 9100 (8080 clashed)"), as differences from the older
    values the newer does not repeat."""
    old_tokens = keytokens.key_tokens(older.content)
    new_tokens = keytokens.key_tokens(newer.content)
    old_kinds = {token.kind for token in old_tokens}
    across = language_of(older.content) != language_of(newer.content)
    added = {
        token
        for token in new_tokens - old_tokens
        if token.kind in old_kinds
        and not (
            token.kind == "name" and keytokens.keeps_name(token.value, older.content, across=across)
        )
    }
    return [
        keytokens.KeyTokenDifference(
            kind,
            tuple(sorted(t.value for t in old_tokens - new_tokens if t.kind == kind)),
            tuple(sorted(t.value for t in added if t.kind == kind)),
        )
        for kind in sorted({t.kind for t in added})
    ]
