"""export_memories: JSONL that imports back unchanged."""

import json

import pytest

from tests.factories import line

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
