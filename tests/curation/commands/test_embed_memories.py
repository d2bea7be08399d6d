"""embed_memories: rows without a vector of the current model are embedded."""

import pytest

from memadmin.curation.models import HistoryEvent
from memadmin.store import embeddings, multilingual
from memadmin.store.models import Memory
from tests.factories import line

pytestmark = pytest.mark.django_db


def test_it_embeds_rows_without_a_vector_and_rows_of_another_model(run_command, write_jsonl):
    path = write_jsonl(
        [
            line("a", "Likes tea"),
            line("b", "Lives in Paris"),
            line("c", "Old vector", embedding=[1.0] * 384, embedding_model="old-model"),
        ]
    )
    run_command("import_memories", str(path), "--no-embed")
    assert Memory.objects.filter(embedding__isnull=True).count() == 2

    result = run_command("embed_memories")

    assert result.stdout.strip().splitlines() == [
        f"embedded 3 memories with {embeddings.MODEL_ID}",
        # Short memories get the multilingual vector too (store.multilingual.wanted).
        f"embedded 3 memories of alice with {multilingual.MODEL_ID}",
    ]
    assert set(Memory.objects.values_list("embedding_model", flat=True)) == {embeddings.MODEL_ID}
    event = HistoryEvent.objects.get(action="embed", after__model=embeddings.MODEL_ID)
    assert event.after == {"count": 3, "model": embeddings.MODEL_ID}


def test_a_second_run_has_nothing_to_do(run_command, write_jsonl):
    run_command("import_memories", str(write_jsonl([line("a", "Likes tea")])))

    result = run_command("embed_memories")

    assert result.stdout.strip() == f"embedded 0 memories with {embeddings.MODEL_ID}"
    assert not HistoryEvent.objects.filter(action="embed").exists()
