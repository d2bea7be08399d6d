"""How a namespace's vector layer runs in a pass, and what the pass reads for it.

A full pass reads every row and vector ("matrix"). An incremental pass reads its rows
without vectors: with few new memories in a large namespace it asks the HNSW index
("hnsw"); with few in any other it compares them with all in PostgreSQL ("database") and
reads not even every row, only the new memories and those they pair with (`narrow`);
otherwise it reads every vector ("matrix")."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.conf import settings

from memadmin.curation.detection import detect, lexical
from memadmin.curation.detection.judgement import Thresholds
from memadmin.store import queries as store_queries
from memadmin.store.models import Memory, Namespace


@dataclass
class Route:
    """How a namespace's vector layer runs: "matrix" (every vector read, compared in
    numpy), "database" (the few new memories compared with all in PostgreSQL) or "hnsw"
    (the k nearest of each new memory, from the index); its vectors (for "database" and
    "hnsw" only those of the memories a candidate pair involves, zeros elsewhere) and,
    but for "matrix", the candidate pairs (low, high, cosine) in positions."""

    name: str
    vectors: np.ndarray | None
    pairs: np.ndarray | None = None


def use_index(memories: list[Memory], changed: list[int] | None) -> bool:
    """The HNSW route pays per query and saves loading every vector: it wins when few
    memories are new in a large namespace (bench/find_duplicates.py measures both)."""
    return (
        changed is not None
        and len(memories) >= settings.DEDUP_INDEX_MIN_MEMORIES
        and len(changed) <= settings.DEDUP_INDEX_MAX_QUERIES
    )


def index_candidates(
    namespace: Namespace, memories: list[Memory], changed: list[int], thresholds: Thresholds
) -> tuple[np.ndarray | None, np.ndarray]:
    """Candidate pairs from the HNSW index, and the vectors of the memories involved."""
    found = store_queries.nearest_pairs(
        namespace,
        [memories[p].pk for p in changed],
        k=thresholds.neighbours,
        floor=thresholds.candidate,
    )
    involved = {memories[p].pk for p in changed} | {b for _, b, _ in found}
    vectors = store_queries.active_vectors(namespace, memories, only_ids=involved)
    return vectors, position_pairs(found, memories)


def position_pairs(found: list[tuple[int, int, float]], memories: list[Memory]) -> np.ndarray:
    """Pairs of memory ids with their cosine as rows (low, high, cosine) of positions in
    `memories`, each pair once (one no longer among them left out)."""
    position = {memory.pk: index for index, memory in enumerate(memories)}
    pairs = np.array(
        [
            (min(position[a], position[b]), max(position[a], position[b]), cosine)
            for a, b, cosine in found
            if a in position and b in position
        ],
        dtype=np.float64,
    ).reshape(-1, 3)
    if len(pairs):
        pairs = np.unique(pairs, axis=0)
    return pairs


def wide_routes(
    namespaces: list[Namespace],
    inputs: dict[int, store_queries.DetectionInput],
    changed: dict[int, list[int] | None],
    thresholds: Thresholds,
) -> dict[int, Route]:
    """Each namespace's route (inputs of a full pass hold their vectors, those of an
    incremental pass none), with what it reads: for all of the batch's namespaces on one
    route, one query."""
    found: dict[int, Route] = {}
    in_database, matrix = [], {}
    for namespace in namespaces:
        memories, moved = inputs[namespace.pk].memories, changed[namespace.pk]
        if moved is None:
            found[namespace.pk] = Route("matrix", inputs[namespace.pk].vectors)
        elif use_index(memories, moved):
            found[namespace.pk] = Route(
                "hnsw", *index_candidates(namespace, memories, moved, thresholds)
            )
        elif len(moved) <= settings.DEDUP_DATABASE_MAX_QUERIES:
            in_database.append(namespace.pk)
        else:
            matrix[namespace.pk] = inputs[namespace.pk]
    if matrix:
        for pk, vectors in store_queries.batch_vectors(matrix).items():
            found[pk] = Route("matrix", vectors)
    if in_database:
        fresh = [inputs[pk].memories[p].pk for pk in in_database for p in changed[pk]]
        pairs = store_queries.vector_pairs_in_database(
            fresh, in_database, floor=thresholds.candidate
        )
        involved = set(fresh) | {other for _, other, _ in pairs}
        vectors = store_queries.batch_vectors(
            {pk: inputs[pk] for pk in in_database}, only_ids=involved
        )
        for pk in in_database:
            found[pk] = Route("database", vectors[pk], position_pairs(pairs, inputs[pk].memories))
    return found


@dataclass
class Narrowed:
    """What a narrow pass reads of a namespace: its new memories and those any layer
    pairs with one (oldest first), the positions of the new ones among them, the pairs the
    words make (frames, shared CJK terms) in those positions, and every active memory as
    a light row (for the counts and the report)."""

    memories: list[Memory]
    changed: list[int]
    route: Route
    word_pairs: set[tuple[int, int]]
    every: list[store_queries.LightRow]


def may_narrow(namespace: Namespace, every: list, fresh: list[int]) -> bool:
    """Whether an incremental pass reads the namespace narrow: few new memories, not the
    HNSW route, and one noted language (the multilingual model compares every memory of
    a namespace of several, and one whose languages were never noted is read to note
    them: both are read whole)."""
    return (
        bool(namespace.language)
        and not namespace.multilingual
        and not use_index(every, fresh)
        and len(fresh) <= settings.DEDUP_DATABASE_MAX_QUERIES
    )


def narrow(
    light: dict[int, list[store_queries.LightRow]],
    fresh: dict[int, list[int]],
    thresholds: Thresholds,
) -> dict[int, Narrowed]:
    """The narrow pass of each given namespace (`light`: its active memories as light
    rows, oldest first; `fresh`: the positions of its new ones). Every layer runs on the
    whole namespace as a full read would (vectors in PostgreSQL, exact hashes, frames and
    CJK terms on the light rows); only the memories in a pair with a new one are read
    whole, in one query for the batch."""
    if not light:
        return {}
    fresh_ids = [light[pk][p].pk for pk in light for p in fresh[pk]]
    vector_pairs = store_queries.vector_pairs_in_database(
        fresh_ids, list(light), floor=thresholds.candidate
    )
    by_id = {row.pk: (pk, p) for pk, rows in light.items() for p, row in enumerate(rows)}
    kept: dict[int, set[int]] = {pk: set(fresh[pk]) for pk in light}
    words: dict[int, set[tuple[int, int]]] = {}
    for pk, rows in light.items():
        texts = [row.content for row in rows]
        queries = fresh[pk]
        hashes = {rows[p].content_hash for p in queries}
        kept[pk].update(p for p, row in enumerate(rows) if row.content_hash in hashes)
        words[pk] = detect.frame_pairs(texts, queries)
        cjk = [p for p in queries if lexical.cjk_share(texts[p]) >= thresholds.cjk_share]
        if cjk:
            words[pk] |= detect.lexical_pairs(texts, cjk)
        kept[pk].update(p for pair in words[pk] for p in pair)
    for a, b, _ in vector_pairs:
        for memory_id in (a, b):
            if memory_id in by_id:
                pk, p = by_id[memory_id]
                kept[pk].add(p)
    read = store_queries.memories_by_id([light[pk][p].pk for pk in light for p in kept[pk]])
    involved = set(fresh_ids) | {other for _, other, _ in vector_pairs}
    found: dict[int, Narrowed] = {}
    chosen: dict[int, list[Memory]] = {}
    for pk, rows in light.items():
        positions = sorted(kept[pk])
        chosen[pk] = [read[rows[p].pk] for p in positions]
        place = {p: index for index, p in enumerate(positions)}
        found[pk] = Narrowed(
            memories=chosen[pk],
            changed=[place[p] for p in fresh[pk]],
            route=Route("database", None, position_pairs(vector_pairs, chosen[pk])),
            word_pairs={(place[a], place[b]) for a, b in words[pk]},
            every=rows,
        )
    vectors = store_queries.batch_vectors(
        {pk: store_queries.DetectionInput(chosen[pk], None) for pk in light}, only_ids=involved
    )
    for pk, narrowed in found.items():
        narrowed.route.vectors = vectors[pk]
    return found
