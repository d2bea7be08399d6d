"""Runs: the lock, --if-due, shards, the DedupRun record and its alerts, the HNSW route,
worker processes."""

from datetime import timedelta

import psycopg
import pytest
from django.db import connection
from django.utils import timezone

from memadmin.curation import runs
from memadmin.curation.models import Cluster, DedupRun
from memadmin.store.models import Memory, Namespace
from tests.factories import line, near, unit

pytestmark = pytest.mark.django_db(transaction=True)


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
        other.execute("SELECT pg_advisory_lock(%s)", [runs._lock_key(namespace)])

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
        for ns in runs.namespaces_to_run(
            name=None, if_due=False, shard=(shard, 4), now=timezone.now()
        )
    ]

    assert sorted(chosen) == sorted(names)
    assert len({runs.shard_of(n, 4) for n in names}) == 4


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
