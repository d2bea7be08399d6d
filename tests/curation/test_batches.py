"""find_duplicates over namespaces in batches (curation.runs): a batch read in a few
queries and written in one transaction must leave exactly what one namespace at a time
leaves, keep every guarantee per namespace (its lock, all or nothing, --max-ops, a dry run
writing nothing), and let one namespace fail alone."""

import json
import logging

import psycopg
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memadmin.curation import runs
from memadmin.curation.models import Cluster, Conflict, DedupRun, HistoryEvent
from memadmin.store.models import Memory, Namespace
from tests.factories import line, near, unit

pytestmark = pytest.mark.django_db(transaction=True)


def state(prefix: str) -> dict:
    """What a run left in the namespaces whose names start with `prefix`, by external ids
    and namespace names without the prefix (row ids and times differ between runs)."""
    memories = Memory.objects.filter(namespace__name__startswith=prefix)
    name = dict(memories.values_list("pk", "external_id"))

    def named(values):
        if values is None:
            return None
        kept = {k: v for k, v in values.items() if k not in ("created_at", "updated_at")}
        kept["superseded_by_id"] = name.get(kept.get("superseded_by_id"))
        return kept

    def members(cluster):
        return tuple(sorted(name[m] for m in cluster.memberships.values_list("memory", flat=True)))

    def space(row):
        return row.namespace.name.removeprefix(prefix)

    return {
        "memories": sorted(
            (
                space(m),
                m.external_id,
                m.status,
                name.get(m.superseded_by_id),
                m.tags,
                m.provenance,
                m.importance,
                m.confidence,
                m.access_count,
            )
            for m in memories.select_related("namespace")
        ),
        "clusters": sorted(
            (
                space(c),
                members(c),
                c.status,
                c.flags,
                c.min_similarity,
                sorted((name[e["a"]], name[e["b"]], e["similarity"], e["method"]) for e in c.edges),
            )
            for c in Cluster.objects.filter(namespace__name__startswith=prefix).select_related(
                "namespace"
            )
        ),
        "conflicts": sorted(
            (space(c), name[c.memory_a_id], name[c.memory_b_id], c.kind, c.reason, c.status)
            for c in Conflict.objects.filter(namespace__name__startswith=prefix).select_related(
                "namespace"
            )
        ),
        "history": sorted(
            (
                space(e),
                e.action,
                name.get(e.memory_id),
                e.actor,
                e.reason,
                repr(named(e.before)),
                repr(named(e.after)),
                sorted(name[i] for i in e.related_memory_ids),
                members(e.cluster) if e.cluster_id else None,
            )
            for e in HistoryEvent.objects.filter(namespace__name__startswith=prefix).select_related(
                "cluster", "namespace"
            )
        ),
        "runs": sorted(
            (space(r), r.status, json.dumps({**r.counts}, sort_keys=True))
            for r in DedupRun.objects.filter(namespace__name__startswith=prefix).select_related(
                "namespace"
            )
        ),
    }


def run_all(prefix: str, **options) -> list[runs.Outcome]:
    outcomes = []
    from django.conf import settings

    namespaces = list(Namespace.objects.filter(name__startswith=prefix).order_by("name"))
    runs.run_many(
        namespaces,
        runs.Options(**options),
        workers=settings.DEDUP_WORKERS,
        on_done=outcomes.append,
    )
    return outcomes


def test_batches_in_worker_processes_leave_what_one_namespace_at_a_time_leaves(
    run_command, write_jsonl, dev_memories_path, settings
):
    lines = [json.loads(text) for text in dev_memories_path.read_text().splitlines()]
    for prefix in ("one-", "batched-"):
        prefixed = [{**entry, "namespace": prefix + entry["namespace"]} for entry in lines]
        assert run_command("import_memories", str(write_jsonl(prefixed, name=prefix))).error is None

    # The reference: every namespace a batch of its own, in this process.
    settings.DEDUP_BATCH_NAMESPACES, settings.DEDUP_WORKERS = 1, 1
    run_all("one-")
    run_all("one-", full=True)  # again, over what the first run proposed and folded
    # Batches of two namespaces, side by side in two worker processes.
    settings.DEDUP_BATCH_NAMESPACES, settings.DEDUP_WORKERS = 2, 2
    run_all("batched-")
    run_all("batched-", full=True)

    reference, batched = state("one-"), state("batched-")
    assert len(reference["runs"]) == 10 and {r[1] for r in reference["runs"]} == {"done"}
    assert len(reference["clusters"]) > 10 and len(reference["conflicts"]) > 10
    assert len([h for h in reference["history"] if h[1] == "collapse"]) > 5
    assert batched == reference


def two_namespaces_with_folds(load):
    for name in ("ns-a", "ns-b", "ns-c"):
        load(
            line("tea", "Prefers tea.", unit(1), namespace=name),
            line("tea-again", "prefers tea", unit(1), namespace=name),
            line("cat", "Has a cat called Miso.", unit(2), namespace=name),
            line("cat-again", "Has a cat named Miso.", near(2, 0.99), namespace=name),
            name=f"{name}.jsonl",
        )


def test_a_namespace_whose_writes_fail_fails_alone_and_the_rest_of_its_batch_is_done(
    run_command, load, caplog
):
    two_namespaces_with_folds(load)
    broken = Namespace.objects.get(name="ns-b")
    # A fault in the database itself: any history event of ns-b is refused.
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE FUNCTION refuse_event() RETURNS trigger AS $$ BEGIN "
            "RAISE EXCEPTION 'disk full'; END; $$ LANGUAGE plpgsql"
        )
        cursor.execute(
            "CREATE TRIGGER refuse_event BEFORE INSERT ON curation_historyevent FOR EACH ROW "
            f"WHEN (NEW.namespace_id = {broken.pk}) EXECUTE FUNCTION refuse_event()"
        )
    try:
        with caplog.at_level(logging.ERROR, logger="memadmin.curation"):
            result = run_command("find_duplicates")
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TRIGGER refuse_event ON curation_historyevent")
            cursor.execute("DROP FUNCTION refuse_event()")

    assert "1 namespace(s) failed and changed nothing: ns-b (the others are done)" in str(
        result.error
    )
    assert "DEDUP_FAIL namespace ns-b: writing failed: disk full" in result.stderr
    assert any("DEDUP_FAIL namespace=ns-b writing failed" in r.message for r in caplog.records)
    statuses = dict(
        Memory.objects.filter(external_id="tea-again").values_list("namespace__name", "status")
    )
    assert statuses == {"ns-a": "superseded", "ns-b": "active", "ns-c": "superseded"}
    assert not Cluster.objects.filter(namespace=broken).exists()
    assert not HistoryEvent.objects.filter(
        namespace=broken, actor="command:find_duplicates"
    ).exists()
    run_statuses = dict(DedupRun.objects.values_list("namespace__name", "status"))
    assert run_statuses == {"ns-a": "done", "ns-b": "failed", "ns-c": "done"}
    assert DedupRun.objects.get(namespace=broken).error == "writing failed: disk full"

    # Mended, the next run does what was left: the failed run left work for later.
    assert run_command("find_duplicates").error is None
    assert Memory.objects.get(namespace=broken, external_id="tea-again").status == "superseded"


def test_a_namespace_another_run_holds_is_skipped_and_the_rest_of_its_batch_is_done(
    run_command, load
):
    two_namespaces_with_folds(load)
    held = Namespace.objects.get(name="ns-b")
    found = connection.settings_dict
    other = psycopg.connect(
        dbname=found["NAME"],
        user=found["USER"],
        host=found["HOST"],
        port=found["PORT"] or None,
        password=found["PASSWORD"] or None,
    )
    try:
        other.execute("SELECT pg_advisory_lock(%s)", [runs._lock_key(held)])
        result = run_command("find_duplicates")
    finally:
        other.close()

    assert "skipped 1 namespace(s) another run holds: ns-b" in str(result.error)
    assert "2 namespace(s), 8 memories" in result.stdout
    statuses = dict(
        Memory.objects.filter(external_id="tea-again").values_list("namespace__name", "status")
    )
    assert statuses == {"ns-a": "superseded", "ns-b": "active", "ns-c": "superseded"}
    assert sorted(DedupRun.objects.values_list("namespace__name", flat=True)) == ["ns-a", "ns-c"]


def test_max_ops_is_counted_per_namespace_in_a_batch(run_command, load):
    two_namespaces_with_folds(load)

    result = run_command("find_duplicates", "--max-ops", "1")

    assert "3 exact collapsed, 0 auto-merged" in result.stdout
    assert "3 deferred by --max-ops" in result.stdout
    assert Memory.objects.filter(status="superseded").count() == 3


def test_a_dry_run_over_a_batch_writes_nothing(run_command, load):
    two_namespaces_with_folds(load)
    before = Memory.objects.filter(status="active").count()

    result = run_command("find_duplicates", "--dry-run")

    assert result.stdout.count("would collapse tea-again into tea") == 3
    assert "dry run: 3 namespace(s), 12 memories" in result.stdout
    assert Memory.objects.filter(status="active").count() == before
    assert not Cluster.objects.exists() and not DedupRun.objects.exists()
    assert not HistoryEvent.objects.filter(actor="command:find_duplicates").exists()


def test_a_batch_makes_as_many_orm_queries_for_six_namespaces_as_for_two(load, settings):
    # The raw reads and writes (rows, vectors, COPY) are one per batch by construction;
    # this guards the ORM ones (runs, verdicts, clusters) against a query per namespace.
    settings.DEDUP_WORKERS = 1
    counts = {}
    for size in (2, 6):
        names = [f"q{size}-{i}" for i in range(size)]
        for name in names:
            load(
                line("tea", "Prefers tea.", unit(1), namespace=name),
                line("tea-again", "prefers tea", unit(1), namespace=name),
                line("miso", "Has a cat called Miso.", unit(2), namespace=name),
                line("miso-2", "Has a cat named Miso.", near(2, 0.8), namespace=name),
                name=f"{name}.jsonl",
            )
        namespaces = list(Namespace.objects.filter(name__in=names))
        with CaptureQueriesContext(connection) as queries:
            runs.run_many(namespaces, runs.Options(), workers=1, on_done=lambda _: None)
        counts[size] = len(queries)
        assert Memory.objects.filter(namespace__in=namespaces, status="superseded").count() == size

    assert counts[6] == counts[2]


def test_the_merge_log_is_one_info_line_per_namespace_and_a_debug_line_per_fold(
    run_command, load, caplog
):
    two_namespaces_with_folds(load)

    with caplog.at_level(logging.DEBUG, logger="memadmin.curation"):
        run_command("find_duplicates")

    merges = [r for r in caplog.records if r.getMessage().startswith("DEDUP_MERGE")]
    summaries = [r.getMessage() for r in merges if r.levelno == logging.INFO]
    folds = [r.getMessage() for r in merges if r.levelno == logging.DEBUG]
    assert len(summaries) == 3 and all("collapsed=1 merged=1 failed=0" in s for s in summaries)
    assert len(folds) == 6
    assert sum("action=collapse survivor=tea folded=tea-again" in f for f in folds) == 3


def test_if_due_is_decided_for_every_namespace_in_one_query(load, settings):
    settings.DEDUP_MIN_MEMORIES = 1
    two_namespaces_with_folds(load)
    DedupRun.objects.create(namespace=Namespace.objects.get(name="ns-a"), status="done")

    with CaptureQueriesContext(connection) as queries:
        due = runs.namespaces_to_run(name=None, if_due=True, shard=None, now=timezone.now())

    assert [ns.name for ns in due] == ["ns-b", "ns-c"]
    assert len(queries) == 1
