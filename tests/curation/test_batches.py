"""find_duplicates over namespaces in batches (curation.runs): a batch read in a few
queries and written in one transaction must leave exactly what one namespace at a time
leaves, keep every guarantee per namespace (its lock, all or nothing, --max-ops, a dry run
writing nothing), and let one namespace fail alone."""

import gc
import json
import logging

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memadmin.curation import runs
from memadmin.curation.models import Cluster, DedupRun, HistoryEvent
from memadmin.store.models import Memory, Namespace
from tests.factories import line, near, run_state, unit
from tests.processes import another_session_holding, history_refused

pytestmark = pytest.mark.django_db(transaction=True)


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

    reference, batched = run_state("one-"), run_state("batched-")
    assert len(reference["runs"]) == 10 and {r[1] for r in reference["runs"]} == {"done"}
    assert len(reference["clusters"]) > 10 and len(reference["conflicts"]) > 10
    assert len([h for h in reference["history"] if h[1] == "collapse"]) > 5
    assert batched == reference


def namespaces_with_folds(load, names=("ns-a", "ns-b", "ns-c"), *, near_copy: float = 0.99):
    """Namespaces of four memories: an exact copy, and a near one (`near_copy`)."""
    for name in names:
        load(
            line("tea", "Prefers tea.", unit(1), namespace=name),
            line("tea-again", "prefers tea", unit(1), namespace=name),
            line("cat", "Has a cat called Miso.", unit(2), namespace=name),
            line("cat-again", "Has a cat named Miso.", near(2, near_copy), namespace=name),
            name=f"{name}.jsonl",
        )


def copy_statuses() -> dict[str, str]:
    """The status of each namespace's exact copy."""
    return dict(
        Memory.objects.filter(external_id="tea-again").values_list("namespace__name", "status")
    )


def test_a_namespace_whose_writes_fail_fails_alone_and_the_rest_of_its_batch_is_done(
    run_command, load, caplog
):
    namespaces_with_folds(load)
    broken = Namespace.objects.get(name="ns-b")
    # A fault in the database itself: any history event of ns-b is refused.
    with history_refused(broken.pk), caplog.at_level(logging.ERROR, logger="memadmin.curation"):
        result = run_command("find_duplicates")

    assert "1 namespace(s) failed and changed nothing: ns-b (the others are done)" in str(
        result.error
    )
    assert "DEDUP_FAIL namespace ns-b: writing failed: disk full" in result.stderr
    assert any("DEDUP_FAIL namespace=ns-b writing failed" in r.message for r in caplog.records)
    assert copy_statuses() == {"ns-a": "superseded", "ns-b": "active", "ns-c": "superseded"}
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
    namespaces_with_folds(load)
    held = Namespace.objects.get(name="ns-b")

    with another_session_holding(runs.lock_key(held)):
        result = run_command("find_duplicates")

    assert "skipped 1 namespace(s) another run holds: ns-b" in str(result.error)
    assert "2 namespace(s), 8 memories" in result.stdout
    assert copy_statuses() == {"ns-a": "superseded", "ns-b": "active", "ns-c": "superseded"}
    assert sorted(DedupRun.objects.values_list("namespace__name", flat=True)) == ["ns-a", "ns-c"]


def test_max_ops_is_counted_per_namespace_in_a_batch(run_command, load):
    namespaces_with_folds(load)

    result = run_command("find_duplicates", "--max-ops", "1")

    assert "3 exact collapsed, 0 auto-merged" in result.stdout
    assert "3 deferred by --max-ops" in result.stdout
    assert Memory.objects.filter(status="superseded").count() == 3


def test_a_dry_run_over_a_batch_writes_nothing(run_command, load):
    namespaces_with_folds(load)
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
        namespaces_with_folds(load, names, near_copy=0.8)  # the near copy: for review
        namespaces = list(Namespace.objects.filter(name__in=names))
        with CaptureQueriesContext(connection) as queries:
            runs.run_many(namespaces, runs.Options(), workers=1, on_done=lambda _: None)
        counts[size] = len(queries)
        assert Memory.objects.filter(namespace__in=namespaces, status="superseded").count() == size

    assert counts[6] == counts[2]


def test_the_merge_log_is_one_info_line_per_namespace_and_a_debug_line_per_fold(
    run_command, load, caplog
):
    namespaces_with_folds(load)

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
    namespaces_with_folds(load)
    DedupRun.objects.create(namespace=Namespace.objects.get(name="ns-a"), status="done")

    with CaptureQueriesContext(connection) as queries:
        due = runs.namespaces_to_run(name=None, if_due=True, shard=None, now=timezone.now())

    assert [ns.name for ns in due] == ["ns-b", "ns-c"]
    assert len(queries) == 1


def test_a_namespace_that_fills_a_batch_runs_alone_after_the_others_with_its_progress(
    load, settings
):
    settings.DEDUP_BATCH_MEMORIES, settings.DEDUP_WORKERS = 5, 2
    settings.DEDUP_INCREMENTAL_BATCH_MEMORIES = 5
    namespaces_with_folds(load)  # three namespaces of four memories
    load(
        *[
            line(f"m{i}", f"Fact number {i} about the lab.", unit(10 + i), namespace="big")
            for i in range(5)
        ],
        line("m0-again", "Fact number 0 about the lab.", unit(10), namespace="big"),
        name="big.jsonl",
    )
    namespaces = list(Namespace.objects.order_by("name"))
    assert runs.batches(namespaces, store_sizes(namespaces)) == [
        [namespaces[0].pk],  # big: six memories, more than a batch holds
        [namespaces[1].pk],
        [namespaces[2].pk],
        [namespaces[3].pk],
    ]
    done, progress = [], []

    runs.run_many(
        namespaces,
        runs.Options(),
        workers=2,
        on_done=done.append,
        on_progress=lambda name, compared, total: progress.append((name, compared, total)),
    )

    assert [outcome.namespace for outcome in done] == ["ns-a", "ns-b", "ns-c", "big"]
    assert all(outcome.report and not outcome.failed for outcome in done)
    assert progress and {name for name, _, _ in progress} == {"big"}
    assert progress[-1][1] == progress[-1][2]  # every pair compared
    assert Memory.objects.get(namespace__name="big", external_id="m0-again").status == (
        "superseded"
    )
    assert Memory.objects.filter(external_id="tea-again", status="superseded").count() == 3


def store_sizes(namespaces) -> dict[int, int]:
    from memadmin.store.queries import active_counts

    return active_counts([ns.pk for ns in namespaces])


def test_an_incremental_run_takes_more_memories_in_a_batch_than_a_full_one(settings):
    """An incremental run reads few vectors: its batches may hold more memories."""
    settings.DEDUP_BATCH_MEMORIES, settings.DEDUP_INCREMENTAL_BATCH_MEMORIES = 2_000, 6_000
    namespaces = [Namespace(pk=pk, name=f"n{pk}") for pk in range(1, 8)]
    sizes = dict.fromkeys(range(1, 8), 1_000)
    assert runs.batches(namespaces, sizes, runs.Options(full=True)) == [
        [1, 2],
        [3, 4],
        [5, 6],
        [7],
    ]
    assert runs.batches(namespaces, sizes, runs.Options()) == [[1, 2, 3, 4, 5, 6], [7]]
    assert runs.batches(namespaces, sizes) == runs.batches(
        namespaces, sizes, runs.Options(full=True)
    )


@pytest.mark.parametrize("enabled_before", [True, False])
def test_a_batch_runs_without_the_garbage_collector_and_leaves_it_as_it_found_it(
    load, monkeypatch, enabled_before
):
    namespaces_with_folds(load, ["gc-a", "gc-b"])
    namespaces = list(Namespace.objects.filter(name__in=["gc-a", "gc-b"]))
    seen_during = []
    detect = runs.batch._detect

    def watched_detect(*args, **kwargs):
        seen_during.append(gc.isenabled())
        return detect(*args, **kwargs)

    monkeypatch.setattr(runs.batch, "_detect", watched_detect)
    (gc.enable if enabled_before else gc.disable)()
    try:
        outcomes = runs.run_batch([ns.pk for ns in namespaces], runs.Options())
        enabled_after = gc.isenabled()
    finally:
        gc.enable()

    assert seen_during == [False]
    assert enabled_after is enabled_before
    assert [o.report.exact_collapsed for o in outcomes] == [1, 1]


def test_overlapping_batches_of_one_process_resume_the_collector_when_the_last_ends():
    first, second = runs.batch._collector_paused(), runs.batch._collector_paused()
    gc.enable()
    try:
        first.__enter__()
        second.__enter__()  # a second worker thread's batch, begun while the first runs
        first.__exit__(None, None, None)
        still_paused = not gc.isenabled()
        second.__exit__(None, None, None)
        resumed = gc.isenabled()
    finally:
        gc.enable()

    assert still_paused and resumed


def test_a_batch_forgets_the_texts_it_read_as_it_ends(load):
    from memadmin.curation.detection.reading import clause as reading

    namespaces_with_folds(load, ["forget-a"])
    namespace = Namespace.objects.get(name="forget-a")
    reading.read("A text read before the batch")

    outcomes = runs.run_batch([namespace.pk], runs.Options())

    assert outcomes[0].report.exact_collapsed == 1
    # The batch judged its pairs, and left nothing of their readings behind.
    assert outcomes[0].report.pairs_checked == 6
    assert reading.read.cache_info().currsize == 0


def test_a_store_of_a_few_namespaces_is_split_so_that_every_worker_has_work(settings):
    """Four namespaces of 1,250 fit one batch; two workers each take half a share."""
    namespaces = [Namespace(pk=pk, name=f"n{pk}") for pk in range(1, 5)]
    sizes = dict.fromkeys(range(1, 5), 1_250)
    assert runs.batches(namespaces, sizes, runs.Options(full=True)) == [[1, 2, 3, 4]]
    assert runs.batches(namespaces, sizes, runs.Options(full=True), workers=2) == [
        [1],
        [2],
        [3],
        [4],
    ]
    # A small store is read in seconds: no batch below SPLIT_FLOOR memories of its own.
    small = dict.fromkeys(range(1, 5), 100)
    assert runs.batches(namespaces, small, runs.Options(full=True), workers=2) == [[1, 2, 3, 4]]
