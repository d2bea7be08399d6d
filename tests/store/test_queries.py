import numpy as np
import pytest
from django.utils import timezone

from memadmin.store import embeddings, queries
from memadmin.store.models import Memory, MemoryStatus
from tests.factories import namespace

pytestmark = pytest.mark.django_db


def unit(seed: int) -> np.ndarray:
    vector = np.random.default_rng(seed).normal(size=384).astype(np.float32)
    return vector / np.linalg.norm(vector)


def add(namespace, external_id, vector, **fields):
    fields.setdefault("embedding_model", embeddings.MODEL_ID)
    return Memory.objects.create(
        namespace=namespace,
        external_id=external_id,
        content=external_id,
        content_hash=external_id,
        embedding=vector,
        created_at=timezone.now(),
        **fields,
    )


def test_nearest_memories_are_the_closest_active_ones_of_the_namespace_closest_first():
    alice, bob = namespace("alice"), namespace("bob")
    query = unit(1)
    near = add(alice, "near", query + 0.1 * unit(2))
    nearer = add(alice, "nearer", query + 0.01 * unit(3))
    add(alice, "far", unit(4))
    add(bob, "other-namespace", query)
    add(alice, "superseded", query, status=MemoryStatus.DELETED)
    add(alice, "other-model", query, embedding_model="another-model")

    found = queries.nearest_memories(alice, query, k=2)

    assert [n.memory.external_id for n in found] == ["nearer", "near"]
    assert found[0].similarity == pytest.approx(
        float(query @ nearer.embedding / np.linalg.norm(nearer.embedding)), abs=1e-5
    )
    assert near.pk not in [n.memory.pk for n in queries.nearest_memories(alice, query, k=1)]


def test_the_nearest_query_walks_the_hnsw_index():
    big = namespace("big")
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(6000, 384)).astype(np.float32)
    from django.db import connection

    # Building the index after the rows is much faster than 6,000 index inserts; DDL is
    # transactional in Postgres, so the test's rollback restores the original index.
    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX memory_embedding_hnsw")
    Memory.objects.bulk_create(
        Memory(
            namespace=big,
            external_id=f"m{i}",
            content=f"m{i}",
            content_hash=f"m{i}",
            embedding=vector,
            embedding_model=embeddings.MODEL_ID,
            created_at=timezone.now(),
        )
        for i, vector in enumerate(vectors)
    )
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no pending FK checks before DDL
        cursor.execute(
            "CREATE INDEX memory_embedding_hnsw ON store_memory "
            "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
        )
        cursor.execute("ANALYZE store_memory")

    sql, params = queries.nearest_sql(big, unit(9), k=10)
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())

    assert "Index Scan using memory_embedding_hnsw" in plan
