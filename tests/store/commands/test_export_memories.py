"""export_memories: JSONL that imports back unchanged."""

import json

import numpy as np
import pytest
from django.apps import apps
from django.db import connection

from tests.factories import extreme, line, near, unit

pytestmark = pytest.mark.django_db


def test_export_prints_jsonl_that_imports_back_unchanged(run_command, write_jsonl):
    path = write_jsonl(
        [
            line("a", "Likes tea", tags=["drink"], created_at="2026-01-02T03:04:05Z"),
            line("b", "Lives in Paris", importance=0.8, created_at="2026-02-01T00:00:00Z"),
        ]
    )
    run_command("import_memories", str(path))

    exported = run_command("export_memories", "--namespace", "alice")
    lines = [json.loads(text) for text in exported.stdout.splitlines()]

    assert [exported_line["id"] for exported_line in lines] == ["a", "b"]  # oldest first
    by_id = {exported_line["id"]: exported_line for exported_line in lines}
    assert by_id["a"]["created_at"] == "2026-01-02T03:04:05+00:00"
    assert by_id["b"]["importance"] == 0.8
    again = run_command("import_memories", str(write_jsonl(lines, name="export.jsonl")))
    assert "0 created, 0 updated, 2 unchanged" in again.stdout


def fresh_store() -> None:
    """Empty every table of memadmin, as a new installation has them."""
    tables = ", ".join(
        model._meta.db_table
        for model in apps.get_models()
        if model._meta.app_label in ("store", "curation", "api")
    )
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {tables} RESTART IDENTITY CASCADE")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("with_embeddings", [False, True])
def test_an_export_of_the_extremes_restores_into_a_fresh_store_identically(
    run_command, write_jsonl, with_embeddings
):
    lines = [
        extreme("i" * 200, "é" * 4095 + "xy", unit(1)),
        extreme("b", "<b>bold</b> \u202eRTL 👩‍👩‍👧", near(1, 0.9), status="superseded"),
        extreme("c", "Merged text", unit(3), created_at="2026-05-01T00:00:00Z"),
    ]
    lines[1]["superseded_by"] = "c"
    assert run_command("import_memories", str(write_jsonl(lines))).error is None
    flags = ["--with-embeddings"] if with_embeddings else []
    first = run_command("export_memories", *flags).stdout

    fresh_store()
    restored = run_command("import_memories", str(write_jsonl(first.splitlines(), "export.jsonl")))
    second = run_command("export_memories", *flags).stdout

    assert restored.error is None, restored.stderr
    first_lines, second_lines = map(str.splitlines, (first, second))
    assert len(first_lines) == len(second_lines) == 3
    for before, after in zip(
        map(json.loads, first_lines), map(json.loads, second_lines), strict=True
    ):
        vector_before, vector_after = before.pop("embedding", None), after.pop("embedding", None)
        assert before == after
        if with_embeddings:  # normalised again on import: equal to float32 precision
            assert np.allclose(vector_before, vector_after, atol=1e-6)
