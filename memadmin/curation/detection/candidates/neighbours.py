"""Candidate pairs within one namespace, in layers (what each pair becomes is
curation.detection.comparing and scoring say).

Layers: exact (normalised content hash), vector (cosine over stored embeddings: an exact
blocked matrix product in numpy, or pgvector's HNSW index for the k nearest), and lexical
(shared rare terms, for text the English embedding model cannot read, such as Chinese).
"""

from __future__ import annotations

import multiprocessing
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from django.conf import settings

from memadmin.curation.detection.reading import clause as reading
from memadmin.curation.detection.reading import lexical
from memadmin.store.text import short, text_cache

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


def _block_pairs(task: tuple[int, int, bool, float, int | None]) -> np.ndarray:
    """Pairs (i, j, cosine) with cosine >= floor for queries[start:end] against every
    vector (or, when `triangle`, against the vectors after each query only). The floor is
    applied inside each tile, so the full similarity matrix never exists. With
    `neighbours` (k), a tile that holds more than k pairs a row keeps only each row's and
    each column's k best of it: every memory's k nearest are still among the pairs kept
    (keep_nearest then cuts to them), and a namespace of short texts, whose cosines all
    pass the floor, never holds all its pairs."""
    start, end, triangle, floor, neighbours = task
    vectors, queries = _SHARED["vectors"], _SHARED["queries"]
    rows = queries[start:end]
    block = vectors[rows]
    parts = []
    for column in range(int(rows[0]) if triangle else 0, len(vectors), TILE_COLUMNS):
        scores = block @ vectors[column : column + TILE_COLUMNS].T
        passed = scores >= floor
        if neighbours is not None and passed.sum() > neighbours * len(rows):
            # A pair with itself (and, in the triangle, one seen from its other end) must
            # not take a place among the best.
            later = np.arange(column, column + scores.shape[1])[None, :]
            scores[(later <= rows[:, None]) if triangle else (later == rows[:, None])] = -2.0
            passed &= _best_of_tile(scores, neighbours)
        # flatnonzero then divmod: 15x faster than a 2-D nonzero (measured).
        flat = np.flatnonzero(passed)
        if not len(flat):
            continue
        i, j = np.divmod(flat, scores.shape[1])
        i, j, similarity = rows[i], j + column, scores.ravel()[flat]
        keep = j > i if triangle else j != i
        parts.append(np.stack([i[keep], j[keep], similarity[keep]], axis=1))
    return np.concatenate(parts).astype(np.float64) if parts else np.empty((0, 3))


def _best_of_tile(scores: np.ndarray, neighbours: int) -> np.ndarray:
    """The cells of a tile among the k best of their row or of their column."""
    best = np.zeros(scores.shape, dtype=bool)
    for axis in (1, 0):
        size = scores.shape[axis]
        if size <= neighbours:
            return np.ones(scores.shape, dtype=bool)
        kth = -np.partition(-scores, neighbours - 1, axis=axis).take(neighbours - 1, axis=axis)
        best |= scores >= np.expand_dims(kth, axis)
    return best


def keep_nearest(
    pairs: np.ndarray, neighbours: int | None, queries: np.ndarray | None = None
) -> np.ndarray:
    """The rows (low, high, cosine) that are among the `neighbours` best pairs of either of
    their two memories (all when None), or, given `queries`, of a query memory: an
    incremental pass sees an old memory's pairs with the new ones only, so only the new
    ones' ranks are known (as the database route, which asks each new memory's k
    nearest, knows them)."""
    if neighbours is None or len(pairs) <= neighbours:
        return pairs
    count = len(pairs)
    ends = np.concatenate([pairs[:, 0], pairs[:, 1]]).astype(np.int64)
    scores = np.concatenate([pairs[:, 2], pairs[:, 2]])
    order = np.lexsort((-scores, ends))  # by memory, best first
    sorted_ends = ends[order]
    starts = np.flatnonzero(np.r_[True, sorted_ends[1:] != sorted_ends[:-1]])
    first = np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    rank = np.empty(2 * count, dtype=np.int64)
    rank[order] = np.arange(2 * count) - first
    near_low, near_high = rank[:count] < neighbours, rank[count:] < neighbours
    if queries is not None:
        is_query = np.zeros(int(max(ends.max(), queries.max())) + 1, dtype=bool)
        is_query[queries] = True
        near_low &= is_query[pairs[:, 0].astype(np.int64)]
        near_high &= is_query[pairs[:, 1].astype(np.int64)]
    return pairs[near_low | near_high]


def vector_pairs_exact(
    vectors: np.ndarray,
    query_positions: np.ndarray,
    *,
    floor: float,
    neighbours: int | None = None,
    block_size: int | None = None,
    workers: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """Every pair (query, any) with cosine >= floor over unit vectors, as rows (low, high,
    cosine), each unordered pair once; with `neighbours` (k), only the pairs among the k
    nearest of either memory (keep_nearest). A full run (every position a query) computes
    the upper triangle only. Large namespaces use worker processes (DEDUP_WORKERS):
    measured here, two processes with one BLAS thread each beat one process with two
    threads. `on_progress(done, total)` hears after each block how many of the pairs to
    compare are compared (blocks differ in cost: the triangle's first rows are the
    longest)."""
    query_positions = np.asarray(query_positions, dtype=np.int64)
    triangle = len(query_positions) == len(vectors)
    if block_size is None and triangle and len(vectors) <= TILE_COLUMNS:
        pairs = _whole_triangle(vectors, floor, neighbours)
        _report(on_progress, [len(vectors) ** 2], 1)
        return pairs
    if block_size is None:
        # Blocks of 1,024 rows, but at least eight: the triangle only saves work with
        # several blocks (a namespace of one tile is one product, above).
        block_size = min(1024, max(128, len(query_positions) // 8))
    tasks = [
        (start, min(start + block_size, len(query_positions)), triangle, floor, neighbours)
        for start in range(0, len(query_positions), block_size)
    ]
    work = [
        (end - start) * (len(vectors) - (int(query_positions[start]) if triangle else 0))
        for start, end, *_ in tasks
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
    if triangle:
        return keep_nearest(pairs, neighbours)
    if len(pairs):
        pairs = _unique_pairs(pairs, query_positions)
    return keep_nearest(pairs, neighbours, query_positions)


def _whole_triangle(vectors: np.ndarray, floor: float, neighbours: int | None) -> np.ndarray:
    """Every pair of a namespace that fits one tile, in one product: numpy computes
    `v @ v.T` as a symmetric product (BLAS syrk), half the multiplications of a general
    one (1,000 memories, one thread: the layer took 5.15 ms instead of the blocks' 5.5).
    With one BLAS thread: a second one saved 1 ms of a 3 ms product, then spun on the
    other core while the run judged the namespace (a serial run, as with an LLM, took
    16.0 s of CPU for 200 namespaces of 1,000 instead of 10.0 s, in the same time:
    MEMADMIN_DEDUP_WORKERS=1 bench/find_duplicates.py --scenario b --namespaces 200)."""
    with _blas().limit(limits=1, user_api="blas"):
        scores = vectors @ vectors.T
    passed = scores >= floor
    # Only where a row has more pairs than it keeps (the diagonal passes too): most
    # namespaces of long texts have a few pairs a memory above the floor, and pay nothing.
    if neighbours is not None and passed.sum() - len(vectors) > neighbours * len(vectors):
        np.fill_diagonal(scores, -2.0)
        kth = -np.partition(-scores, neighbours - 1, axis=1)[:, neighbours - 1]
        nearest = scores >= kth[:, None]
        passed &= nearest | nearest.T
    flat = np.flatnonzero(passed)
    i, j = np.divmod(flat, len(vectors))
    keep = j > i
    i, j, flat = i[keep], j[keep], flat[keep]
    return np.stack([i, j, scores.ravel()[flat]], axis=1).astype(np.float64)


def _report(on_progress: Callable[[int, int], None] | None, work: list[int], done: int) -> None:
    if on_progress is not None:
        on_progress(sum(work[:done]), sum(work))


@lru_cache(maxsize=1)
def _blas():
    """What sets the BLAS threads (found once: finding the libraries takes 0.6 ms)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


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


# Each memory is paired with at most this many others of its slot, the nearest in time
# (a slot's value changes one after another).
FRAME_NEIGHBOURS = 8


class Frame(NamedTuple):
    """What frame_pairs reads of one short memory: the slots it gives a value to
    (slot_keys), the things it names (object lemmas) and whether it ends something. Text
    alone decides it, so it can be kept between runs (runs.counting)."""

    slots: tuple[str, ...]
    things: tuple[str, ...]
    ceased: bool


@text_cache
def slot_keys(text: str) -> frozenset[str]:
    """The slots a memory gives a value to, as "class:subject" ("live:" for "Lives in
    Porto" and for "Moved to Lyon"; "work:tom" for "Tom works at Initech"): memories that
    share one are compared whatever their cosine. Only classes whose slot holds one value
    (or the events that set them)."""
    found = reading.read(text)
    predicate = found.predicate
    if predicate is None:
        return frozenset()
    classes = [predicate.name] if predicate.slot == "one" else []
    classes += [c for c in predicate.sets if c != "*"]
    if predicate.name in ("use", "switch"):
        classes.append("use")  # "Nutzt Windows" / "Ist auf Linux umgestiegen"
    if not classes:
        return frozenset()
    subject = found.subject_words[-1].lemma if found.subject_words else ""
    return frozenset(f"{name}:{subject}" for name in classes)


def frame_of(text: str) -> Frame | None:
    """The frame of a short memory (store.text.short: in so few words the values are most
    of the text); None for a longer one."""
    # Most memories are longer: answered before the cache, which would only fill with them.
    return _frame_of_short(text) if short(text) else None


@text_cache
def _frame_of_short(text: str) -> Frame:
    found = reading.read(text)
    things = sorted({t.lemma for t in found.objects if t.kind == "word"})
    return Frame(tuple(sorted(slot_keys(text))), tuple(things), bool(found.ceased))


def frame_pairs(texts: Sequence[str], query_positions: Sequence[int]) -> set[tuple[int, int]]:
    """frames_pairs of the texts' frames."""
    return frames_pairs([frame_of(text) for text in texts], query_positions)


def frames_pairs(
    frames: Sequence[Frame | None], query_positions: Sequence[int]
) -> set[tuple[int, int]]:
    """Pairs (low, high) of short memories (`frames`: frame_of each memory), at least one
    of them a query, that the words make a candidate whatever their cosine: two that give
    one slot a value (where one lives, works, a service deploys: slot_keys), and a
    memory that ends something with each that names the same thing ("Quit the band last
    month" / "Plays guitar in a band"). Positions are in time order (as planning gives
    them)."""
    slots: dict[str, list[int]] = defaultdict(list)
    things: dict[str, list[int]] = defaultdict(list)  # object lemma -> short memories
    ending: list[int] = []
    for position, frame in enumerate(frames):
        if frame is None:
            continue
        for key in frame.slots:
            slots[key].append(position)
        for lemma in frame.things:
            things[lemma].append(position)
        if frame.ceased:
            ending.append(position)
    queries = set(query_positions)
    pairs: set[tuple[int, int]] = set()

    def add(i: int, others: list[int]) -> None:
        # The nearest in time on either side of i (lists are in position order).
        at = bisect_left(others, i)
        half = FRAME_NEIGHBOURS // 2
        for j in others[max(0, at - half) : at + half + 1]:
            if j != i and (i in queries or j in queries):
                pairs.add((min(i, j), max(i, j)))

    for members in slots.values():
        for i in members:
            add(i, members)
    for i in ending:
        for lemma in frames[i].things:
            add(i, things[lemma])
    return pairs


# --- Every layer, in the order a pass reads them ------------------------------------------


def candidate_pairs(
    memories: Sequence,
    vectors: np.ndarray | None,
    queries: np.ndarray,
    *,
    thresholds,
    vector_pairs: Callable[[np.ndarray, np.ndarray, float], np.ndarray] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    workers: int | None = None,
    multi_vectors: np.ndarray | None = None,
    word_pairs: set[tuple[int, int]] | None = None,
):
    """The candidate pairs that involve a query position, layer by layer, as (i, j,
    MiniLM's cosine or None where the layer did not compute it): exact copies, MiniLM's
    nearest (`vector_pairs`, or the exact blocked product), the multilingual model's
    nearest, and the pairs the words make (frames of short memories; shared rare terms
    of CJK text), unless `word_pairs` gives those already. A pair may come more than
    once: its first layer counts."""
    query_set = set(queries.tolist())
    for group in exact_groups([memory.content_hash for memory in memories]):
        if query_set.intersection(group):
            for position, i in enumerate(group):
                for j in group[position + 1 :]:
                    yield i, j, 1.0
    if vectors is not None:
        find = vector_pairs or (
            lambda v, q, floor: vector_pairs_exact(
                v,
                q,
                floor=floor,
                neighbours=thresholds.neighbours,
                workers=workers,
                on_progress=on_progress,
            )
        )
        for i, j, cosine in find(vectors, queries, thresholds.candidate):
            yield int(i), int(j), float(cosine)
    if multi_vectors is not None:
        found = vector_pairs_exact(
            multi_vectors,
            queries,
            floor=thresholds.multi_candidate,
            neighbours=thresholds.multi_neighbours,
            workers=workers,
        )
        for i, j, _ in found:
            yield int(i), int(j), None
    if word_pairs is None:
        texts = [m.content for m in memories]
        word_pairs = frame_pairs(texts, queries.tolist())
        cjk_queries = [
            p for p in queries.tolist() if lexical.cjk_share(texts[p]) >= thresholds.cjk_share
        ]
        if cjk_queries:
            word_pairs |= lexical_pairs(texts, cjk_queries)
    for i, j in word_pairs:
        yield i, j, None
