"""Writes to single memories: time decay."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memadmin.curation.models import HistoryEvent
from memadmin.store.models import Memory
from tests.factories import line, unit

pytestmark = pytest.mark.django_db(transaction=True)


def test_decay_lowers_confidence_of_memories_not_accessed_for_days(run_command, load):
    load(
        line("old", "Old fact.", unit(1), confidence=0.8, created_at="2026-01-01T00:00:00Z"),
        line("floor", "Faded fact.", unit(2), confidence=0.06, created_at="2020-01-01T00:00:00Z"),
    )
    fresh = Memory.objects.get(external_id="old")
    Memory.objects.filter(pk=fresh.pk).update(last_accessed_at=timezone.now() - timedelta(days=10))
    load(
        line("new", "New fact.", unit(3), confidence=0.8, created_at=timezone.now().isoformat()),
        name="new.jsonl",
    )

    result = run_command("decay_memories")

    assert result.stdout.strip() == "decayed 2 memories (rate 0.01, floor 0.05)"
    assert Memory.objects.get(external_id="old").confidence == pytest.approx(
        0.8 * 0.99**10, rel=1e-3
    )
    assert Memory.objects.get(external_id="floor").confidence == 0.05
    assert Memory.objects.get(external_id="new").confidence == 0.8
    assert HistoryEvent.objects.get(action="decay").after["count"] == 2
