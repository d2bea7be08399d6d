"""Mem0's stores curated end to end, with Mem0 itself (mem0ai, pinned in the dev extra)
writing and reading them in processes of its own: Qdrant's local mode with and without
keyword vectors, ChromaDB, and Mem0's pgvector table on the embedded PostgreSQL.

Each: Mem0 writes an exact repeat, a paraphrase, an update and distinct facts for two
users; memadmin pulls, detects, and people decide on the pages; the agent edits an
undecided point and deletes the merge's carrier before the push; the push is killed
(kill -9) and run again; the agent reads everything back; the merge is undone and pushed.
Every point stays readable by Mem0, its `hash` and `text_lemmatized` follow its `data`,
an undecided point is byte-identical (payload and vectors), each decision shows in
`Memory.history(id)`, and no fact is lost."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import uuid

import psycopg
import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from memadmin.curation.models import Cluster
from memadmin.sources.models import PushOperation, Source, SourcePoint
from memadmin.store.models import Memory
from tests.processes import database_url, environment, start_with
from tests.sources.stores import Chroma, QdrantMem0
from tests.sources.test_sources import MERGED, decide_all

pytest.importorskip("mem0")
pytestmark = pytest.mark.django_db(transaction=True)

ADA = [
    ("a", "User prefers Python for scripting."),
    ("b", "User prefers Python for scripting"),  # an exact repeat, but for the full stop
    ("c", "User likes to hike in the Alps."),
    ("d", "User enjoys hiking in the Alps on weekends."),  # a paraphrase of c
    ("e", "User lives in Lyon."),
    ("f", "User moved to Porto in March 2026."),  # e's update
    ("g", "User has a cat named Miso."),
]
BOB = [
    ("h", "User prefers Python for scripting."),  # ada's words, another user: kept apart
    ("i", "User works as a nurse at St Mary's hospital."),
]
EDITED = "User has two cats, Miso and Tofu."


class Mem0Store:
    """Where Mem0 keeps its memories, as Mem0's config names it and as memadmin adds it."""

    def __init__(self, kind: str, tmp_path, keywords: bool = False):
        self.kind, self.keywords, self.tmp_path = kind, keywords, tmp_path
        self.table = f"mem0_{uuid.uuid4().hex[:8]}"
        self.history = str(tmp_path / "history.db")

    def config(self) -> dict:
        if self.kind == "qdrant":
            found = {"path": QdrantMem0(self.tmp_path).folder, "collection_name": "mem0"}
            found |= {"embedding_model_dims": 384, "on_disk": True}
        elif self.kind == "chroma":
            found = {"path": Chroma(self.tmp_path).folder, "collection_name": "memories"}
        else:
            found = {"connection_string": database_url(), "collection_name": self.table}
            found |= {"embedding_model_dims": 384}
        return {"provider": self.kind, "config": found}

    def args(self) -> list[str]:
        where = {
            "qdrant": ["--location", QdrantMem0(self.tmp_path).folder, "--collection", "mem0"],
            "chroma": ["--location", Chroma(self.tmp_path).folder, "--collection", "memories"],
            "pgvector": ["--location-env", "MEM0_DSN", "--table", self.table],
        }[self.kind]
        return [
            "--kind", self.kind, *where, "--layout", "mem0", "--namespace-from", "user_id",
            "--embedder", "memadmin", "--mem0-history", self.history,
        ]  # fmt: skip

    def agent(self, *steps: dict) -> list:
        """Mem0 in a process of its own, as the agent runs it."""
        spec = {"store": self.config(), "history": self.history, "keywords": self.keywords}
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "tests.sources.mem0_agent",
                json.dumps({**spec, "steps": steps}),
            ],
            cwd=settings.BASE_DIR,
            env=environment(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    def raw(self) -> dict[str, dict]:
        """Every point as the store's own client returns it: payload and vectors."""
        if self.kind == "qdrant":
            found = QdrantMem0(self.tmp_path).read()
            return {i: {"payload": {**p["metadata"], "data": p["text"]}, "vector": p["vector"]}
                    for i, p in found.items()}  # fmt: skip
        if self.kind == "chroma":
            found = Chroma(self.tmp_path)._collection().get(include=["metadatas", "embeddings"])
            return {
                i: {"payload": dict(m), "vector": [float(x) for x in v]}
                for i, m, v in zip(
                    found["ids"], found["metadatas"], found["embeddings"], strict=True
                )
            }
        with psycopg.connect(database_url()) as connection:
            rows = connection.execute(f"SELECT id::text, payload, vector::text FROM {self.table}")
            return {i: {"payload": p, "vector": json.loads(v)} for i, p, v in rows.fetchall()}

    def drop(self) -> None:
        if self.kind == "pgvector":
            with psycopg.connect(database_url(), autocommit=True) as connection:
                connection.execute(f"DROP TABLE IF EXISTS {self.table}, {self.table}_entities")


@pytest.fixture(params=["qdrant", "qdrant-keywords", "chroma", "pgvector"])
def mem0_store(request, tmp_path, monkeypatch):
    kind = request.param.split("-")[0]
    pytest.importorskip({"qdrant": "qdrant_client", "chroma": "chromadb"}.get(kind, "psycopg"))
    monkeypatch.setenv("MEM0_DSN", database_url())
    store = Mem0Store(kind, tmp_path, keywords=request.param.endswith("keywords"))
    yield store
    store.drop()


def test_mem0_writes_memadmin_curates_and_mem0_reads_every_decision(mem0_store, run_command):
    store = mem0_store
    written = store.agent(
        *({"add": text, "user": "ada"} for _, text in ADA),
        *({"add": text, "user": "bob"} for _, text in BOB),
    )
    ID = {name: ids[0] for (name, _), ids in zip(ADA + BOB, written, strict=True)}
    entities = store.kind != "chroma"  # Mem0 keeps entity links as a list: not in Chroma
    if entities:
        store.agent(
            {
                "entity": "Python",
                "user": "ada",
                "links": [ID["a"], ID["b"]],
                "id": str(uuid.uuid4()),
            },
            {"entity": "Lyon", "user": "ada", "links": [ID["e"]], "id": str(uuid.uuid4())},
        )

    assert run_command("add_source", "agent", *store.args()).error is None
    pulled = run_command("pull_source", "agent")
    assert "9 created" in pulled.stdout, pulled.stdout
    namespaces = set(Memory.objects.values_list("namespace__name", flat=True))
    assert namespaces == {"agent-ada", "agent-bob"}
    assert run_command("find_duplicates", "--no-llm").error is None
    of = {name: SourcePoint.objects.get(point_id=ID[name]).memory for name in ID}
    assert of["h"].status == "active"  # bob's words are ada's: another user, kept
    repeat = next(n for n in "ab" if Memory.objects.get(pk=of[n].pk).status == "superseded")
    kept = "b" if repeat == "a" else "a"
    decide_all(run_command)
    before = store.raw()

    # Between the decisions and the push the agent writes: it edits an undecided point
    # and deletes the point the merge was to be written to (d: the newer member).
    store.agent({"update": ID["g"], "text": EDITED}, {"delete": ID["d"]})
    edited = store.raw()

    # kill -9 while the push waits to note its last batch as done (sent, not noted).
    planned_text = run_command("push_source", "agent", "--dry-run").stdout
    planned = re.findall(r"would \w+ ([^\s:]+)", planned_text)
    last = SourcePoint.objects.get(point_id=planned[-1])
    _push_killed_while_noting(last)
    resumed = run_command("push_source", "agent")
    assert resumed.error is None, resumed.stderr
    assert "resumed)" in resumed.stdout, resumed.stdout
    assert set(PushOperation.objects.values_list("status", flat=True)) <= {"done", "skipped"}
    again = run_command("push_source", "agent")
    assert again.stdout.split(": ", 1)[1].startswith("nothing"), again.stdout

    read = store.agent({"read": ["ada", "bob"]}, {"history": ID[repeat]}, {"history": ID["e"]})
    seen, repeat_history, e_history = read
    assert set(seen) == {ID[n] for n in "cfghi"} | {ID[kept]}
    assert all(point["hash_ok"] and point["keywords_ok"] for point in seen.values()), seen
    # The merged text went to c's point (d's was deleted by the agent): no fact lost.
    assert seen[ID["c"]]["memory"] == MERGED
    assert seen[ID["c"]]["history"][-1] == ["UPDATE", ADA[2][1], MERGED]
    assert seen[ID["g"]]["memory"] == EDITED  # the agent's edit survived
    assert repeat_history[-1] == ["DELETE", dict(ADA)[repeat], None]
    assert e_history[-1] == ["DELETE", "User lives in Lyon.", None]
    assert not any(
        key.startswith("memadmin") for point in seen.values() for key in point["metadata_keys"]
    )
    now = store.raw()
    for name in ("f", "h", "i", kept):  # undecided: byte-identical, payload and vectors
        assert now[ID[name]] == before[ID[name]], name
    assert now[ID["g"]] == edited[ID["g"]]
    if store.keywords:
        # Mem0 wrote keyword vectors; the merged text's would be fastembed's, which is not
        # installed here: the old text's is taken out, and the push says so.
        assert set(before[ID["c"]]["vector"]) == {"", "bm25"}
        assert not isinstance(now[ID["c"]]["vector"], dict) or "bm25" not in now[ID["c"]]["vector"]
        assert "dropped: the bm25 keyword vector" in planned_text
        written_c = PushOperation.objects.get(point__point_id=ID["c"], action="update")
        assert written_c.note.startswith("dropped: the bm25 keyword vector")
    if entities:
        links = store.agent({"entities": "ada"})[0]
        # The deleted repeat's link gone; Lyon's entity, left with no link, deleted.
        assert list(links.values()) == [[ID[kept]]]
    _no_fact_lost()

    # The next pull sees d gone (the agent's delete); the merged memory stays, carried by c.
    assert run_command("pull_source", "agent").error is None
    _no_fact_lost()

    # Undo the merge: c's point gets its own text back, exactly; d, which the agent
    # deleted, is not written again (its delete wins) and is retired here.
    curator = Client()
    curator.force_login(User.objects.get(username="carla"))
    cluster = Cluster.objects.get(status="accepted")
    assert curator.post(f"/history/unmerge/{cluster.pk}").status_code == 302
    undone = run_command("push_source", "agent")
    assert undone.error is None, undone.stderr
    assert "1 retired here" in undone.stdout, undone.stdout
    assert store.raw()[ID["c"]] == before[ID["c"]]
    seen = store.agent({"read": ["ada"]})[0]
    assert seen[ID["c"]]["history"][-1] == ["UPDATE", MERGED, ADA[2][1]]
    _no_fact_lost()


def _push_killed_while_noting(point: SourcePoint) -> None:
    """A push in its own process, one operation a batch, killed (SIGKILL) while it waits
    on this point's row: its last batch sent to the store and not yet noted here."""
    holder = psycopg.connect(database_url())
    holder.execute("SELECT 1 FROM sources_sourcepoint WHERE id = %s FOR NO KEY UPDATE", [point.pk])
    push = start_with({"MEMADMIN_SOURCE_PUSH_BATCH": "1"}, "push_source", "agent")
    try:
        deadline = time.monotonic() + 120
        while not PushOperation.objects.filter(point=point, before__isnull=False).exists():
            assert time.monotonic() < deadline and push.poll() is None
            time.sleep(0.05)
        time.sleep(1.0)  # sent, and waiting on the row now
    finally:
        push.kill()
        push.wait()
        holder.rollback()
        holder.close()
    assert PushOperation.objects.filter(status="pending").exists()


def _no_fact_lost() -> None:
    """Every active memory of the source has a present point holding its text."""
    held = set(Source.objects.get().points.filter(present=True).values_list("text", flat=True))
    active = set(Memory.objects.filter(status="active").values_list("content", flat=True))
    assert active <= held, active - held


# What an agent passes to Mem0 (filters=...) to read past the points a push in mark mode
# marked, per store (docs/sources.md says the same). Mem0 2.2.1 translates filters per
# store, and a point without the key must pass: on Qdrant "NOT in" does; on ChromaDB
# "nin" does; on pgvector only search's NOT "*" (key absent) does, and get_all cannot
# (Mem0 passes NOT to its table unprocessed): mark mode there serves search only.
MARK_FILTERS = {
    "qdrant": {"NOT": [{"memadmin_status": {"in": ["superseded", "deleted"]}}]},
    "chroma": {"memadmin_status": {"nin": ["superseded", "deleted"]}},
    "pgvector": {"NOT": [{"memadmin_status": "*"}]},
}


def test_mem0_reads_past_what_mark_mode_marked(mem0_store, run_command):
    store = mem0_store
    written = store.agent(*({"add": text, "user": "ada"} for _, text in ADA))
    ID = {name: ids[0] for (name, _), ids in zip(ADA, written, strict=True)}
    assert run_command("add_source", "agent", *store.args(), "--mode", "mark").error is None
    assert run_command("pull_source", "agent").error is None
    assert run_command("find_duplicates", "--no-llm").error is None
    decide_all(run_command)
    # The agent rewrites the merge's carrier (d) with Mem0 before the push: the merge is
    # left alone whole (c is not marked while d does not say the merged text).
    store.agent({"update": ID["d"], "text": "User hikes in the Alps most weekends."})

    pushed = run_command("push_source", "agent")

    assert pushed.error is None and "2 mark; 2 left alone" in pushed.stdout, pushed.stdout
    marked = {i for i, p in store.raw().items() if "memadmin_status" in p["payload"]}
    # The repeat and the settled conflict's older side.
    assert len(marked) == 2 and ID["e"] in marked and ID["c"] not in marked
    assert store.raw()[ID["d"]]["payload"]["data"] == "User hikes in the Alps most weekends."
    unmarked = set(ID.values()) - marked
    assert _unmarked_by_the_stores_own_client(store) == unmarked
    listed, found = store.agent(
        {"filtered": MARK_FILTERS[store.kind], "user": "ada", "query": "User lives in Porto."}
    )[0]
    assert found and set(found) <= unmarked  # search: what clears Mem0's threshold
    assert ID["f"] in found
    if store.kind != "pgvector":
        assert set(listed) == unmarked


def _unmarked_by_the_stores_own_client(store) -> set[str]:
    """The same filter in the store's own query language."""
    if store.kind == "qdrant":
        from qdrant_client import QdrantClient, models

        client = QdrantClient(path=QdrantMem0(store.tmp_path).folder)
        try:
            unset = models.IsEmptyCondition(is_empty=models.PayloadField(key="memadmin_status"))
            records, _ = client.scroll(
                "mem0", limit=1000, scroll_filter=models.Filter(must=[unset])
            )
        finally:
            client.close()
        return {str(r.id) for r in records}
    if store.kind == "chroma":
        where = {"memadmin_status": {"$nin": ["superseded", "deleted"]}}
        return set(Chroma(store.tmp_path)._collection().get(where=where)["ids"])
    with psycopg.connect(database_url()) as connection:
        rows = connection.execute(
            f"SELECT id::text FROM {store.table} WHERE NOT payload ? 'memadmin_status'"
        ).fetchall()
    return {row[0] for row in rows}
