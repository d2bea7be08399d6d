"""The history is append-only, for the ORM and for raw SQL."""

import pytest
from django.db import ProgrammingError, connection, transaction

from memadmin.curation.models import HistoryEvent
from tests.factories import namespace

pytestmark = pytest.mark.django_db


def test_history_events_cannot_be_changed_or_deleted_by_the_orm():
    event = HistoryEvent.objects.create(namespace=namespace(), action="import", actor="test")

    with pytest.raises(ValueError, match="append-only"):
        event.save()
    with pytest.raises(ValueError, match="append-only"):
        event.delete()


def test_history_events_cannot_be_changed_by_raw_sql_either():
    event = HistoryEvent.objects.create(namespace=namespace(), action="import", actor="test")

    with (
        pytest.raises(ProgrammingError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("UPDATE curation_historyevent SET actor = 'x' WHERE id = %s", [event.pk])
    with pytest.raises(ProgrammingError, match="append-only"), transaction.atomic():
        HistoryEvent.objects.filter(pk=event.pk).delete()
