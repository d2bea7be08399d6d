"""Named read queries over the store. Every heavy query is keyed by namespace."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import psycopg
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, IntegerField, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from memadmin.store import embeddings
from memadmin.store.models import Memory, MemoryStatus, Namespace


def count_per_namespace(model, **conditions) -> Coalesce:
    """A correlated COUNT(*) of `model` rows of the outer namespace. One subquery per
    count: joining memories, clusters and conflicts in one query would multiply them."""
    rows = (
        model.objects.filter(namespace=OuterRef("pk"), **conditions)
        .order_by()
        .values("namespace")
        .annotate(total=Count("*"))
        .values("total")
    )
    return Coalesce(Subquery(rows, output_field=IntegerField()), 0)


def namespace_summaries() -> QuerySet[Namespace]:
    """Every namespace with its counts, in one query (for the dashboard)."""
    from memadmin.curation.models import Cluster, ClusterStatus, Conflict, ConflictStatus

    return Namespace.objects.annotate(
        active=count_per_namespace(Memory, status=MemoryStatus.ACTIVE),
        superseded=count_per_namespace(Memory, status=MemoryStatus.SUPERSEDED),
        open_clusters=count_per_namespace(Cluster, status=ClusterStatus.OPEN),
        open_conflicts=count_per_namespace(Conflict, status=ConflictStatus.OPEN),
    ).order_by("name")


@dataclass(frozen=True)
class Neighbour:
    memory: Memory
    similarity: float


@contextmanager
def _wider_search(ef_search: int):
    """The session's HNSW candidate list (settings.HNSW_EF_SEARCH), widened for this
    query when it asks for more."""
    if ef_search <= settings.HNSW_EF_SEARCH:
        yield
        return
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL hnsw.ef_search = %s", [ef_search])
        yield


# Every column but the vector: the query orders by it in SQL and never reads it back.
_NEAREST_FIELDS = [f for f in Memory._meta.concrete_fields if f.column != "embedding"]
_NEAREST_COLUMNS = ", ".join(f.column for f in _NEAREST_FIELDS)
_CONVERTED = [
    (index, field) for index, field in enumerate(_NEAREST_FIELDS) if hasattr(field, "from_db_value")
]


def nearest_sql(
    namespace: Namespace, vector: Sequence[float], *, k: int, exclude_ids: Sequence[int] = ()
) -> tuple[str, list]:
    """The k-nearest query and its parameters. ORDER BY the cosine distance with a LIMIT
    is what lets Postgres walk the HNSW index (vector_cosine_ops) instead of scoring
    every row. k is part of the text (one prepared statement per k): a LIMIT parameter
    would leave a generic plan guessing how many rows are wanted."""
    sql = f"""
        SELECT {_NEAREST_COLUMNS}, embedding <=> %b::real[]::vector AS distance
        FROM store_memory
        WHERE namespace_id = %s AND status = 'active'
          AND embedding_model = %s AND embedding IS NOT NULL
          AND NOT (id = ANY(%s))
        ORDER BY distance
        LIMIT {int(k)}
    """
    # Sent as a binary float array and cast in SQL: cheaper on both ends than a text
    # literal of 384 numbers.
    values = [float(x) for x in vector]
    return sql, [values, namespace.pk, embeddings.MODEL_ID, list(exclude_ids)]


def nearest_memories(
    namespace: Namespace, vector: Sequence[float], *, k: int, exclude_ids: Sequence[int] = ()
) -> list[Neighbour]:
    """The k active memories of `namespace` closest to `vector` by cosine, closest first.

    It runs on every API write, so it is a server-side prepared statement on Django's own
    connection: no planning and no query building per call (bench/api_write.py measured
    the ORM's version at twice the time). ef_search and iterative scans are set per
    session (store.apps)."""
    sql, params = nearest_sql(namespace, vector, k=k, exclude_ids=exclude_ids)
    connection.ensure_connection()
    with _wider_search(k), psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, params, prepare=True)
        rows = cursor.fetchall()
    names = [f.attname for f in _NEAREST_FIELDS]
    found = []
    for row in rows:
        values = list(row[:-1])
        for index, field in _CONVERTED:
            values[index] = field.from_db_value(values[index], None, connection)
        memory = Memory.from_db(connection.alias, names, values)
        found.append(Neighbour(memory, 1.0 - float(row[-1])))
    # Iterative scans (relaxed_order) may return rows slightly out of order: sort exactly.
    found.sort(key=lambda neighbour: -neighbour.similarity)
    return found


def nearest_pairs(
    namespace: Namespace, memory_ids: Sequence[int], *, k: int, floor: float
) -> list[tuple[int, int, float]]:
    """(memory id, neighbour id, cosine) for the k nearest active neighbours of each given
    memory, cosine >= floor: one query, an HNSW index walk per memory (LATERAL)."""
    if not memory_ids:
        return []
    # Batch detection must not lose a pair: a wider candidate list than the API's
    # (bench/find_duplicates.py scenario c measures what each width misses).
    with _wider_search(max(k, settings.DEDUP_INDEX_EF_SEARCH)), connection.cursor() as cursor:
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
