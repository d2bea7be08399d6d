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
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings

from memadmin.curation import guards, lexical


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
    block_size: int = 1024,
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
                max_workers=workers, mp_context=context, initializer=_one_blas_thread
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


def _one_blas_thread() -> None:
    # Each worker does its own matrix products: BLAS threads would only compete.
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


def judge_pair(
    a, b, *, cosine: float, tfidf: lexical.TfIdf, thresholds: Thresholds
) -> PairJudgement:
    """What a candidate pair becomes. `a` is the older memory."""
    if a.content_hash == b.content_hash:
        return _judge_exact(a, b)
    similarity, containment, method = similarity_of(a, b, cosine, tfidf, thresholds)
    judgement = PairJudgement(Verdict.DISTINCT, similarity, cosine, containment, method)
    same_subject = similarity >= thresholds.conflict
    differences = guards.key_token_differences(a.content, b.content)
    polarity = guards.polarity_difference(a.content, b.content)
    newer_changes = guards.announces_change(b.content)
    if differences and not polarity and not _same_slot(a, b, differences, tfidf, thresholds):
        # "prefers Python for scripts" / "works at Veolia": the names differ because the
        # facts do; once the values are set aside, a changed fact reads the same.
        differences = []
    if same_subject and (differences or polarity or (newer_changes and _adds_value(a, b))):
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
        and cosine >= thresholds.auto_merge
        and not protected
    ):
        judgement.verdict = Verdict.AUTO_MERGE
        judgement.reasons.append(f"cosine {cosine:.3f} >= {thresholds.auto_merge}")
        return judgement
    if similarity >= thresholds.review:
        judgement.verdict = Verdict.REVIEW
        judgement.reasons.append(f"similarity {similarity:.3f} >= {thresholds.review}")
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
    differing values, still largely coincide."""
    values = " ".join(v for d in differences for v in (*d.only_in_a, *d.only_in_b))
    ignore = frozenset(lexical.terms(values))
    return tfidf.containment(a.content, b.content, ignore=ignore) >= thresholds.conflict_slot


def _topic_tags(memory) -> set[str]:
    return set(memory.tags) - guards.session_tags(memory)


def _adds_value(older, newer) -> bool:
    """Whether the newer text brings a key token of a kind the older also has (a new
    value beside the old one: "now listens on 9100 (8080 clashed)")."""
    old_tokens, new_tokens = guards.key_tokens(older.content), guards.key_tokens(newer.content)
    old_kinds = {token.kind for token in old_tokens}
    return any(token.kind in old_kinds for token in new_tokens - old_tokens)
