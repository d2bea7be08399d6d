"""Named read queries over the store. Every heavy query is keyed by namespace."""

from __future__ import annotations

from collections.abc import Sequence
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
        .annotate(distance=CosineDistance("embedding", vector))
        .order_by("distance")[:k]
    )


def nearest_memories(
    namespace: Namespace, vector: Sequence[float], *, k: int, exclude_ids: Sequence[int] = ()
) -> list[Neighbour]:
    """The k active memories of `namespace` closest to `vector` by cosine, closest first."""
    with transaction.atomic(), connection.cursor() as cursor:
        # The namespace filter is applied while walking the index; iterative scans keep
        # walking until k rows pass it (pgvector >= 0.8), instead of returning fewer.
        cursor.execute("SET LOCAL hnsw.ef_search = %s", [max(k, settings.HNSW_EF_SEARCH)])
        cursor.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
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
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL hnsw.ef_search = %s", [max(k, settings.HNSW_EF_SEARCH)])
        cursor.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
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
