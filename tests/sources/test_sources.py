"""A source end to end, on each kind of store, real: add, pull, find_duplicates, decide on
the review pages, push; the store holds exactly what the decisions say and nothing else
changed; an agent's write between pull and push wins; an undo is restored on the next
push."""

from __future__ import annotations

import hashlib
import json
import re
import sys
import uuid

import psycopg
import pytest
from django.contrib.auth.models import User
from django.test import Client

from memadmin.curation.models import Cluster, Conflict
from memadmin.sources.models import PushOperation, Source, SourcePoint
from memadmin.store.models import Memory
from tests.factories import person
from tests.sources.stores import (
    Chroma,
    ChromaMem0,
    Pgvector,
    QdrantMem0,
    QdrantMem0Keywords,
    Records,
    vector_of,
)

pytestmark = pytest.mark.django_db(transaction=True)

# Point ids: UUIDs (what Qdrant takes; the other stores take any string).
ID = {name: str(uuid.UUID(int=number + 1)) for number, name in enumerate("abcdefghi")}
MERGED = "User enjoys hiking in the Alps at weekends."

POINTS = [
    ("a", "User prefers Python for scripting.", "2026-01-01"),
    ("b", "User prefers Python for scripting.", "2026-01-02"),  # an exact repeat of a
    ("c", "User likes to hike in the Alps.", "2026-01-03"),
    ("d", "User enjoys hiking in the Alps on weekends.", "2026-01-04"),  # a paraphrase of c
    ("e", "User lives in Lyon.", "2026-01-05"),
    ("f", "User moved to Porto in March 2026.", "2026-03-20"),  # e's update
    ("g", "User has a cat named Miso.", "2026-01-07"),
    ("h", "User works as a nurse at St Mary's hospital.", "2026-01-08"),
    ("i", "User's favourite board game is Go.", "2026-01-09"),
]


def build_points() -> list[dict]:
    return [
        {
            "id": ID[name],
            "text": text,
            "metadata": {"created_at": f"{day}T09:00:00+00:00", "origin": "chat"},
            "vector": vector_of(number),
        }
        for number, (name, text, day) in enumerate(POINTS)
    ]


@pytest.fixture(params=["chroma", "qdrant-mem0", "pgvector", "jsonl"])
def store(request, tmp_path, monkeypatch):
    kind = request.param
    if kind == "chroma":
        pytest.importorskip("chromadb")
        yield Chroma(tmp_path)
    elif kind == "qdrant-mem0":
        pytest.importorskip("qdrant_client")
        yield QdrantMem0(tmp_path)
    elif kind == "pgvector":
        from tests.processes import database_url

        monkeypatch.setenv(Pgvector.DSN_VARIABLE, database_url())
        table = Pgvector()
        yield table
        table.drop()
    else:
        yield Records(tmp_path)


def same_points(found: dict, expected: dict) -> None:
    """The store holds exactly these points: ids, texts, metadata, vectors."""
    assert sorted(found) == sorted(expected)
    for id_, point in expected.items():
        assert found[id_]["text"] == point["text"], id_
        assert found[id_]["metadata"] == point["metadata"], id_
        if point["vector"] is None:
            assert found[id_]["vector"] is None
        else:
            assert found[id_]["vector"] == pytest.approx(point["vector"], abs=1e-5), id_


def form_of(page: str, action: str) -> dict:
    form = re.search(rf'<form[^>]*action="{re.escape(action)}".*?</form>', page, re.S).group(0)
    return dict(re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', form))


def memory_of(name: str) -> Memory:
    return SourcePoint.objects.get(point_id=ID[name]).memory


def test_pull_review_and_push_do_exactly_what_was_decided(store, run_command):
    store.build(build_points())
    pulled = store.read()

    assert run_command("add_source", "agent", *store.args()).error is None
    first = run_command("pull_source", "agent")
    assert first.error is None, first.stderr
    assert "9 created" in first.stdout
    assert Memory.objects.filter(status="active").count() == 9
    # memadmin's own vectors: the store's (8 numbers) are never compared with them
    assert all(len(m.embedding) == 384 for m in Memory.objects.all())
    again = run_command("pull_source", "agent")
    assert "0 created, 0 changed in the source, 9 unchanged" in again.stdout

    assert run_command("find_duplicates", "--no-llm").error is None
    repeat = next(n for n in "ab" if memory_of(n).status == "superseded")  # folded
    cluster = Cluster.objects.get(status="open")
    assert {m.memory.external_id for m in cluster.memberships.all()} == {ID["c"], ID["d"]}
    conflict = Conflict.objects.get(status="open")

    # On the review pages: the merge accepted with the curator's text, the conflict
    # settled as "the newer supersedes the older".
    curator = Client()
    curator.force_login(person("carla", "curator"))
    page = curator.get(f"/clusters/{cluster.pk}/").content.decode()
    accept = f"/clusters/{cluster.pk}/accept"
    assert curator.post(accept, {**form_of(page, accept), "text": MERGED}).status_code == 302
    admin = Client()
    admin.force_login(person("ada", "admin"))
    settle = admin.post(f"/conflicts/{conflict.pk}/resolve", {"resolution": "b_supersedes_a"})
    assert settle.status_code == 302
    assert memory_of("e").status == "superseded"

    # Between pull and push the agent rewrites e (which memadmin superseded) and g.
    store.agent_writes(ID["e"], "User lives in Lyon, near the Parc de la Tête d'Or.")
    store.agent_writes(ID["g"], "User has two cats, Miso and Tofu.")
    written = store.read()

    dry = run_command("push_source", "agent", "--dry-run")
    assert f"would delete {ID[repeat]}" in dry.stdout
    assert f"would delete {ID['c']}" in dry.stdout
    assert f"would update {ID['d']}: {MERGED!r}" in dry.stdout
    # The store is read as a push reads it: e, which the agent rewrote, would be left alone.
    assert f"left alone: {ID['e']}: changed in the source since memadmin read it" in dry.stdout
    same_points(store.read(), written)  # a dry run sends nothing
    assert not PushOperation.objects.exists()

    pushed = run_command("push_source", "agent")
    assert pushed.error is None, pushed.stderr
    assert f"left alone: {ID['e']}: changed in the source since memadmin read it" in pushed.stdout
    expected = {id_: dict(point) for id_, point in written.items()}
    del expected[ID[repeat]], expected[ID["c"]]
    merged_point = store.read()[ID["d"]]
    # Nothing of memadmin's in what the agent reads: the old vector is recorded here.
    assert not any(key.startswith("memadmin") for key in merged_point["metadata"])
    assert SourcePoint.objects.get(point_id=ID["d"]).vector_stale
    expected[ID["d"]] = {**written[ID["d"]], "text": MERGED, "metadata": merged_point["metadata"]}
    same_points(store.read(), expected)
    if store.kind == "qdrant":  # Mem0's own fields follow the text
        assert merged_point["metadata"]["hash"] != written[ID["d"]]["metadata"]["hash"]
    assert "nothing" in run_command("push_source", "agent").stdout.split(": ", 1)[1]

    # The agent's write wins here too: the next pull brings e back, active.
    assert "0 created, 2 changed in the source" in run_command("pull_source", "agent").stdout
    assert memory_of("e").status == "active"
    assert memory_of("e").content == "User lives in Lyon, near the Parc de la Tête d'Or."

    # Undo the merge: the next push gives c and d back exactly as they were.
    undo = curator.post(f"/history/unmerge/{cluster.pk}")
    assert undo.status_code == 302
    assert memory_of("c").status == "active"
    restored = run_command("push_source", "agent")
    assert f"restore {ID['c']}" in restored.stdout and f"restore {ID['d']}" in restored.stdout
    expected[ID["c"]] = pulled[ID["c"]]
    expected[ID["d"]] = pulled[ID["d"]]
    expected[ID["e"]] = store.read()[ID["e"]]
    same_points(store.read(), expected)


@pytest.fixture
def qdrant(tmp_path):
    pytest.importorskip("qdrant_client")
    return QdrantMem0(tmp_path)


@pytest.fixture
def records(tmp_path):
    return Records(tmp_path)


def pulled_and_checked(store, run_command, *extra, points=None) -> None:
    store.build(points or build_points())
    assert run_command("add_source", "agent", *store.args(), *extra).error is None
    assert run_command("pull_source", "agent").error is None
    assert run_command("find_duplicates", "--no-llm").error is None


def test_mem0_points_go_to_one_namespace_per_user(qdrant, run_command):
    pulled_and_checked(qdrant, run_command)

    assert set(Memory.objects.values_list("namespace__name", flat=True)) == {"agent-alice"}
    first = Memory.objects.get(external_id=ID["a"])
    assert first.content == "User prefers Python for scripting."
    assert first.created_at.isoformat().startswith("2026-01-01T09:00")
    assert first.metadata["user_id"] == "alice" and "data" not in first.metadata
    assert first.history.get(action="import").actor == "source:agent"


def test_mark_mode_marks_what_was_merged_and_deletes_nothing(qdrant, run_command):
    pulled_and_checked(qdrant, run_command)
    repeat, kept = sorted("ab", key=lambda n: memory_of(n).status != "superseded")

    pushed = run_command("push_source", "agent", "--mode", "mark")

    assert pushed.error is None and "1 mark" in pushed.stdout
    found = qdrant.read()
    assert len(found) == len(POINTS)  # nothing deleted
    marked = found[ID[repeat]]["metadata"]
    assert marked["memadmin_status"] == "superseded"
    assert marked["memadmin_superseded_by"] == ID[kept]
    assert "memadmin_status" not in found[ID[kept]]["metadata"]
    assert "nothing" in run_command("push_source", "agent", "--mode", "mark").stdout


def test_a_push_killed_after_sending_resumes_without_sending_twice(records, run_command):
    """The journal is written before sending. A push killed after sending and before
    noting it (it waits on a row another session holds, then kill -9) finds its operation
    applied on the next push: the decisions file gets each line once."""
    import subprocess
    import time

    from django.conf import settings

    from tests.processes import database_url, environment

    pulled_and_checked(records, run_command)
    repeat = next(n for n in "ab" if memory_of(n).status == "superseded")
    holder = psycopg.connect(database_url())
    # NO KEY UPDATE: the journal's new rows may point at the row (a key share); noting
    # what was sent (an update of the row) waits.
    holder.execute(
        "SELECT 1 FROM sources_sourcepoint WHERE point_id = %s FOR NO KEY UPDATE", [ID[repeat]]
    )
    push = subprocess.Popen(
        [sys.executable, "manage.py", "push_source", "agent"],
        cwd=settings.BASE_DIR,
        env=environment(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not (records.ops.exists() and records.ops.read_text()):
            assert time.monotonic() < deadline and push.poll() is None
            time.sleep(0.05)
        time.sleep(0.3)  # sent; now waiting to note it
    finally:
        push.kill()
        push.wait()
        holder.rollback()
        holder.close()
    sent = records.ops.read_text().splitlines()
    assert len(sent) == 1  # the exact repeat's delete went out
    assert PushOperation.objects.get().status == "pending"  # and was never noted

    again = run_command("push_source", "agent")

    assert again.error is None and "(1 resumed)" in again.stdout
    assert records.ops.read_text().splitlines() == sent  # not sent a second time
    assert PushOperation.objects.get().status == "done"
    assert "nothing" in run_command("push_source", "agent").stdout


def test_a_point_gone_from_the_source_is_retired_here_with_history(records, run_command):
    pulled_and_checked(records, run_command)
    kept = [line for line in records.path.read_text().splitlines() if ID["h"] not in line]
    records.path.write_text("\n".join(kept) + "\n")

    pulled = run_command("pull_source", "agent")

    assert "1 gone from the source (retired)" in pulled.stdout
    nurse = memory_of("h")
    assert nurse.status == "deleted"
    assert nurse.history.get(action="forget").reason == "gone from source agent"
    assert "0 gone" in run_command("pull_source", "agent").stdout
    # Nothing is sent for what the source itself dropped: only the exact repeat's delete.
    dry = run_command("push_source", "agent", "--dry-run").stdout
    assert ID["h"] not in dry and "dry run, nothing sent: 1 delete;" in dry


def test_a_point_no_reader_could_read_back_is_skipped_by_name(records, run_command):
    records.build(build_points())
    with records.path.open("a") as out:
        out.write('{"id": "bad", "text": "nul \\u0000 byte"}\n{"id": "empty", "text": ""}\n')
    assert run_command("add_source", "agent", *records.args()).error is None

    pulled = run_command("pull_source", "agent")

    assert pulled.error is None and "9 created" in pulled.stdout and "2 skipped" in pulled.stdout
    assert "point bad: skipped:" in pulled.stderr and "point empty: skipped:" in pulled.stderr
    assert not Memory.objects.filter(external_id__in=["bad", "empty"]).exists()


def test_add_source_refuses_what_it_cannot_use(run_command, tmp_path, monkeypatch):
    with_password = run_command(
        "add_source",
        "x",
        "--kind",
        "pgvector",
        "--location",
        "postgresql://u:secret@db/x",
        "--table",
        "t",
    )
    assert "holds a password" in str(with_password.error)
    assert "secret" not in str(with_password.error)
    no_table = run_command("add_source", "x", "--kind", "chroma", "--location", str(tmp_path))
    assert "needs --collection" in str(no_table.error)
    bad_name = run_command("add_source", "a b", "--kind", "jsonl", "--location", "x")
    assert "letters, digits" in str(bad_name.error)
    missing = run_command("add_source", "x", "--kind", "jsonl", "--location", str(tmp_path / "no"))
    assert "no records file" in str(missing.error)
    assert "no source named y" in str(run_command("pull_source", "y").error)
    assert not Source.objects.exists()

    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "chromadb" else real(name, *a)
    )
    absent = run_command(
        "add_source", "x", "--kind", "chroma", "--location", str(tmp_path), "--collection", "m"
    )
    assert "pip install 'memadmin[chroma]'" in str(absent.error)


def test_credentials_stay_in_the_environment(run_command, monkeypatch):
    from tests.processes import database_url

    monkeypatch.setenv("AGENT_DSN", database_url())
    table = Pgvector()
    table.build(build_points())
    try:
        added = run_command(
            "add_source",
            "agent",
            "--kind",
            "pgvector",
            "--location-env",
            "AGENT_DSN",
            "--table",
            "agent.memories",
        )
        assert added.error is None and "$AGENT_DSN" in added.stdout
        source = Source.objects.get()
        assert source.location == "" and source.location_env == "AGENT_DSN"
        assert "9 created" in run_command("pull_source", "agent").stdout
        monkeypatch.delenv("AGENT_DSN")
        assert "AGENT_DSN is not set" in str(run_command("pull_source", "agent").error)
    finally:
        table.drop()


def decide_all(run_command) -> None:
    """Accept the open cluster with MERGED and settle the conflict (newer supersedes)."""
    curator = Client()
    curator.force_login(person("carla", "curator"))
    cluster = Cluster.objects.get(status="open")
    page = curator.get(f"/clusters/{cluster.pk}/").content.decode()
    accept = f"/clusters/{cluster.pk}/accept"
    assert curator.post(accept, {**form_of(page, accept), "text": MERGED}).status_code == 302
    conflict = Conflict.objects.get(status="open")
    admin = Client()
    admin.force_login(person("ada", "admin"))
    settled = admin.post(f"/conflicts/{conflict.pk}/resolve", {"resolution": "b_supersedes_a"})
    assert settled.status_code == 302


def test_a_push_killed_halfway_resumes_and_does_each_operation_once(run_command, monkeypatch):
    """kill -9 while the push waits on a row another session holds (its journal written,
    the first operation sent), then push again: every operation done once, the table as
    the decisions say."""
    import time

    from tests.processes import database_url, start_with

    monkeypatch.setenv(Pgvector.DSN_VARIABLE, database_url())
    table = Pgvector()
    table.build(build_points())
    try:
        assert run_command("add_source", "agent", *table.args()).error is None
        assert run_command("pull_source", "agent").error is None
        assert run_command("find_duplicates", "--no-llm").error is None
        decide_all(run_command)
        planned = re.findall(
            r"would (\w+) (\S+)", run_command("push_source", "agent", "--dry-run").stdout
        )
        assert len(planned) == 4
        second = planned[1][1]

        holder = table.connect()
        holder.autocommit = False
        holder.execute("SELECT 1 FROM agent.memories WHERE id = %s FOR UPDATE", [second])

        push = start_with({"MEMADMIN_SOURCE_PUSH_BATCH": "1"}, "push_source", "agent")
        try:
            deadline = time.monotonic() + 60
            while not PushOperation.objects.filter(
                point__point_id=second, before__isnull=False
            ).exists():
                assert time.monotonic() < deadline and push.poll() is None
                time.sleep(0.05)
            time.sleep(0.3)  # it is waiting on the row now
        finally:
            push.kill()  # SIGKILL: no clean-up of any kind
            push.wait()
            holder.rollback()
            holder.close()
        statuses = dict(PushOperation.objects.values_list("point__point_id", "status"))
        assert statuses[planned[0][1]] == "done" and statuses[second] == "pending"

        resumed = run_command("push_source", "agent")

        assert resumed.error is None, resumed.stderr
        assert "resumed)" in resumed.stdout
        assert PushOperation.objects.count() == 4  # nothing planned twice
        assert set(PushOperation.objects.values_list("status", flat=True)) == {"done"}
        found = table.read()
        repeat = next(n for n in "ab" if memory_of(n).status == "superseded")
        assert sorted(found) == sorted(ID[n] for n in "abcdefghi" if n not in (repeat, "c", "e"))
        assert found[ID["d"]]["text"] == MERGED
        assert "nothing" in run_command("push_source", "agent").stdout
    finally:
        table.drop()


def test_a_source_of_memadmins_own_model_gets_the_merged_texts_vector(tmp_path, run_command):
    """--embedder memadmin: the store's vectors are MiniLM's, so a merge's text is sent
    with its own vector (no mark asking the owner to embed it again)."""
    pytest.importorskip("chromadb")
    from memadmin.store import embeddings

    store = Chroma(tmp_path)
    built = build_points()
    for point in built:
        point["vector"] = [float(x) for x in embeddings.encode([point["text"]])[0]]
    store.build(built)
    assert run_command("add_source", "agent", *store.args(), "--embedder", "memadmin").error is None
    assert run_command("pull_source", "agent").error is None
    assert run_command("find_duplicates", "--no-llm").error is None
    curator = Client()
    curator.force_login(person("carla", "curator"))
    cluster = Cluster.objects.get(status="open")
    page = curator.get(f"/clusters/{cluster.pk}/").content.decode()
    accept = f"/clusters/{cluster.pk}/accept"
    assert curator.post(accept, {**form_of(page, accept), "text": MERGED}).status_code == 302

    assert run_command("push_source", "agent").error is None

    carrier = store.read()[ID["d"]]
    assert carrier["text"] == MERGED and "memadmin_text_changed" not in carrier["metadata"]
    assert carrier["vector"] == pytest.approx(list(embeddings.encode([MERGED])[0]), abs=1e-5)


def test_reembed_gives_stale_points_memadmins_vector_and_the_page_lists_them(tmp_path, run_command):
    """A store of memadmin's model added without --embedder: the merged text keeps the old
    vector (listed on the Sources page) until `push_source --reembed`; a store of another
    model is refused by name."""
    pytest.importorskip("chromadb")
    from memadmin.store import embeddings

    store = Chroma(tmp_path)
    built = build_points()
    for point in built:
        point["vector"] = [float(x) for x in embeddings.encode([point["text"]])[0]]
    merged_by_a_curator(store, run_command, points=built)
    assert run_command("push_source", "agent").error is None
    assert SourcePoint.objects.get(point_id=ID["d"]).vector_stale
    admin = Client()
    admin.force_login(person("ada", "admin"))
    page = admin.get("/sources/").content.decode()
    assert "1 with a vector of their old text" in page and ID["d"] in page

    done = run_command("push_source", "agent", "--reembed")

    assert done.error is None and "re-embedded 1 point(s); 0 changed" in done.stdout
    carrier = store.read()[ID["d"]]
    assert carrier["vector"] == pytest.approx(list(embeddings.encode([MERGED])[0]), abs=1e-5)
    assert carrier["text"] == MERGED
    assert not SourcePoint.objects.filter(vector_stale=True).exists()
    assert "with a vector of their old text" not in admin.get("/sources/").content.decode()


def test_reembed_refuses_a_store_of_another_model(tmp_path, run_command):
    pytest.importorskip("chromadb")
    store = Chroma(tmp_path)
    merged_by_a_curator(store, run_command)  # the agent's own 8-number vectors
    assert run_command("push_source", "agent").error is None
    before = store.read()

    refused = run_command("push_source", "agent", "--reembed")

    assert "the store's vectors have 8 numbers, memadmin's model 384" in str(refused.error)
    assert store.read() == before
    assert SourcePoint.objects.get(point_id=ID["d"]).vector_stale


def test_a_mem0_table_on_postgresql_is_pulled_and_pushed(run_command, monkeypatch):
    """Mem0's pgvector layout: (id UUID, vector, payload JSONB), the text under "data"."""
    import hashlib
    import json

    from psycopg.types.json import Jsonb

    from tests.processes import database_url

    monkeypatch.setenv("MEM0_DSN", database_url())
    points = build_points()
    with psycopg.connect(database_url(), autocommit=True) as connection:
        connection.execute("DROP SCHEMA IF EXISTS mem0 CASCADE")
        connection.execute("CREATE SCHEMA mem0")
        connection.execute(
            "CREATE TABLE mem0.mem0 (id UUID PRIMARY KEY, vector vector(8), payload JSONB)"
        )
        for point in points:
            payload = {**point["metadata"], "data": point["text"], "user_id": "alice"}
            payload["hash"] = hashlib.md5(point["text"].encode()).hexdigest()
            connection.execute(
                "INSERT INTO mem0.mem0 VALUES (%s, %s, %s)",
                [point["id"], json.dumps(point["vector"]), Jsonb(payload)],
            )
    try:
        added = run_command(
            "add_source", "agent", "--kind", "pgvector", "--location-env", "MEM0_DSN",
            "--table", "mem0.mem0", "--layout", "mem0", "--namespace-from", "user_id",
        )  # fmt: skip
        assert added.error is None, added.error
        assert "9 created" in run_command("pull_source", "agent").stdout
        assert Memory.objects.filter(namespace__name="agent-alice").count() == 9
        assert run_command("find_duplicates", "--no-llm").error is None
        decide_all(run_command)

        pushed = run_command("push_source", "agent")

        assert pushed.error is None, pushed.stderr
        with psycopg.connect(database_url()) as connection:
            rows = connection.execute(
                "SELECT id::text, payload, vector::text FROM mem0.mem0"
            ).fetchall()
        found = {id_: (payload, json.loads(vector)) for id_, payload, vector in rows}
        repeat = next(n for n in "ab" if memory_of(n).status == "superseded")
        assert sorted(found) == sorted(ID[n] for n in "abcdefghi" if n not in (repeat, "c", "e"))
        payload, vector = found[ID["d"]]
        assert payload["data"] == MERGED and "memadmin_text_changed" not in payload
        assert SourcePoint.objects.get(point_id=ID["d"]).vector_stale
        assert payload["hash"] == hashlib.md5(MERGED.encode()).hexdigest()
        assert vector == pytest.approx(points[3]["vector"], abs=1e-6)  # the store's own
        assert found[ID["g"]][0]["data"] == "User has a cat named Miso."  # untouched
    finally:
        with psycopg.connect(database_url(), autocommit=True) as connection:
            connection.execute("DROP SCHEMA IF EXISTS mem0 CASCADE")


def test_a_fact_written_again_after_a_merge_stays_on_one_point(records, run_command):
    pulled_and_checked(records, run_command)
    decide_all(run_command)
    assert run_command("push_source", "agent").error is None
    with records.path.open("a") as out:  # the agent writes the merged fact once more
        out.write(json.dumps({"id": "j", "text": MERGED}) + "\n")
    assert "1 created" in run_command("pull_source", "agent").stdout
    assert run_command("find_duplicates", "--no-llm").error is None

    assert run_command("push_source", "agent").error is None

    holding = [id_ for id_, point in records.read().items() if point["text"] == MERGED]
    assert len(holding) == 1
    assert "nothing" in run_command("push_source", "agent").stdout


def test_add_source_refuses_hostile_values_by_name(run_command, tmp_path):
    records = tmp_path / "records.jsonl"
    records.write_text('{"id": "a", "text": "Likes tea."}\n')
    cases = [
        (["--location", "bad\x00path"], "--location"),
        (["--location", str(records), "--namespace-from", "x" * 500], "--namespace-from"),
        (["--location", str(records), "--text-field", "te\x00xt"], "--text-field"),
        (["--location", str(records), "--namespace", "not a slug"], "namespace"),
    ]
    for arguments, named in cases:
        refused = run_command("add_source", "notes", "--kind", "jsonl", *arguments)
        assert refused.error is not None and named in str(refused.error), arguments
    assert not Source.objects.exists()


def merged_by_a_curator(store, run_command, points=None) -> Cluster:
    """Pulled, detected, and c + d (a paraphrase) merged on the page as MERGED."""
    pulled_and_checked(store, run_command, points=points)
    cluster = Cluster.objects.get(status="open")
    curator = Client()
    curator.force_login(person("carla", "curator"))
    page = curator.get(f"/clusters/{cluster.pk}/").content.decode()
    accept = f"/clusters/{cluster.pk}/accept"
    assert curator.post(accept, {**form_of(page, accept), "text": MERGED}).status_code == 302
    return cluster


def test_a_merge_whose_carrier_the_agent_edited_is_left_alone_whole(store, run_command):
    """The merge is sent whole or not at all: its member is not deleted while its merged
    text cannot be written, so no fact is lost; the agent's edit comes in with the pull."""
    merged_by_a_curator(store, run_command)
    store.agent_writes(ID["d"], "User hikes in the Alps most weekends.")  # the carrier
    before = store.read()

    pushed = run_command("push_source", "agent")

    assert pushed.error is None, pushed.stderr
    after = store.read()
    assert after[ID["c"]]["text"] == before[ID["c"]]["text"]  # not deleted: no fact lost
    assert after[ID["d"]]["text"] == "User hikes in the Alps most weekends."
    assert f"left alone: {ID['c']}: left alone with its decision: {ID['d']} changed" in (
        pushed.stdout
    )
    pulled = run_command("pull_source", "agent")
    assert "1 changed in the source" in pulled.stdout
    assert memory_of("d").content == "User hikes in the Alps most weekends."


def test_a_merge_whose_carrier_the_agent_deleted_goes_to_another_members_point(
    records, run_command
):
    merged_by_a_curator(records, run_command)
    records.agent_deletes(ID["d"])  # the carrier

    pushed = run_command("push_source", "agent")

    assert pushed.error is None, pushed.stderr
    after = records.read()
    assert after[ID["c"]]["text"] == MERGED  # the merged text has a point behind it
    assert ID["d"] not in after
    assert f"{ID['c']} carries the merged text instead" in pushed.stdout


def test_a_merged_fact_whose_point_the_agent_deleted_after_the_push_is_retired(qdrant, run_command):
    """The carrier holds the merge's text after the push; the agent deletes it; the next
    pull retires the merged memory too (no active memory with nothing behind it)."""
    merged_by_a_curator(qdrant, run_command)
    assert run_command("push_source", "agent").error is None
    merged = Memory.objects.get(status="active", content=MERGED)
    qdrant.agent_deletes(ID["d"])  # the carrier, now holding MERGED

    pulled = run_command("pull_source", "agent")

    assert "1 gone from the source" in pulled.stdout
    merged.refresh_from_db()
    assert merged.status == "deleted"
    assert "the point that carried it is gone from source agent" in (
        merged.history.get(action="forget").reason
    )
    assert "nothing" in run_command("push_source", "agent").stdout


def test_a_change_left_alone_is_said_and_journalled_once(records, run_command):
    merged_by_a_curator(records, run_command)
    records.agent_writes(ID["d"], "User hikes in the Alps most weekends.")  # the carrier

    first = run_command("push_source", "agent")
    second = run_command("push_source", "agent")

    assert first.stdout.count("left alone:") == 2  # c and d, with their decision
    assert "left alone:" not in second.stdout
    assert "0 left alone (changed in the source), 2 still left alone as reported before" in (
        second.stdout
    )
    assert PushOperation.objects.filter(status="skipped").count() == 2
    # Changed again: said again (c, unchanged and left alone for the same reason, not).
    records.agent_writes(ID["d"], "User hikes in the Alps every weekend.")
    third = run_command("push_source", "agent").stdout
    assert f"left alone: {ID['d']}: changed in the source" in third
    assert "1 left alone (changed in the source), 1 still left alone" in third


def test_each_operation_names_the_decision_it_comes_from(records, run_command):
    """A settlement that changed nothing on a memory (not a conflict, both valid) is in
    its history too, newer than the decision that retired it: never its reason."""
    from memadmin.curation.models import HistoryEvent

    pulled_and_checked(records, run_command)
    repeat = next(memory_of(n) for n in "ab" if memory_of(n).status == "superseded")
    HistoryEvent.objects.create(
        namespace=repeat.namespace,
        memory=repeat,
        action="resolve",
        actor="user:ada",
        before={"status": "superseded"},
        after={"status": "superseded"},
        reason="conflict 9 settled: not a conflict",
    )

    dry = run_command("push_source", "agent", "--dry-run").stdout

    assert f"delete {repeat.external_id} (supersede by command:find_duplicates: exact" in dry
    assert "not a conflict" not in dry


def test_mem0_history_is_refused_where_it_cannot_be_mem0s(run_command, tmp_path, qdrant):
    qdrant.build(build_points())
    not_mem0 = tmp_path / "history.db"
    not_mem0.write_bytes(b"not a database at all, just some bytes" * 100)
    at = qdrant.args().index("--layout")
    plain = qdrant.args()[:at] + qdrant.args()[at + 2 :]
    for arguments, named in [
        ([*qdrant.args(), "--mem0-history", str(not_mem0)], "is not a SQLite database"),
        ([*qdrant.args(), "--mem0-history", str(tmp_path / "none.db")], "cannot open"),
        ([*plain, "--mem0-history", str(not_mem0)], "is for a source with --layout mem0"),
        ([*qdrant.args(), "--mem0-history", "history\x00.db"], "--mem0-history"),
        ([*qdrant.args(), "--mem0-history", str(tmp_path / "a?b#c.db")], "no such file"),
    ]:
        refused = run_command("add_source", "agent", *arguments)
        assert refused.error is not None and named in str(refused.error), arguments
    assert not Source.objects.exists()


def test_keyword_vectors_are_journalled_exactly_and_dropped_from_a_rewritten_text(
    tmp_path, run_command
):
    """Mem0 2.x's collections: a named dense vector and a sparse keyword vector. A push
    does not crash on them; the merged text keeps its dense vector and loses the keyword
    vector and `text_lemmatized` of the old text; an undo gives back every vector exactly."""
    pytest.importorskip("qdrant_client")
    store = QdrantMem0Keywords(tmp_path)
    cluster = merged_by_a_curator(store, run_command)
    before = store.read()

    pushed = run_command("push_source", "agent")

    assert pushed.error is None, pushed.stderr
    after = store.read()
    assert ID["c"] not in after
    carrier = after[ID["d"]]
    assert carrier["text"] == MERGED and "text_lemmatized" not in carrier["metadata"]
    # The keywords gone, the dense vector kept (Qdrant returns a lone "" vector bare).
    kept = carrier["vector"]
    assert not isinstance(kept, dict) or set(kept) == {""}
    dense = kept[""] if isinstance(kept, dict) else kept
    assert dense == pytest.approx(before[ID["d"]]["vector"][""], abs=1e-6)

    curator = Client()
    curator.force_login(User.objects.get(username="carla"))
    assert curator.post(f"/history/unmerge/{cluster.pk}").status_code == 302
    assert run_command("push_source", "agent").error is None
    restored = store.read()
    for name in "cd":
        assert restored[ID[name]]["text"] == before[ID[name]]["text"]
        assert restored[ID[name]]["metadata"] == before[ID[name]]["metadata"]
        assert restored[ID[name]]["vector"][""] == before[ID[name]]["vector"][""]  # exact
        assert restored[ID[name]]["vector"]["bm25"] == before[ID[name]]["vector"]["bm25"]


def test_mem0_on_chromadb_is_pulled_and_pushed_in_its_own_layout(tmp_path, run_command):
    """Mem0's Chroma store: the text in the metadata's "data" and no document. Pulled one
    namespace per user; a merge pushed as Mem0 would write it (text, hash), no document
    added, nothing of memadmin's in the metadata."""
    pytest.importorskip("chromadb")
    store = ChromaMem0(tmp_path)
    merged_by_a_curator(store, run_command)
    assert Memory.objects.get(external_id=ID["a"]).namespace.name == "agent-alice"
    assert Memory.objects.get(external_id=ID["g"]).content == "User has a cat named Miso."

    pushed = run_command("push_source", "agent")

    assert pushed.error is None, pushed.stderr
    after = store.read()
    assert ID["c"] not in after
    carrier = after[ID["d"]]
    assert carrier["text"] == MERGED and carrier["document"] is None
    assert carrier["metadata"]["hash"] == hashlib.md5(MERGED.encode()).hexdigest()
    assert not any(key.startswith("memadmin") for key in carrier["metadata"])
