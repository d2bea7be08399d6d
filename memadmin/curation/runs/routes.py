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

from memadmin.curation.detection.candidates import neighbours as detect
from memadmin.curation.detection.reading import lexical
from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.runs import counting
from memadmin.store import queries as store_queries
from memadmin.store.models import Memory, Namespace
from memadmin.store.text import short


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
            fresh, in_database, floor=thresholds.candidate, neighbours=thresholds.neighbours
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
    frames make in those positions, every active memory as a light row (for the report),
    and its counts and frames brought up to date."""

    memories: list[Memory]
    changed: list[int]
    route: Route
    word_pairs: set[tuple[int, int]]
    every: store_queries.LightRows
    counted: counting.Counted


def may_narrow(namespace: Namespace, light: store_queries.LightRows) -> bool:
    """Whether an incremental pass may read the namespace narrow: few new memories, not
    the HNSW route, and one noted language (the multilingual model compares every memory
    of a namespace of several, and one whose languages were never noted is read to note
    them: both are read whole)."""
    return (
        bool(namespace.language)
        and not namespace.multilingual
        and not use_index(light, light.fresh)
        and len(light.fresh) <= settings.DEDUP_DATABASE_MAX_QUERIES
    )


def _kept_counts(light, kept, thresholds: Thresholds, ids: dict[int, list[int]]):
    """(what each namespace that may go narrow counted last time, brought up to date with
    the memories that came and went; the memories read on the way, by id)."""
    moved = {}
    for pk, rows in light.items():
        if pk in kept:
            came, went = counting.changes(kept[pk], rows.keys)
            if counting.worth_keeping(came, went, len(rows)):
                moved[pk] = came, went
    read = store_queries.memories_by_id(
        [ids[pk][p] for pk, (came, _) in moved.items() for p in {*light[pk].fresh, *came.tolist()}]
    )
    now = store_queries.texts_by_id([k >> 32 for _, went in moved.values() for k in went.tolist()])
    counted = {}
    for pk, (came, went) in moved.items():
        rows = light[pk]
        texts = [read[ids[pk][p]].content for p in rows.fresh]
        if any(lexical.cjk_share(text) >= thresholds.cjk_share for text in texts):
            continue
        if (gone := counting.texts_that_went(went, now)) is None:
            continue
        arrived = {int(rows.keys[p]): read[ids[pk][p]].content for p in came.tolist()}
        counted[pk] = counting.brought_up_to_date(kept[pk], rows.keys, arrived, went, gone)
    return counted, read


def narrow(
    light: dict[int, store_queries.LightRows],
    kept: dict[int, counting.Counted],
    thresholds: Thresholds,
) -> dict[int, Narrowed]:
    """The narrow pass of each given namespace (`light`: its active memories, the new
    ones among them; `kept`: what the last run kept of it). Every layer runs on the whole
    namespace as a full read would: vectors and exact hashes in PostgreSQL, frames kept
    (runs.counting) and brought up to date with the memories that came and went; only
    the memories in a pair with a new one are read whole. Five queries for the batch,
    whatever its size (six with short new memories: the second model's pairs).

    A namespace it cannot read narrow is left out (the caller reads it whole): nothing
    kept, too much came or went, a memory that went changed its text (its old text is
    not kept), or a new memory in Chinese or Japanese (shared terms need every text)."""
    ids = {pk: rows.ids.tolist() for pk, rows in light.items()}
    counted, read = _kept_counts(light, kept, thresholds, ids)
    if not counted:
        return {}
    fresh_ids = [ids[pk][p] for pk in counted for p in light[pk].fresh]
    vector_pairs = store_queries.vector_pairs_in_database(
        fresh_ids, list(counted), floor=thresholds.candidate, neighbours=thresholds.neighbours
    )
    exact = store_queries.exact_partners(fresh_ids)
    # Short new memories have the multilingual vector too: its pairs, as a full read's
    # layer over it finds them (runs.batch.multilingual_vectors).
    multi_pairs = store_queries.vector_pairs_in_database(
        [memory_id for memory_id in fresh_ids if short(read[memory_id].content)],
        list(counted),
        floor=thresholds.multi_candidate,
        neighbours=thresholds.multi_neighbours,
        column="embedding_multi",
    )
    by_id = {memory_id: (pk, p) for pk in counted for p, memory_id in enumerate(ids[pk])}
    wanted: dict[int, set[int]] = {pk: set(light[pk].fresh) for pk in counted}
    words: dict[int, set[tuple[int, int]]] = {}
    for pk, found in counted.items():
        words[pk] = detect.frames_pairs(found.frames_in_order(light[pk].keys), light[pk].fresh)
        wanted[pk].update(p for pair in words[pk] for p in pair)
    for pair in [*vector_pairs, *exact, *multi_pairs]:
        for memory_id in pair[:2]:
            if memory_id in by_id:
                pk, p = by_id[memory_id]
                wanted[pk].add(p)
    more = [ids[pk][p] for pk in counted for p in wanted[pk]]
    read.update(store_queries.memories_by_id([pk for pk in more if pk not in read]))
    involved = set(fresh_ids) | {other for _, other, _ in [*vector_pairs, *multi_pairs]}
    found: dict[int, Narrowed] = {}
    for pk in counted:
        rows, positions = light[pk], sorted(wanted[pk])
        chosen = [read[ids[pk][p]] for p in positions]
        place = {p: index for index, p in enumerate(positions)}
        found[pk] = Narrowed(
            memories=chosen,
            changed=[place[p] for p in rows.fresh],
            route=Route("database", None, position_pairs(vector_pairs, chosen)),
            word_pairs={(place[a], place[b]) for a, b in words[pk]},
            every=rows,
            counted=counted[pk],
        )
    vectors = store_queries.batch_vectors(
        {pk: store_queries.DetectionInput(n.memories, None) for pk, n in found.items()},
        only_ids=involved,
    )
    for pk, narrowed in found.items():
        narrowed.route.vectors = vectors[pk]
    return found
