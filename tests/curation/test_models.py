import pytest
from django.db import IntegrityError, ProgrammingError, connection, transaction
from django.utils import timezone

from memadmin.curation.models import HistoryEvent
from memadmin.store.models import Memory, Namespace

pytestmark = pytest.mark.django_db


@pytest.fixture
def namespace():
    return Namespace.objects.create(name="alice")


def new_memory(namespace, external_id="a", **fields):
    return Memory(
        namespace=namespace,
        external_id=external_id,
        content="text",
        content_hash="h",
        created_at=timezone.now(),
        **fields,
    )


def test_history_events_cannot_be_changed_or_deleted_by_the_orm(namespace):
    event = HistoryEvent.objects.create(namespace=namespace, action="import", actor="test")

    with pytest.raises(ValueError, match="append-only"):
        event.save()
    with pytest.raises(ValueError, match="append-only"):
        event.delete()


def test_history_events_cannot_be_changed_by_raw_sql_either(namespace):
    event = HistoryEvent.objects.create(namespace=namespace, action="import", actor="test")

    with (
        pytest.raises(ProgrammingError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("UPDATE curation_historyevent SET actor = 'x' WHERE id = %s", [event.pk])
    with pytest.raises(ProgrammingError, match="append-only"), transaction.atomic():
        HistoryEvent.objects.filter(pk=event.pk).delete()


@pytest.mark.parametrize(
    ("fields", "constraint"),
    [
        ({"importance": 1.5}, "memory_importance_0_1"),
        ({"confidence": -0.1}, "memory_confidence_0_1"),
        ({"status": "archived"}, "memory_status_valid"),
    ],
)
def test_the_database_refuses_out_of_range_memories(namespace, fields, constraint):
    with pytest.raises(IntegrityError, match=constraint), transaction.atomic():
        new_memory(namespace, **fields).save()


def test_an_external_id_is_unique_within_a_namespace_only(namespace):
    new_memory(namespace).save()
    new_memory(Namespace.objects.create(name="bob")).save()

    with pytest.raises(IntegrityError, match="memory_unique_external_id"), transaction.atomic():
        new_memory(namespace).save()


def test_an_active_memory_cannot_be_superseded(namespace):
    newer = new_memory(namespace, "newer")
    newer.save()

    with pytest.raises(IntegrityError, match="memory_active_not_superseded"), transaction.atomic():
        new_memory(namespace, "older", superseded_by=newer).save()
