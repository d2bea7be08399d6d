import json
from datetime import timedelta

import numpy as np
import psycopg
import pytest
from django.db import connection
from django.utils import timezone

from memadmin.curation import decisions, dedup
from memadmin.curation.models import (
    Cluster,
    ClusterStatus,
    Conflict,
    DedupRun,
    HistoryEvent,
    PairVerdict,
)
from memadmin.store.models import Memory, MemoryStatus, Namespace
from memadmin.store.text import content_hash

pytestmark = pytest.mark.django_db(transaction=True)


def unit(seed: int) -> np.ndarray:
    vector = np.random.default_rng(seed).normal(size=384)
    return vector / np.linalg.norm(vector)


def near(seed: int, cosine: float, other_seed: int = 999) -> list[float]:
    """A unit vector whose cosine with unit(seed) is `cosine`."""
    base, noise = unit(seed), unit(other_seed)
    noise = noise - (noise @ base) * base
    noise /= np.linalg.norm(noise)
    return list(cosine * base + np.sqrt(1 - cosine**2) * noise)


def line(external_id, content, vector, **fields):
    fields.setdefault("category", "fact")
    fields.setdefault("created_at", "2026-01-01T00:00:00Z")
    return {
        "id": external_id,
        "namespace": "alice",
        "content": content,
        "embedding": list(vector),
        **fields,
    }


@pytest.fixture
def load(run_command, write_jsonl):
    def load_lines(*lines, name="memories.jsonl"):
        result = run_command("import_memories", str(write_jsonl(list(lines), name=name)))
        assert result.error is None, result.stderr

    return load_lines


def status(external_id):
    return Memory.objects.get(external_id=external_id).status


def test_exact_duplicates_collapse_into_the_most_important_copy(run_command, load):
    load(
        line(
            "a",
            "Prefers Python for data scripts.",
            unit(1),
            session_id="s1",
            importance=0.4,
            tags=["python"],
        ),
        line(
            "b",
            "prefers python for data scripts",
            unit(1),
            session_id="s2",
            importance=0.7,
            tags=["lang"],
            created_at="2026-02-01T00:00:00Z",
        ),
        line("c", "Prefers Python for data scripts!", unit(1), session_id="s3", importance=0.5),
    )

    result = run_command("find_duplicates")

    assert result.error is None
    assert "2 exact collapsed" in result.stdout
    survivor = Memory.objects.get(external_id="b")
    assert (status("a"), status("b"), status("c")) == ("superseded", "active", "superseded")
    assert Memory.objects.get(external_id="a").superseded_by == survivor
    assert sorted(survivor.tags) == ["lang", "python"]
    assert sorted(p["session_id"] for p in survivor.provenance) == ["s1", "s2", "s3"]
    cluster = Cluster.objects.get()
    assert cluster.status == ClusterStatus.AUTO_MERGED
    assert sorted(
        HistoryEvent.objects.filter(cluster=cluster).values_list("action", flat=True)
    ) == ["collapse", "supersede", "supersede"]


def test_an_exact_duplicate_from_another_source_is_only_proposed(run_command, load):
    load(
        line("a", "Logs use structlog.", unit(1), source_ref="ingest"),
        line("b", "Logs use structlog.", unit(1), source_ref="dashboard"),
    )

    run_command("find_duplicates")

    cluster = Cluster.objects.get()
    assert cluster.status == ClusterStatus.OPEN
    assert cluster.flags == ["guard: different source_ref (ingest / dashboard)"]
    assert (status("a"), status("b")) == ("active", "active")


def test_a_protected_exact_duplicate_is_proposed_never_collapsed(run_command, load):
    load(
        line("a", "Never deploy on Fridays.", unit(1), category="constraint"),
        line("b", "Never deploy on Fridays", unit(1), category="constraint"),
    )

    run_command("find_duplicates")

    assert Cluster.objects.get().flags == ["protected"]
    assert (status("a"), status("b")) == ("active", "active")


def test_near_identical_memories_merge_automatically_and_the_merge_undoes(run_command, load):
    load(
        line("a", "The team prefers squash merges into main.", unit(1), tags=["git"]),
        line(
            "b",
            "Team prefers squash merges into main branch.",
            near(1, 0.97),
            tags=["git", "x"],
            created_at="2026-03-01T00:00:00Z",
            importance=0.6,
        ),
    )

    result = run_command("find_duplicates")

    assert "1 auto-merged" in result.stdout
    cluster = Cluster.objects.get(status=ClusterStatus.AUTO_MERGED)
    assert (status("a"), status("b")) == ("superseded", "active")

    decisions.unmerge(cluster=cluster, actor="test")

    assert (status("a"), status("b")) == ("active", "active")
    assert Memory.objects.get(external_id="b").tags == ["git", "x"]
    assert Cluster.objects.get(pk=cluster.pk).status == ClusterStatus.UNMERGED


def test_a_key_token_difference_opens_a_conflict_and_never_merges(run_command, load):
    load(
        line("old", "The billing API is deployed on Hetzner.", unit(1)),
        line(
            "new",
            "The billing API is deployed on Railway.",
            near(1, 0.97),
            created_at="2026-05-01T00:00:00Z",
        ),
    )

    result = run_command("find_duplicates")

    conflict = Conflict.objects.get()
    assert (conflict.memory_a.external_id, conflict.memory_b.external_id) == ("old", "new")
    assert conflict.kind == "contradiction"
    assert conflict.reason == "name: hetzner vs railway"
    assert (status("old"), status("new")) == ("active", "active")
    assert not Cluster.objects.exists()
    assert "1 conflicts" in result.stdout


def test_an_update_is_told_from_a_contradiction(run_command, load):
    load(
        line("old", "The ingest service listens on port 8080.", unit(1)),
        line(
            "new",
            "The ingest service now listens on port 9100.",
            near(1, 0.9),
            created_at="2026-05-01T00:00:00Z",
        ),
    )

    run_command("find_duplicates")

    assert Conflict.objects.get().kind == "update"


def test_the_review_band_opens_a_cluster(run_command, load):
    load(
        line("a", "Alice's cat Miso is a four-year-old orange tabby.", unit(1), tags=["pets"]),
        line("b", "Has a cat called Miso.", near(1, 0.75), tags=["pets"]),
    )

    run_command("find_duplicates")

    cluster = Cluster.objects.get()
    assert cluster.status == ClusterStatus.OPEN
    assert [e["method"] for e in cluster.edges] == ["vector"]
    assert cluster.weakest_link == sorted(Memory.objects.values_list("id", flat=True))


@pytest.mark.parametrize(
    "difference",
    [{"category": "config"}, {"source_ref": "elsewhere"}, {"tags": ["session:s-9"]}],
)
def test_guarded_pairs_are_never_proposed(run_command, load, difference):
    load(
        line("a", "Python version is pinned to 3.12 in pyproject.", unit(1)),
        line("b", "Python version pinned to 3.12 in pyproject.", near(1, 0.99), **difference),
    )

    run_command("find_duplicates")

    assert not Cluster.objects.exists()
    assert (status("a"), status("b")) == ("active", "active")


def test_a_pair_people_judged_is_never_proposed_again(run_command, load):
    load(
        line("a", "Alice's cat Miso is a four-year-old orange tabby.", unit(1)),
        line("b", "Has a cat called Miso.", near(1, 0.75)),
    )
    low, high = sorted(
        [
            content_hash("Alice's cat Miso is a four-year-old orange tabby."),
            content_hash("Has a cat called Miso."),
        ]
    )
    PairVerdict.objects.create(
        namespace=Namespace.objects.get(), hash_low=low, hash_high=high, verdict="not_duplicate"
    )

    run_command("find_duplicates", "--full")

    assert not Cluster.objects.exists()


def test_a_dry_run_writes_nothing_and_prints_the_plan(run_command, load):
    load(
        line("a", "Prefers tea.", unit(1)),
        line("b", "prefers tea", unit(1)),
        line("c", "Deployed on Hetzner.", unit(2)),
        line("d", "Deployed on Railway.", near(2, 0.95)),
    )
    before = (Memory.objects.filter(status="active").count(), HistoryEvent.objects.count())

    result = run_command("find_duplicates", "--dry-run")

    assert "alice: would collapse a into b" in result.stdout or (
        "alice: would collapse b into a" in result.stdout
    )
    assert "alice: would conflict c / d" in result.stdout
    assert result.stdout.strip().splitlines()[-1].startswith("dry run: 1 namespace(s)")
    assert (Memory.objects.filter(status="active").count(), HistoryEvent.objects.count()) == before
    assert not DedupRun.objects.exists() and not Cluster.objects.exists()
    assert not Conflict.objects.exists()


def test_max_ops_caps_automatic_changes_and_the_next_run_continues(run_command, load):
    lines = []
    for group in range(4):
        lines += [
            line(f"g{group}-a", f"Fact number {group} here.", unit(group)),
            line(f"g{group}-b", f"fact number {group} here", unit(group)),
        ]
    load(*lines)

    first = run_command("find_duplicates", "--max-ops", "2")

    assert "2 exact collapsed" in first.stdout and "2 deferred by --max-ops" in first.stdout
    assert Memory.objects.filter(status="superseded").count() == 2
    second = run_command("find_duplicates", "--max-ops", "2", "--full")
    assert "2 exact collapsed" in second.stdout
    assert Memory.objects.filter(status="superseded").count() == 4


def test_a_second_run_is_refused_while_the_first_holds_the_lock(run_command, load):
    load(line("a", "Prefers tea.", unit(1)), line("b", "prefers tea", unit(1)))
    namespace = Namespace.objects.get()
    settings = connection.settings_dict
    other = psycopg.connect(
        dbname=settings["NAME"],
        user=settings["USER"],
        host=settings["HOST"],
        port=settings["PORT"] or None,
        password=settings["PASSWORD"] or None,
    )
    try:
        other.execute("SELECT pg_advisory_lock(%s)", [dedup._lock_key(namespace)])

        result = run_command("find_duplicates")

        assert "another find_duplicates run is working on namespace alice" in result.stderr
        assert "skipped 1 namespace(s) another run holds: alice" in str(result.error)
        assert Memory.objects.filter(status="superseded").count() == 0
    finally:
        other.close()


def test_if_due_runs_only_big_enough_namespaces_without_a_recent_run(run_command, load, settings):
    settings.DEDUP_MIN_MEMORIES = 2
    load(line("a", "Prefers tea.", unit(1)), line("b", "Likes Lyon.", unit(2)))
    assert "0 namespace(s)" in run_command("find_duplicates", "--if-due").stdout

    load(line("c", "Runs on Sundays.", unit(3)), name="more.jsonl")
    assert "1 namespace(s)" in run_command("find_duplicates", "--if-due").stdout
    assert "0 namespace(s)" in run_command("find_duplicates", "--if-due").stdout

    DedupRun.objects.update(started_at=timezone.now() - timedelta(hours=25))
    assert "1 namespace(s)" in run_command("find_duplicates", "--if-due").stdout


def test_running_twice_proposes_nothing_new(run_command, load):
    load(
        line("a", "Alice's cat Miso is a four-year-old orange tabby.", unit(1)),
        line("b", "Has a cat called Miso.", near(1, 0.75)),
        line("c", "Deployed on Hetzner.", unit(2)),
        line("d", "Deployed on Railway.", near(2, 0.95)),
    )
    run_command("find_duplicates")
    counts = (Cluster.objects.count(), Conflict.objects.count())

    again = run_command("find_duplicates")
    full = run_command("find_duplicates", "--full")

    assert "(0 compared)" in again.stdout
    assert "0 clusters opened, 0 grown, 0 conflicts" in full.stdout
    assert (Cluster.objects.count(), Conflict.objects.count()) == counts == (1, 1)


def test_a_run_shows_the_pairs_it_compares(run_command, load, capsys):
    load(
        line("a", "Alice's cat Miso is a four-year-old orange tabby.", unit(1)),
        line("b", "Has a cat called Miso.", near(1, 0.75)),
    )

    run_command("find_duplicates", "--full")

    progress = capsys.readouterr().err
    assert "find_duplicates: 100%" in progress
    assert "comparing alice: 100%" in progress and "pairs" in progress


def test_a_new_memory_joins_the_open_cluster(run_command, load):
    load(
        line("a", "Alice's cat Miso is a four-year-old orange tabby.", unit(1)),
        line("b", "Has a cat called Miso.", near(1, 0.8)),
    )
    run_command("find_duplicates")

    load(line("c", "Alice has a cat named Miso.", near(1, 0.85, other_seed=5)), name="new.jsonl")
    result = run_command("find_duplicates")

    assert "0 clusters opened, 1 grown" in result.stdout
    cluster = Cluster.objects.get()
    assert sorted(cluster.memberships.values_list("memory__external_id", flat=True)) == [
        "a",
        "b",
        "c",
    ]


def test_a_high_removal_rate_raises_an_alert(run_command, load):
    load(*[line(f"m{i}", "Prefers tea.", unit(1)) for i in range(4)])

    result = run_command("find_duplicates")

    run = DedupRun.objects.get()
    assert run.removal_rate == 0.75
    assert run.alerts == ["removal rate 75% exceeds 50% in namespace alice"]
    assert "ALERT removal rate 75%" in result.stderr


def test_every_run_is_recorded(run_command, load):
    load(line("a", "Prefers tea.", unit(1)), line("b", "prefers tea", unit(1)))

    run_command("find_duplicates", "--max-ops", "7")

    run = DedupRun.objects.get()
    assert (run.status, run.dry_run, run.parameters["max_ops"]) == ("done", False, 7)
    assert run.counts["exact_collapsed"] == 1 and run.counts["memories"] == 2
    assert run.duration_s > 0


def test_shards_split_the_namespaces_between_workers():
    names = [f"ns-{i}" for i in range(40)]
    for name in names:
        Namespace.objects.create(name=name)

    chosen = [
        ns.name
        for shard in range(4)
        for ns in dedup.namespaces_to_run(
            name=None, if_due=False, shard=(shard, 4), now=timezone.now()
        )
    ]

    assert sorted(chosen) == sorted(names)
    assert len({dedup.shard_of(n, 4) for n in names}) == 4


def test_export_review_prints_clusters_and_conflicts(run_command, load):
    load(
        line("a", "Alice's cat Miso is a four-year-old orange tabby.", unit(1)),
        line("b", "Has a cat called Miso.", near(1, 0.75)),
        line("c", "Deployed on Hetzner.", unit(2)),
        line("d", "Deployed on Railway.", near(2, 0.95), created_at="2026-02-01T00:00:00Z"),
    )
    run_command("find_duplicates")

    exported = json.loads(run_command("export_review", "--format", "json").stdout)

    (cluster,) = exported["clusters"]
    assert (cluster["namespace"], cluster["members"], cluster["status"], cluster["proposal"]) == (
        "alice",
        ["a", "b"],
        "open",
        None,
    )
    assert isinstance(cluster["min_similarity"], float)
    (conflict,) = exported["conflicts"]
    assert {k: conflict[k] for k in ("namespace", "a", "b", "kind", "status")} == {
        "namespace": "alice",
        "a": "c",
        "b": "d",
        "kind": "contradiction",
        "status": "open",
    }


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


def test_unmerge_explains_a_later_merge_must_be_undone_first(run_command, load):
    load(line("a", "Prefers tea.", unit(1)), line("b", "prefers tea", unit(1), importance=0.9))
    run_command("find_duplicates")
    first = Cluster.objects.get()
    load(line("c", "Prefers tea!", unit(1), importance=0.93), name="c.jsonl")
    # The survivor b is folded into c by a later run (c is more important).
    run_command("find_duplicates")
    assert status("b") == MemoryStatus.SUPERSEDED

    with pytest.raises(decisions.DecisionError, match="b was merged again later"):
        decisions.unmerge(cluster=first, actor="test")
    assert status("a") == MemoryStatus.SUPERSEDED


def test_an_incremental_run_in_a_large_namespace_asks_the_hnsw_index(run_command, load, settings):
    settings.DEDUP_INDEX_MIN_MEMORIES = 3
    load(
        line("a", "Alice's cat Miso is a four-year-old orange tabby.", unit(1)),
        line("x", "Deploys go out through GitHub Actions.", unit(5)),
        line("y", "Logs are kept for 30 days in Loki.", unit(6)),
    )
    run_command("find_duplicates")

    load(line("b", "Has a cat called Miso.", near(1, 0.75)), name="new.jsonl")
    run_command("find_duplicates")

    assert DedupRun.objects.order_by("-id").first().parameters["route"] == "hnsw"
    (cluster,) = Cluster.objects.all()
    assert sorted(cluster.memberships.values_list("memory__external_id", flat=True)) == ["a", "b"]


def test_several_namespaces_run_in_worker_processes(run_command, write_jsonl, settings):
    settings.DEDUP_WORKERS = 2
    lines = []
    for namespace in ("ns-a", "ns-b", "ns-c"):
        lines += [
            {**line(f"{namespace}-1", "Prefers tea.", unit(1)), "namespace": namespace},
            {**line(f"{namespace}-2", "prefers tea", unit(1)), "namespace": namespace},
        ]
    run_command("import_memories", str(write_jsonl(lines)))

    result = run_command("find_duplicates")

    assert "3 namespace(s), 6 memories (6 compared), 3 exact collapsed" in result.stdout
    assert Memory.objects.filter(status="superseded").count() == 3
    assert DedupRun.objects.filter(status="done").count() == 3


def test_chinese_text_is_compared_by_its_words_not_the_english_model(run_command, load):
    # MiniLM scores unrelated Chinese sentences about one person at 0.8-0.95: the vectors
    # below say "near-identical" for all three, and only the lexical layer tells them apart.
    load(
        line("tea", "林悦喜欢喝乌龙茶，不加糖。", unit(1), tags=["drinks"]),
        line("tea-again", "林悦喜欢喝乌龙茶", near(1, 0.9), tags=["drinks"]),
        line("dog", "林悦养了一只柯基，名字叫豆豆。", near(1, 0.93, other_seed=4), tags=["drinks"]),
    )

    run_command("find_duplicates")

    (cluster,) = Cluster.objects.all()
    assert sorted(cluster.memberships.values_list("memory__external_id", flat=True)) == [
        "tea",
        "tea-again",
    ]
    assert [edge["method"] for edge in cluster.edges] == ["lexical"]
    assert not Memory.objects.filter(status="superseded").exists()
