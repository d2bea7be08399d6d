from datetime import UTC, datetime

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


def test_locked_memories_are_the_rows_the_orm_reads_every_field_but_the_vectors():
    alice = namespace("alice")
    plain = add(alice, "plain", unit(1))
    full = add(
        alice,
        "full",
        unit(2),
        tags=["food", "ü"],
        metadata={"nested": {"list": [1, 2.5, None, "x"]}, "big": 2**53},
        provenance=[{"source": "chat", "at": "2026-01-01"}],
        valid_from=datetime(2025, 3, 1, 12, 30, tzinfo=UTC),
        importance=0.9,
        session_id="s-1",
        superseded_by=plain,
        status=MemoryStatus.SUPERSEDED,
    )
    from django.db import transaction

    with transaction.atomic():
        locked = queries.locked_memories([full.pk, plain.pk, 10**12])
    assert sorted(locked) == sorted([plain.pk, full.pk])  # a missing id is left out
    for pk, memory in locked.items():
        expected = Memory.objects.defer("embedding", "embedding_multi").get(pk=pk)
        assert memory.get_deferred_fields() == expected.get_deferred_fields()
        for field in Memory._meta.concrete_fields:
            if field.attname in ("embedding", "embedding_multi"):
                continue
            assert getattr(memory, field.attname) == getattr(expected, field.attname), field
            assert type(getattr(memory, field.attname)) is type(getattr(expected, field.attname))
        assert memory._state.adding is False and memory._state.db == "default"
    # The vector loads on access, as a deferred field does.
    assert np.allclose(locked[full.pk].embedding, full.embedding)


def test_any_of_selects_exactly_the_given_ids_of_any_kind_of_integer():
    alice = namespace("alice")
    first, _unchosen, third = (add(alice, f"m{i}", unit(i)) for i in range(3))
    chosen = Memory.objects.filter(pk__in=queries.any_of(np.array([first.pk, third.pk])))
    assert sorted(m.pk for m in chosen) == sorted([first.pk, third.pk])
    assert not Memory.objects.filter(pk__in=queries.any_of([])).exists()
    assert not Memory.objects.filter(pk__in=queries.any_of([2**62])).exists()
