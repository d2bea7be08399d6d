"""Named read queries over the store. Every heavy query is keyed by namespace."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Q, QuerySet
from pgvector.django import CosineDistance

from memadmin.store import embeddings
from memadmin.store.models import Memory, MemoryStatus, Namespace


def namespace_summaries() -> QuerySet[Namespace]:
    """Every namespace with its counts, in one query (for the home page)."""
    from memadmin.curation.models import ClusterStatus, ConflictStatus

    return Namespace.objects.annotate(
        active=Count("memories", filter=Q(memories__status=MemoryStatus.ACTIVE), distinct=True),
        superseded=Count(
            "memories", filter=Q(memories__status=MemoryStatus.SUPERSEDED), distinct=True
        ),
        open_clusters=Count(
            "clusters", filter=Q(clusters__status=ClusterStatus.OPEN), distinct=True
        ),
        open_conflicts=Count(
            "conflicts", filter=Q(conflicts__status=ConflictStatus.OPEN), distinct=True
        ),
    ).order_by("name")


def comparable_memories(namespace: Namespace) -> QuerySet[Memory]:
    """Active memories of `namespace` with a vector of the model in use: the only ones
    whose vectors may be compared with each other."""
    return Memory.objects.filter(
        namespace=namespace,
        status=MemoryStatus.ACTIVE,
        embedding_model=embeddings.MODEL_ID,
        embedding__isnull=False,
    )


@dataclass(frozen=True)
class Neighbour:
    memory: Memory
    similarity: float


def nearest_memories_queryset(
    namespace: Namespace, vector: Sequence[float], *, k: int, exclude_ids: Sequence[int] = ()
) -> QuerySet[Memory]:
    # ORDER BY the cosine distance with a LIMIT is what lets Postgres walk the HNSW index
    # (vector_cosine_ops) instead of scoring every row.
    return (
        comparable_memories(namespace)
        .exclude(pk__in=exclude_ids)
        .defer("embedding")  # ordered by it in SQL; never read back
        .annotate(distance=CosineDistance("embedding", vector))
        .order_by("distance")[:k]
    )


@contextmanager
def _wider_search(k: int):
    """The session's HNSW candidate list, widened for this query when k exceeds it."""
    if k <= settings.HNSW_EF_SEARCH:
        yield
        return
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL hnsw.ef_search = %s", [k])
        yield


def nearest_memories(
    namespace: Namespace, vector: Sequence[float], *, k: int, exclude_ids: Sequence[int] = ()
) -> list[Neighbour]:
    """The k active memories of `namespace` closest to `vector` by cosine, closest first.
    (ef_search and iterative scans are set per session: store.apps.)"""
    with _wider_search(k):
        rows = list(nearest_memories_queryset(namespace, vector, k=k, exclude_ids=exclude_ids))
    # relaxed_order may return rows slightly out of order: sort them exactly.
    rows.sort(key=lambda memory: memory.distance)
    return [Neighbour(memory, 1.0 - memory.distance) for memory in rows]


def nearest_pairs(
    namespace: Namespace, memory_ids: Sequence[int], *, k: int, floor: float
) -> list[tuple[int, int, float]]:
    """(memory id, neighbour id, cosine) for the k nearest active neighbours of each given
    memory, cosine >= floor: one query, an HNSW index walk per memory (LATERAL)."""
    if not memory_ids:
        return []
    with _wider_search(k), connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT query.id, neighbour.id, 1 - neighbour.distance
            FROM store_memory AS query
            CROSS JOIN LATERAL (
                SELECT other.id, other.embedding <=> query.embedding AS distance
                FROM store_memory AS other
                WHERE other.namespace_id = query.namespace_id
                  AND other.status = 'active'
                  AND other.embedding_model = %(model)s
                  AND other.id <> query.id
                ORDER BY other.embedding <=> query.embedding
                LIMIT %(k)s
            ) AS neighbour
            WHERE query.id = ANY(%(ids)s) AND query.namespace_id = %(namespace)s
              AND query.embedding IS NOT NULL
              AND 1 - neighbour.distance >= %(floor)s
            """,
            {
                "model": embeddings.MODEL_ID,
                "k": k,
                "ids": list(memory_ids),
                "namespace": namespace.pk,
                "floor": floor,
            },
        )
        return [(a, b, float(similarity)) for a, b, similarity in cursor.fetchall()]


def profile(namespace: Namespace):
    """(active memories, open conflicts) for an agent's profile read. Of the members of
    an open cluster (duplicates awaiting review) only the representative is listed: the
    most confident, then the newest."""
    from memadmin.curation.models import ClusterMember, ClusterStatus, Conflict, ConflictStatus

    memories = list(
        Memory.objects.filter(namespace=namespace, status=MemoryStatus.ACTIVE)
        .defer("embedding")
        .order_by("created_at", "id")
    )
    by_id = {m.pk: m for m in memories}
    clusters: dict[int, list[Memory]] = {}
    for cluster_id, memory_id in ClusterMember.objects.filter(
        cluster__namespace=namespace, cluster__status=ClusterStatus.OPEN, excluded=False
    ).values_list("cluster_id", "memory_id"):
        if memory_id in by_id:
            clusters.setdefault(cluster_id, []).append(by_id[memory_id])
    hidden = set()
    for members in clusters.values():
        keep = max(members, key=lambda m: (m.confidence, m.created_at, m.pk))
        hidden.update(m.pk for m in members if m is not keep)
    conflicts = list(
        Conflict.objects.filter(namespace=namespace, status=ConflictStatus.OPEN)
        .select_related("memory_a", "memory_b")
        .defer("memory_a__embedding", "memory_b__embedding")
        .order_by("created_at", "id")
    )
    return [m for m in memories if m.pk not in hidden], conflicts
