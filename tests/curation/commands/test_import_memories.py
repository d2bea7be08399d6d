"""import_memories: every line checked first, nothing imported from a bad file, idempotent."""

import json

import numpy as np
import pytest

from memadmin.curation.models import HistoryEvent
from memadmin.store import embeddings
from memadmin.store.models import Memory, MemoryStatus
from tests.factories import line, unit

pytestmark = pytest.mark.django_db


def test_it_imports_the_dev_set_as_active_embedded_memories(run_command, dev_memories_path):
    lines = dev_memories_path.read_text().splitlines()

    result = run_command("import_memories", str(dev_memories_path))

    assert result.error is None
    assert Memory.objects.filter(status=MemoryStatus.ACTIVE).count() == len(lines) == 244
    assert Memory.objects.filter(embedding_model=embeddings.MODEL_ID).count() == 244
    assert HistoryEvent.objects.filter(action="import").count() == 244
    assert "244 created, 0 updated, 0 unchanged" in result.stdout


def test_importing_the_same_file_twice_changes_nothing(run_command, dev_memories_path):
    run_command("import_memories", str(dev_memories_path))
    before = list(Memory.objects.order_by("id").values("id", "content", "updated_at"))
    events = HistoryEvent.objects.count()

    result = run_command("import_memories", str(dev_memories_path))

    assert result.error is None
    assert "0 created, 0 updated, 244 unchanged" in result.stdout
    assert list(Memory.objects.order_by("id").values("id", "content", "updated_at")) == before
    assert HistoryEvent.objects.count() == events


def test_a_line_without_content_is_refused_by_its_number_and_nothing_is_imported(
    run_command, write_jsonl
):
    lines = [line(f"m{i}", f"fact number {i}") for i in range(1, 11)]
    del lines[6]["content"]
    path = write_jsonl(lines)

    result = run_command("import_memories", str(path))

    assert result.error is not None
    assert "nothing imported" in str(result.error)
    assert f"{path}: line 7: missing 'content'" in result.stderr
    assert Memory.objects.count() == 0


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ('{"id": "x", "content": ', "invalid JSON"),
        ('["id", "content"]', "a line must be a JSON object"),
        (line("", "text"), "id must be a non-empty string"),
        ({"namespace": "alice", "content": "text"}, "missing 'id'"),
        (line("x", "   "), "content must be a non-empty string"),
        (line("x", "text", importance=1.5), "importance must be a number from 0 to 1"),
        (line("x", "text", confidence="high"), "confidence must be a number from 0 to 1"),
        (line("x", "text", created_at="last tuesday"), "created_at must be an ISO 8601"),
        (line("x", "text", tags="python"), "tags must be a list of non-empty strings"),
        (line("x", "text", colour="blue"), "unknown key 'colour'"),
        ({"id": "x", "content": "text"}, "no namespace"),
        (line("x", "text", namespace="a b"), "namespace must be letters"),
        (line("x", "text", embedding=["a"]), "embedding must be a list of finite numbers"),
        (line("x", "x" * 9000), "content is longer than 8192 bytes"),
    ],
)
def test_each_bad_line_is_named_with_its_reason(run_command, write_jsonl, bad, reason):
    path = write_jsonl([line("good", "a good line"), bad])

    result = run_command("import_memories", str(path))

    assert result.error is not None
    assert f"line 2: {reason}" in result.stderr
    assert Memory.objects.count() == 0


def test_an_id_repeated_in_the_file_is_refused_with_both_lines(run_command, write_jsonl):
    path = write_jsonl([line("a", "one"), line("b", "two"), line("a", "3")])

    result = run_command("import_memories", str(path))

    assert "line 3: duplicate id 'a' (first on line 1)" in result.stderr
    assert Memory.objects.count() == 0


def test_skip_invalid_imports_the_valid_lines_and_lists_the_rest(run_command, write_jsonl):
    path = write_jsonl([line("a", "one"), line("b", "two", importance=7), line("c", "3")])

    result = run_command("import_memories", str(path), "--skip-invalid")

    assert result.error is None
    assert "line 2: importance must be a number from 0 to 1" in result.stderr
    assert sorted(Memory.objects.values_list("external_id", flat=True)) == ["a", "c"]
    assert "2 created" in result.stdout and "1 invalid skipped" in result.stdout


def test_namespace_option_applies_to_lines_without_one(run_command, write_jsonl):
    path = write_jsonl([{"id": "a", "content": "Likes tea"}])

    run_command("import_memories", str(path), "--namespace", "bob")

    assert Memory.objects.get().namespace.name == "bob"


def test_a_changed_text_updates_the_memory_re_embeds_it_and_writes_history(
    run_command, write_jsonl
):
    run_command("import_memories", str(write_jsonl([line("a", "Likes tea")])))
    old_vector = np.array(Memory.objects.get().embedding)

    result = run_command("import_memories", str(write_jsonl([line("a", "Likes strong coffee")])))

    memory = Memory.objects.get()
    assert "0 created, 1 updated" in result.stdout
    assert memory.content == "Likes strong coffee"
    assert not np.allclose(np.array(memory.embedding), old_vector)
    event = HistoryEvent.objects.get(action="update")
    assert (event.before["content"], event.after["content"]) == ("Likes tea", "Likes strong coffee")
    assert event.memory == memory


def test_a_given_vector_is_used_when_its_dimension_matches(run_command, write_jsonl):
    vector = [0.0] * 384
    vector[3] = 2.0
    short = [0.5, 0.5]
    path = write_jsonl(
        [
            line("given", "Has a vector", embedding=vector, embedding_model="other-384"),
            line("short", "Has a short vector", embedding=short),
        ]
    )

    result = run_command("import_memories", str(path))

    given = Memory.objects.get(external_id="given")
    assert given.embedding_model == "other-384"
    assert np.allclose(np.array(given.embedding), np.eye(384)[3])  # normalised to unit length
    short_one = Memory.objects.get(external_id="short")
    assert short_one.embedding_model == embeddings.MODEL_ID
    assert len(short_one.embedding) == 384
    assert "1 embedded" in result.stdout


def test_csv_files_import_like_jsonl(run_command, tmp_path):
    path = tmp_path / "memories.csv"
    path.write_text(
        "id,namespace,content,tags,importance,metadata\n"
        'c1,alice,Prefers Python,python;lang,0.7,"{""k"": 1}"\n'
        'c2,alice,"Works, mostly, remotely",,,\n'
    )

    result = run_command("import_memories", str(path))

    assert result.error is None
    c1 = Memory.objects.get(external_id="c1")
    assert (c1.tags, c1.importance, c1.metadata) == (["python", "lang"], 0.7, {"k": 1})
    assert Memory.objects.get(external_id="c2").content == "Works, mostly, remotely"


def test_a_bad_csv_row_is_named_by_its_line(run_command, tmp_path):
    path = tmp_path / "memories.csv"
    path.write_text("id,namespace,content,importance\nc1,alice,ok,0.5\nc2,alice,bad,lots\n")

    result = run_command("import_memories", str(path))

    assert "line 3: importance must be a number from 0 to 1, not 'lots'" in result.stderr
    assert Memory.objects.count() == 0


def test_a_large_file_is_written_in_chunks_with_progress(settings, write_jsonl):
    from memadmin.curation import decisions
    from memadmin.store import importing

    settings.IMPORT_CHUNK_SIZE = 10
    path = write_jsonl([line(f"m{i}", f"fact {i}") for i in range(35)])
    chunks = []

    result = decisions.import_records(
        records=importing.read_records(path, default_namespace=None, skip_lines=set()),
        actor="test",
        embed=False,
        on_progress=chunks.append,
    )

    assert chunks == [10, 10, 10, 5]
    assert result.created == Memory.objects.count() == 35


def test_an_imported_supersession_is_linked_with_history(run_command, write_jsonl):
    path = write_jsonl(
        [
            line("new", "Deploys go out through GitHub Actions."),
            line("old", "Deploys go out by hand.", status="superseded", superseded_by="new"),
        ]
    )

    result = run_command("import_memories", str(path))

    old = Memory.objects.get(external_id="old")
    assert result.error is None and old.superseded_by.external_id == "new"
    event = HistoryEvent.objects.get(memory=old, action="update")
    assert event.after["superseded_by_id"] == old.superseded_by_id
    assert event.reason == "line 2: superseded by new"


def test_a_supersession_naming_an_unknown_id_imports_nothing(run_command, write_jsonl):
    path = write_jsonl(
        [line("old", "Deploys by hand.", status="superseded", superseded_by="nowhere")]
    )

    result = run_command("import_memories", str(path))

    assert "line 1: superseded_by 'nowhere' is not a known id; nothing imported" in str(
        result.error
    )
    assert not Memory.objects.exists()


# --- Hostile files -----------------------------------------------------------------------

GOOD = json.dumps(line("good", "A good line."))


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b'{"id": "x", "namespace": "alice", "content": "caf\xe9"}', "invalid UTF-8"),
        (json.dumps(line("x", "nul \x00 here")).encode(), "content contains a NUL character"),
        (b'{"id": "x", "namespace": "alice", "content": "\\ud800"}', "lone surrogate"),
        (b'{"id": "x", "namespace": "alice", "content": "a\x00b"}', "invalid JSON"),
        (b'{"id": "x", "namespace": "alice", "content": "x", "importance": NaN}', "NaN"),
        (
            json.dumps(line("x", "y", created_at="0001-01-01T00:00:00+05:00")).encode(),
            "created_at must be between 1970-01-01 and 9999-12-31",
        ),
        (
            json.dumps(line("x", "y", created_at="2026-02-30T10:00:00Z")).encode(),
            "created_at is not a real date",
        ),
        (
            b'{"id": "x", "namespace": "alice", "content": "y", "access_count": '
            + b"9" * 5000
            + b"}",
            "a number of 5000 characters",
        ),
        (json.dumps(line("x", "y", access_count=2**31)).encode(), "access_count must be a whole"),
        (json.dumps(line("x", "y", tags=["t" * 101])).encode(), "tags must each be at most 100"),
        (json.dumps(line("x" * 201, "y")).encode(), "id is longer than 200 characters"),
        (json.dumps(line("x", "y", namespace="alice\n")).encode(), "namespace must be letters"),
        (
            json.dumps(
                line("x", "y", provenance=[{"a": [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]}])
            ).encode(),
            "nested more than 20",
        ),
        (b"[" * 100_000 + b"]" * 100_000, "nested more than"),
        (json.dumps(line("x", "y", superseded_by="x", status="superseded")).encode(), "itself"),
    ],
)
@pytest.mark.parametrize("skip_invalid", [False, True])
def test_a_hostile_line_is_named_by_its_number_and_never_crashes(
    run_command, tmp_path, raw, reason, skip_invalid
):
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(GOOD.encode() + b"\n" + raw + b"\n")

    result = run_command(
        "import_memories", str(path), *(["--skip-invalid"] if skip_invalid else [])
    )

    assert f"{path}: line 2: " in result.stderr
    assert reason in result.stderr.split("line 2: ", 1)[1]
    if skip_invalid:
        assert result.error is None
        assert list(Memory.objects.values_list("external_id", flat=True)) == ["good"]
    else:
        assert "nothing imported" in str(result.error)
        assert Memory.objects.count() == 0


@pytest.mark.parametrize(
    ("text", "line_number", "reason"),
    [
        ('id,content\na,"open quote\nb,fine\n', 2, "a quote opened here is never closed"),
        ("id,content,id\na,text,b\n", 1, "column 'id' appears twice in the header"),
        ("id,content\na,te\x00xt\n", 2, "content contains a NUL character"),
        ("id,,content\na,x,text\n", 1, "empty column name"),
        ("id,content\na,text,extra\n", 2, "more cells than the header has columns"),
    ],
)
def test_a_broken_csv_is_an_error_not_a_merged_line(
    run_command, tmp_path, text, line_number, reason
):
    path = tmp_path / "memories.csv"
    path.write_text(text)

    result = run_command("import_memories", str(path), "--namespace", "alice")

    assert f"{path}: line {line_number}: " in result.stderr and reason in result.stderr
    assert result.error is not None and Memory.objects.count() == 0


def test_a_csv_line_of_invalid_utf8_is_named(run_command, tmp_path):
    path = tmp_path / "memories.csv"
    path.write_bytes(b"id,content\na,fine\nb,caf\xe9\nc,also fine\n")

    result = run_command("import_memories", str(path), "--namespace", "alice", "--skip-invalid")

    assert f"{path}: line 3: invalid UTF-8" in result.stderr
    assert sorted(Memory.objects.values_list("external_id", flat=True)) == ["a", "c"]


def test_an_older_export_over_a_curated_store_keeps_what_curation_decided(
    run_command, load, write_jsonl
):
    load(
        line("a", "Prefers tea.", unit(1), importance=0.4),
        line("b", "prefers tea", unit(1), importance=0.9, tags=["drink"]),
    )
    backup = run_command("export_memories").stdout
    run_command("find_duplicates")
    assert Memory.objects.get(external_id="a").status == "superseded"

    result = run_command("import_memories", str(write_jsonl(backup.splitlines(), "backup.jsonl")))

    assert result.error is None
    assert "1 kept the status curation gave them" in result.stdout
    a = Memory.objects.get(external_id="a")
    assert (a.status, a.superseded_by.external_id) == ("superseded", "b")
