"""Runs: the lock, --if-due, shards, the DedupRun record and its alerts, the HNSW route,
worker processes."""

import signal
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from memadmin.curation import runs
from memadmin.curation.models import Cluster, DedupRun
from memadmin.store.models import Memory, Namespace
from tests.factories import line, near, unit
from tests.processes import another_session_holding, manage, start

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_second_run_is_refused_while_the_first_holds_the_lock(run_command, load):
    load(line("a", "Prefers tea.", unit(1)), line("b", "prefers tea", unit(1)))
    namespace = Namespace.objects.get()

    with another_session_holding(runs.lock_key(namespace)):
        result = run_command("find_duplicates")

    assert "another find_duplicates run is working on namespace alice" in result.stderr
    assert "skipped 1 namespace(s) another run holds: alice" in str(result.error)
    assert Memory.objects.filter(status="superseded").count() == 0


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

    assert (
        "3 namespace(s), 6 memories (6 compared, 3 candidate pairs, 0.5 a memory), "
        "3 exact collapsed" in result.stdout
    )
    assert Memory.objects.filter(status="superseded").count() == 3
    assert DedupRun.objects.filter(status="done").count() == 3


# --- Runs that die -----------------------------------------------------------------------


@pytest.mark.parametrize("command", ["find_duplicates", "export_memories", "import_memories"])
def test_an_unreachable_database_is_one_line_not_a_traceback(command, write_jsonl):
    arguments = [str(write_jsonl([line("a", "A fact.")]))] if command == "import_memories" else []

    result = manage(command, *arguments, database="postgresql://nobody:x@127.0.0.1:9/none")

    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]  # after a progress bar, if any
    assert last.startswith("CommandError: the database is unreachable: connection failed")
    assert "Traceback" not in result.stderr


def test_a_run_killed_midway_is_marked_failed_by_the_next_run(run_command, load, fake_llm):
    # A pair in the LLM band, and a gateway that never answers: the run in the other
    # process is surely mid-way (its DedupRun "running") when it is killed.
    fake_llm.delay = 60
    load(
        line("a", "Prefers a daily digest of alerts.", unit(1), tags=["alerts"]),
        line("b", "Likes alerts batched once a day.", near(1, 0.62), tags=["alerts"]),
    )
    running = start("find_duplicates")
    deadline = time.monotonic() + 60
    while not fake_llm.requests:
        assert time.monotonic() < deadline and running.poll() is None
        time.sleep(0.05)
    running.send_signal(signal.SIGKILL)
    running.wait()
    assert DedupRun.objects.get().status == "running"

    fake_llm.delay = 0
    while time.monotonic() < deadline:  # the server ends the dead session and its lock
        result = run_command("find_duplicates", "--no-llm")
        if result.error is None:
            break
        time.sleep(0.1)

    first, second = DedupRun.objects.order_by("id")
    assert (first.status, first.error) == (
        "failed",
        "interrupted: the process ended before the run finished",
    )
    assert second.status == "done"


def test_decisions_are_committed_synchronously(run_command, load):
    load(line("a", "Prefers tea.", unit(1)), line("b", "prefers tea", unit(1)))

    run_command("find_duplicates")

    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone()[0] == "on"
