"""Named read queries over the store (namespaces and memories). Every heavy query is keyed
by namespace. The store is the bottom layer: nothing here imports curation."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter

import numpy as np
import psycopg
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, IntegerField, OuterRef, Subquery
from django.db.models.base import ModelState
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce
from psycopg.types import TypeInfo
from psycopg.types.string import ByteaBinaryLoader

from memadmin.store import embeddings, multilingual
from memadmin.store.models import Memory, MemoryStatus, Namespace


def any_of(ids: Iterable[int]) -> RawSQL:
    """The given ids as a subquery over one array parameter, for `field__in=any_of(ids)`.
    Django writes a list as one placeholder per id: the 20,000 memory ids of a batch run
    took 200 ms to send and plan, this 15 ms (bench/find_duplicates.py, scenario b); sent
    as the array's text, which psycopg does not take apart number by number (14 ms for
    20,000 ids as a list, 6 as text)."""
    return RawSQL("SELECT unnest(%s::bigint[])", ("{" + ",".join(map(str, map(int, ids))) + "}",))


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


@dataclass(frozen=True)
class Neighbour:
    memory: Memory
    similarity: float  # MiniLM's cosine
    multi: float | None = None  # the multilingual model's, when asked for and present


# The two vector columns and the model whose vectors each may be compared with.
VECTOR_COLUMNS = {
    "embedding": ("embedding_model", embeddings.MODEL_ID),
    "embedding_multi": ("embedding_multi_model", multilingual.MODEL_ID),
}


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


# Every column but the vectors: the query orders by them in SQL and never reads them back.
_NEAREST_FIELDS = [f for f in Memory._meta.concrete_fields if f.column not in VECTOR_COLUMNS]
_NEAREST_COLUMNS = ", ".join(f.column for f in _NEAREST_FIELDS)
_CONVERTED = [
    (index, field) for index, field in enumerate(_NEAREST_FIELDS) if hasattr(field, "from_db_value")
]


def nearest_sql(
    namespace: Namespace,
    vector: Sequence[float],
    *,
    k: int,
    exclude_ids: Sequence[int] = (),
    multi_vector: Sequence[float] | None = None,
    by_multi: bool = False,
) -> tuple[str, list]:
    """The k-nearest query and its parameters. ORDER BY the cosine distance with a LIMIT
    is what lets Postgres walk the HNSW index (vector_cosine_ops) instead of scoring
    every row. k is part of the text (one prepared statement per k): a LIMIT parameter
    would leave a generic plan guessing how many rows are wanted. With `multi_vector`
    each row also carries its multilingual distance (NULL without such a vector), and
    `by_multi` orders by that one instead."""
    order = "embedding_multi" if by_multi else "embedding"
    model_column, model = VECTOR_COLUMNS[order]
    multi_distance = (
        "embedding_multi <=> %b::real[]::vector" if multi_vector is not None else "NULL"
    )
    sql = f"""
        SELECT {_NEAREST_COLUMNS}, embedding <=> %b::real[]::vector AS distance,
               {multi_distance} AS multi_distance
        FROM store_memory
        WHERE namespace_id = %s AND status = 'active'
          AND {model_column} = %s AND {order} IS NOT NULL
          AND NOT (id = ANY(%s))
        ORDER BY {"multi_distance" if by_multi else "distance"}
        LIMIT {int(k)}
    """
    # Sent as a binary float array and cast in SQL: cheaper on both ends than a text
    # literal of 384 numbers.
    params: list = [[float(x) for x in vector]]
    if multi_vector is not None:
        params.append([float(x) for x in multi_vector])
    return sql, [*params, namespace.pk, model, list(exclude_ids)]


def nearest_memories(
    namespace: Namespace,
    vector: Sequence[float],
    *,
    k: int,
    exclude_ids: Sequence[int] = (),
    multi_vector: Sequence[float] | None = None,
) -> list[Neighbour]:
    """The k active memories of `namespace` closest to `vector` by cosine, closest first;
    with `multi_vector` (a multilingual namespace) also the k closest to it, each
    neighbour with both cosines.

    It runs on every API write, so it is a server-side prepared statement on Django's own
    connection: no planning and no query building per call (bench/api_write.py measured
    the ORM's version at twice the time). ef_search and iterative scans are set per
    session (store.apps)."""
    found: dict[int, Neighbour] = {}
    for by_multi in (False, True) if multi_vector is not None else (False,):
        sql, params = nearest_sql(
            namespace,
            vector,
            k=k,
            exclude_ids=exclude_ids,
            multi_vector=multi_vector,
            by_multi=by_multi,
        )
        connection.ensure_connection()
        with _wider_search(k), psycopg.Cursor(connection.connection) as cursor:
            cursor.execute(sql, params, prepare=True)
            rows = cursor.fetchall()
            if len(rows) < k:
                # Fewer than k: a namespace that small is scored whole, exactly. (An index
                # walk can also come back short where it holds many dead entries, which
                # its scan limit counts, until the table is vacuumed.)
                cursor.execute(_scored_whole(sql), params, prepare=True)
                rows = cursor.fetchall()
        for row in rows:
            if row[0] not in found:
                found[row[0]] = _neighbour(row)
    # Iterative scans (relaxed_order) may return rows slightly out of order: sort exactly.
    return sorted(found.values(), key=lambda neighbour: -neighbour.similarity)


def _scored_whole(sql: str) -> str:
    """The k-nearest query with every row of the namespace scored: the subquery's OFFSET 0
    keeps the planner from walking the index."""
    within, order = sql.split("ORDER BY")
    return f"SELECT * FROM ({within} OFFSET 0) AS scored ORDER BY {order}"


def _neighbour(row) -> Neighbour:
    values = list(row[:-2])
    for index, field in _CONVERTED:
        values[index] = field.from_db_value(values[index], None, connection)
    memory = Memory.from_db(connection.alias, [f.attname for f in _NEAREST_FIELDS], values)
    multi = None if row[-1] is None else 1.0 - float(row[-1])
    return Neighbour(memory, 1.0 - float(row[-2]), multi)


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


# What a detection pass reads of each memory: everything its judgement looks at, no vector.
DETECTION_FIELDS = (
    "id",
    "external_id",
    "content",
    "content_hash",
    "category",
    "source_ref",
    "tags",
    "importance",
    "confidence",
    "access_count",
    "pinned",
    "created_at",
    "updated_at",
    "namespace_id",
)


def active_memories(namespace: Namespace) -> list[Memory]:
    """The namespace's active memories, oldest first, without their vectors (a detection
    pass: the order is the one every representative() caller relies on)."""
    return detection_batch([namespace.pk], with_vectors=False)[namespace.pk].memories


@dataclass
class DetectionInput:
    """What a detection pass reads of one namespace: its active memories, oldest first
    (DETECTION_FIELDS only), and their vectors of the current model in the same order
    (rows of zeros where a memory has none; None when none has one, or not asked for)."""

    memories: list[Memory]
    vectors: np.ndarray | None
    keys: np.ndarray | None = None  # MEMORY_KEY of each memory, in their order


# A memory's key: its id and a hash of its text, as one int64 (id * 2**32 + hashtext).
# Computed where the text is, so that a run can tell which memories came, went or
# changed since the last one without reading every text (runs.counting). hashtext is
# PostgreSQL's own; should a new major version change it, every key differs once and
# the namespace is counted again.
MEMORY_KEY = "(id::bigint << 32) | (hashtext(content)::bigint & 4294967295)"


def detection_batch(
    namespace_ids: Sequence[int], *, with_vectors: bool = True
) -> dict[int, DetectionInput]:
    """DetectionInput of every given namespace, read in one query (a run over thousands
    of small namespaces paid a round trip, a query plan and the ORM per namespace)."""
    if not namespace_ids:
        return {}
    vector = "CASE WHEN embedding_model = %s THEN embedding END" if with_vectors else "NULL"
    # No ORDER BY: sorting rows of 1.8 KB in the server cost more than the rest of the
    # query (bench/find_duplicates.py); they are put in order here, by reference.
    sql = (
        f"SELECT {', '.join(DETECTION_FIELDS)}, {MEMORY_KEY}, {vector} FROM store_memory "
        "WHERE namespace_id = ANY(%s) AND status = 'active'"
    )
    params = [embeddings.MODEL_ID] if with_vectors else []
    with _vector_cursor() as cursor:
        cursor.execute(sql, [*params, list(namespace_ids)], binary=True)
        rows = cursor.fetchall()
    namespace, created, key = map(DETECTION_FIELDS.index, ("namespace_id", "created_at", "id"))
    rows.sort(key=itemgetter(namespace, created, key))
    alias = connection.alias  # read once: each read goes through a thread-local look-up
    found: dict[int, tuple[list[Memory], list, list]] = {pk: ([], [], []) for pk in namespace_ids}
    for row in rows:
        memories, keys, raws = found[row[namespace]]
        memories.append(_detection_memory(row, alias))
        keys.append(row[-2])
        raws.append(row[-1])
    return {
        pk: DetectionInput(
            memories,
            _vector_matrix(raws) if with_vectors else None,
            np.array(keys, dtype=np.int64),
        )
        for pk, (memories, keys, raws) in found.items()
    }


@dataclass
class LightRows:
    """What an incremental pass reads of every active memory of a namespace first
    (runs.routes.narrow), oldest first: no text, no vector."""

    ids: np.ndarray  # int64
    keys: np.ndarray  # MEMORY_KEY of each, int64
    fresh: list[int]  # positions of those updated since the pass's `since`

    def __len__(self) -> int:
        return len(self.ids)


def light_batch(since: dict[int, datetime]) -> dict[int, LightRows]:
    """LightRows of the given namespaces (`since`: when each one's pass starts to look),
    in one query: a row per namespace, its columns as arrays (a row per memory, new
    ones found in Python, took 53 ms for 20 namespaces of 1,000; this 29 ms)."""
    found = {pk: LightRows(np.zeros(0, np.int64), np.zeros(0, np.int64), []) for pk in since}
    if not since:
        return found
    order = "ORDER BY m.created_at, m.id"
    with _vector_cursor() as cursor:
        cursor.execute(
            f"SELECT m.namespace_id, array_agg(m.id {order}), array_agg(m.key {order}), "
            f"array_agg(m.updated_at >= s.since {order}) "
            f"FROM (SELECT namespace_id, id, created_at, updated_at, {MEMORY_KEY} AS key "
            "FROM store_memory WHERE namespace_id = ANY(%s) AND status = 'active') AS m "
            "JOIN unnest(%s::integer[], %s::timestamptz[]) AS s(namespace_id, since) "
            "ON m.namespace_id = s.namespace_id GROUP BY m.namespace_id",
            [list(since), list(since), list(since.values())],
            binary=True,
        )
        for namespace_id, ids, keys, fresh in cursor.fetchall():
            found[namespace_id] = LightRows(
                np.array(ids, dtype=np.int64),
                np.array(keys, dtype=np.int64),
                np.flatnonzero(np.array(fresh, dtype=bool)).tolist(),
            )
    return found


def texts_by_id(memory_ids: Sequence[int]) -> dict[int, tuple[str, int]]:
    """(text, MEMORY_KEY) of the given memories, whatever their status, by id."""
    if not memory_ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, content, {MEMORY_KEY} FROM store_memory WHERE id = ANY(%s)",
            [list(memory_ids)],
        )
        return {memory_id: (content, key) for memory_id, content, key in cursor.fetchall()}


def exact_partners(memory_ids: Sequence[int]) -> list[tuple[int, int]]:
    """(memory id, other id) for every other active memory of the same namespace with the
    same content hash as one of the given memories (an index look-up each)."""
    if not memory_ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT given.id, other.id FROM store_memory AS given JOIN store_memory AS other "
            "ON other.namespace_id = given.namespace_id "
            "AND other.content_hash = given.content_hash "
            "WHERE given.id = ANY(%s) AND other.status = 'active' AND other.id <> given.id",
            [list(memory_ids)],
        )
        return cursor.fetchall()


def memories_by_id(memory_ids: Sequence[int]) -> dict[int, Memory]:
    """Memories holding DETECTION_FIELDS (as detection_batch reads them), by id."""
    if not memory_ids:
        return {}
    return _memories_with_ids(DETECTION_FIELDS, memory_ids)


def _detection_memory(row, alias: str) -> Memory:
    """A Memory holding DETECTION_FIELDS (the others load on access, as with .only()).
    Model.__init__ costs about 8 µs a row, and a run over a million memories builds a
    million of them: the instance is filled directly (1 µs), as Django's own from_db
    would leave it."""
    # The row ends with the key and vector columns, which are left out.
    return _memory_of(DETECTION_FIELDS, row, alias)


def _memory_of(names: Sequence[str], row, alias: str) -> Memory:
    """A Memory holding the row's values under `names`, as Django's from_db leaves one
    that was read (the fields not given load on access)."""
    state = ModelState()
    state.adding, state.db = False, alias
    memory = Memory.__new__(Memory)
    values = memory.__dict__
    values.update(zip(names, row, strict=False))  # a row may end with more columns
    values["_state"] = state
    return memory


# Every field of a memory but its vectors.
_ROW_FIELDS = [
    field.attname
    for field in Memory._meta.concrete_fields
    if field.attname not in ("embedding", "embedding_multi")
]


def locked_memories(memory_ids: Iterable[int]) -> dict[int, Memory]:
    """The given memories by id, their rows locked (FOR UPDATE, in id order: two runs
    locking overlapping sets never wait on each other in a circle), every field but the
    vectors (those load on access), as `select_for_update().defer(...)` reads them. The
    ORM built each row in about 20 µs, and a batch run locks every memory it folds: read
    in binary here (psycopg decodes the JSON), a row costs a few."""
    return _memories_with_ids(_ROW_FIELDS, memory_ids, "ORDER BY id FOR UPDATE")


def _memories_with_ids(
    fields: Sequence[str], memory_ids: Iterable[int], tail: str = ""
) -> dict[int, Memory]:
    """Memories holding `fields` (attribute names; the others load on access), by id, read
    in one query."""
    columns = ", ".join(f'"{Memory._meta.get_field(name).column}"' for name in fields)
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(
            f"SELECT {columns} FROM store_memory WHERE id = ANY(%s) {tail}",
            [list(memory_ids)],
            binary=True,
        )
        rows = cursor.fetchall()
    alias = connection.alias
    memories = (_memory_of(fields, row, alias) for row in rows)
    return {memory.pk: memory for memory in memories}


# pgvector's binary form of one vector: a 2-byte dimension, 2 unused bytes, big-endian
# float32s.
_SENT_VECTOR = np.dtype([("header", "V4"), ("values", ">f4", (embeddings.DIMENSIONS,))])


def _vector_cursor() -> psycopg.Cursor:
    """A cursor on Django's connection that reads vector columns as the bytes pgvector
    sends (binary results), whatever loader the connection has: they go into numpy in one
    piece (_vector_matrix), no text of 384 numbers per row."""
    connection.ensure_connection()
    cursor = psycopg.Cursor(connection.connection)
    vector_type = TypeInfo.fetch(connection.connection, "vector")
    cursor.adapters.register_loader(vector_type.oid, ByteaBinaryLoader)
    return cursor


def _vector_matrix(raws: list) -> np.ndarray | None:
    """Vectors as pgvector sends them, as one float32 matrix (rows of zeros for None);
    None when every one is None. Joined and read in one go: a million rows one at a time
    cost seconds."""
    present = [index for index, raw in enumerate(raws) if raw is not None]
    if not present:
        return None
    read = np.frombuffer(b"".join(raws[index] for index in present), dtype=_SENT_VECTOR)
    if len(present) == len(raws):
        return read["values"].astype(np.float32)
    vectors = np.zeros((len(raws), embeddings.DIMENSIONS), dtype=np.float32)
    vectors[present] = read["values"]
    return vectors


def vector_pairs_in_database(
    memory_ids: Sequence[int],
    namespace_ids: Sequence[int],
    *,
    floor: float,
    neighbours: int | None = None,
    column: str = "embedding",
) -> list[tuple[int, int, float]]:
    """(memory id, other id, cosine) for every active memory of the same namespace whose
    vector of the current model (of `column`: "embedding" or "embedding_multi") is at
    cosine >= floor from one of the given memories' (with `neighbours`, only each given
    memory's k nearest of those): the exact comparison of a few new memories against all
    of their namespaces, computed where the vectors are (one query for a batch). Reading
    every vector out to compare ten new ones cost 7 µs a row, the comparison in
    PostgreSQL 0.14 µs a pair (bench/find_duplicates.py, scenario d). A pair of two given
    memories comes twice."""
    if not memory_ids:
        return []
    model_column, model = VECTOR_COLUMNS[column]
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            WITH fresh AS MATERIALIZED (
                SELECT id, namespace_id, {column} AS vector FROM store_memory
                WHERE id = ANY(%(ids)s) AND {model_column} = %(model)s
            ), found AS (
                SELECT fresh.id AS a, other.id AS b, -(other.{column} <#> fresh.vector) AS cosine,
                       row_number() OVER (
                           PARTITION BY fresh.id ORDER BY other.{column} <#> fresh.vector, other.id
                       ) AS rank
                FROM fresh JOIN store_memory AS other ON other.namespace_id = fresh.namespace_id
                WHERE other.namespace_id = ANY(%(namespaces)s) AND other.status = 'active'
                  AND other.{model_column} = %(model)s AND other.id <> fresh.id
                  AND other.{column} <#> fresh.vector <= %(bound)s
            )
            SELECT a, b, cosine FROM found WHERE rank <= %(neighbours)s
            """,
            {
                "ids": list(memory_ids),
                "namespaces": list(namespace_ids),
                "model": model,
                "bound": -floor,  # <#> is the negative inner product: cosine of unit vectors
                # No bound: every pair above the floor (a rank never reaches it).
                "neighbours": neighbours if neighbours is not None else 2**62,
            },
        )
        return [(a, b, float(cosine)) for a, b, cosine in cursor.fetchall()]


def batch_vectors(
    inputs: dict[int, DetectionInput], only_ids: set[int] | None = None
) -> dict[int, np.ndarray | None]:
    """The vectors of the current model of the given namespaces' memories (`inputs`, as
    detection_batch read them without vectors), in their order, in one query: a matrix
    per namespace (zeros where a memory has none, or is not in `only_ids`; None where none
    has one)."""
    position = {
        memory.pk: (namespace_id, index)
        for namespace_id, found in inputs.items()
        for index, memory in enumerate(found.memories)
    }
    raws: dict[int, list[bytes | None]] = {
        namespace_id: [None] * len(found.memories) for namespace_id, found in inputs.items()
    }
    sql = "SELECT id, embedding FROM store_memory WHERE embedding_model = %s AND "
    if only_ids is None:
        sql += "namespace_id = ANY(%s) AND status = 'active'"
        params = [embeddings.MODEL_ID, list(inputs)]
    else:
        sql += "id = ANY(%s)"
        params = [embeddings.MODEL_ID, list(only_ids)]
    with _vector_cursor() as cursor:
        cursor.execute(sql, params, binary=True)
        for memory_id, raw in cursor:
            if memory_id in position:  # else it became active after the memories were read
                namespace_id, index = position[memory_id]
                raws[namespace_id][index] = raw
    return {namespace_id: _vector_matrix(found) for namespace_id, found in raws.items()}


def active_counts(namespace_ids: Sequence[int]) -> dict[int, int]:
    """Active memories per namespace (0 for none), one query."""
    counts = dict.fromkeys(namespace_ids, 0)
    rows = (
        Memory.objects.filter(namespace_id__in=list(namespace_ids), status=MemoryStatus.ACTIVE)
        .order_by()
        .values_list("namespace_id")
        .annotate(total=Count("*"))
    )
    counts.update(rows)
    return counts


def active_vectors(
    namespace: Namespace,
    memories: list[Memory],
    only_ids: set[int] | None = None,
    *,
    column: str = "embedding",
) -> np.ndarray | None:
    """The memories' vectors (of `column`: "embedding" or "embedding_multi") as one
    float32 matrix in their order (zeros where a memory has no vector of the column's
    model, or is not in `only_ids`); None if none has one."""
    model_column, model = VECTOR_COLUMNS[column]
    position = {memory.pk: index for index, memory in enumerate(memories)}
    sql = (
        f"SELECT id, {column} FROM store_memory WHERE namespace_id = %s "
        f"AND status = 'active' AND {column} IS NOT NULL AND {model_column} = %s"
    )
    params: list = [namespace.pk, model]
    if only_ids is not None:
        sql += " AND id = ANY(%s)"
        params.append(list(only_ids))
    raws: list[bytes | None] = [None] * len(memories)
    with _vector_cursor() as cursor:
        cursor.execute(sql, params, binary=True)
        for memory_id, raw in cursor:
            if memory_id in position:  # else it became active after the memories were read
                raws[position[memory_id]] = raw
    return _vector_matrix(raws)


def without_multilingual_vector(namespace: Namespace) -> list[Memory]:
    """The namespace's active memories that lack a vector of the multilingual model."""
    return list(
        Memory.objects.filter(namespace=namespace, status=MemoryStatus.ACTIVE)
        .exclude(embedding_multi_model=multilingual.MODEL_ID, embedding_multi__isnull=False)
        .only("id", "namespace_id", "content")
        .order_by("id")
    )
