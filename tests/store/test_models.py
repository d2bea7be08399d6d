"""The database's own checks on memories."""

import pytest
from django.db import IntegrityError, transaction

from tests.factories import namespace, unsaved

pytestmark = pytest.mark.django_db


def new_memory(ns, external_id="a", **fields):
    return unsaved("text", namespace=ns, pk=None, external_id=external_id, **fields)


@pytest.mark.parametrize(
    ("fields", "constraint"),
    [
        ({"importance": 1.5}, "memory_importance_0_1"),
        ({"confidence": -0.1}, "memory_confidence_0_1"),
        ({"status": "archived"}, "memory_status_valid"),
    ],
)
def test_the_database_refuses_out_of_range_memories(fields, constraint):
    with pytest.raises(IntegrityError, match=constraint), transaction.atomic():
        new_memory(namespace(), **fields).save()


def test_an_external_id_is_unique_within_a_namespace_only():
    new_memory(namespace()).save()
    new_memory(namespace("bob")).save()

    with pytest.raises(IntegrityError, match="memory_unique_external_id"), transaction.atomic():
        new_memory(namespace()).save()


def test_an_active_memory_cannot_be_superseded():
    newer = new_memory(namespace(), "newer")
    newer.save()

    with pytest.raises(IntegrityError, match="memory_active_not_superseded"), transaction.atomic():
        new_memory(namespace(), "older", superseded_by=newer).save()
