"""One find_duplicates run: which namespaces are due, the shard a namespace belongs to,
the advisory locks that keep two runs apart, the DedupRun records, and batches of
namespaces run side by side in worker processes.

Most deployments are many small namespaces (one per agent or user), so the unit of work
is a batch of them: read in a few queries (store.queries.detection_batch), each judged
on its own (planning, llm_verdicts), and their decisions written with set-based
statements in one transaction (applying). A namespace large enough to fill a batch runs
alone, its vector layer in worker processes."""

from __future__ import annotations

import gc
import logging
import multiprocessing
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial

import numpy as np
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, connections
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from memadmin.curation import (
    applying,
    decisions,
    llm,
    llm_verdicts,
    planning,
    prompts,
    queries,
)
from memadmin.curation.detection import detect, reading
from memadmin.curation.detection.judgement import Thresholds
from memadmin.curation.models import DedupRun
from memadmin.store import embeddings, multilingual
from memadmin.store import queries as store_queries
from memadmin.store.models import Memory, MemoryStatus, Namespace
from memadmin.store.text import first_line

logger = logging.getLogger("memadmin.curation")

ACTOR = "command:find_duplicates"


@dataclass
class Options:
    dry_run: bool = False
    max_ops: int = 200
    full: bool = False
    since: timedelta | None = None
    actor: str = ACTOR
    # The run's LLM session (None: rules only). Verdicts go one call at a time, so a run
    # with an LLM takes the namespaces one after another.
    llm_session: llm.Session | None = None


@dataclass
class NamespaceReport:
    namespace: str
    memories: int = 0
    changed: int = 0
    pairs_checked: int = 0
    exact_collapsed: int = 0
    auto_merged: int = 0
    clusters_opened: int = 0
    clusters_grown: int = 0
    conflicts_opened: int = 0
    deferred: int = 0  # automatic changes left for the next run by --max-ops
    failed: int = 0
    llm_verdicts: int = 0  # pairs the LLM judged in this run
    llm_cached: int = 0  # pairs judged by an earlier run's LLM answer (no call made)
    llm_calls: int = 0
    llm_calls_skipped: int = 0
    llm_input_tokens: int = 0
    llm_output_tokens: int = 0
    duration_s: float = 0.0
    route: str = "matrix"  # how the vector layer ran: matrix (exact) or hnsw (index)
    alerts: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)  # what a dry run would do

    COUNTED = (
        "memories",
        "changed",
        "pairs_checked",
        "exact_collapsed",
        "auto_merged",
        "clusters_opened",
        "clusters_grown",
        "conflicts_opened",
        "deferred",
        "failed",
        "llm_verdicts",
        "llm_cached",
        "llm_calls",
        "llm_calls_skipped",
        "llm_input_tokens",
        "llm_output_tokens",
    )

    @property
    def removal_rate(self) -> float:
        removed = self.exact_collapsed + self.auto_merged
        return removed / self.memories if self.memories else 0.0

    def counts(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.COUNTED}


# --- Which namespaces ----------------------------------------------------------------------


def shard_of(name: str, shards: int) -> int:
    """Stable shard number of a namespace (crc32, the same on every machine and run)."""
    return zlib.crc32(name.encode("utf-8")) % shards


def namespaces_to_run(
    *, name: str | None, if_due: bool, shard: tuple[int, int] | None, now: datetime
) -> list[Namespace]:
    """The namespaces a run takes, by name; with `if_due` only those due: more than
    DEDUP_MIN_MEMORIES active memories and no finished run within DEDUP_INTERVAL_HOURS
    (one query for every namespace, not two each)."""
    namespaces = Namespace.objects.order_by("name")
    if name:
        namespaces = namespaces.filter(name=name)
    if if_due:
        last_started = (
            DedupRun.objects.filter(
                namespace=OuterRef("pk"), status=DedupRun.Status.DONE, dry_run=False
            )
            .order_by("-started_at")
            .values("started_at")[:1]
        )
        namespaces = namespaces.annotate(
            active=store_queries.count_per_namespace(Memory, status=MemoryStatus.ACTIVE),
            last_started=Subquery(last_started),
        )
    chosen = [ns for ns in namespaces if shard is None or shard_of(ns.name, shard[1]) == shard[0]]
    if if_due:
        recent = now - timedelta(hours=settings.DEDUP_INTERVAL_HOURS)
        chosen = [
            ns
            for ns in chosen
            if ns.active > settings.DEDUP_MIN_MEMORIES
            and (ns.last_started is None or ns.last_started < recent)
        ]
    return chosen


def last_complete_starts(namespaces: list[Namespace]) -> dict[int, datetime]:
    """When each namespace's last run that left nothing for later (no change deferred by
    --max-ops, none failed) started: what an incremental run compares from, so that
    deferred work is picked up again. Namespaces without one are missing."""
    return dict(
        DedupRun.objects.filter(
            namespace__in=namespaces,
            status=DedupRun.Status.DONE,
            dry_run=False,
            counts__deferred=0,
            counts__failed=0,
        )
        .order_by("namespace_id", "-started_at")
        .distinct("namespace_id")
        .values_list("namespace_id", "started_at")
    )


def close_interrupted(namespaces: list[Namespace]) -> int:
    """Runs of these namespaces still marked running while this run holds their locks
    died (kill -9, a lost database): they are marked failed, so none stays "running"
    forever."""
    return DedupRun.objects.filter(namespace__in=namespaces, status=DedupRun.Status.RUNNING).update(
        status=DedupRun.Status.FAILED,
        finished_at=timezone.now(),
        error="interrupted: the process ended before the run finished",
    )


# --- The locks -----------------------------------------------------------------------------


def _lock_key(namespace: Namespace) -> int:
    # A signed 64-bit key per namespace: shards and cron workers on other namespaces
    # never wait for each other.
    return zlib.crc32(f"memadmin.find_duplicates:{namespace.pk}".encode()) - 2**31


def _try_locks(namespaces: list[Namespace]) -> list[Namespace]:
    """Take each namespace's advisory lock that is free (one query); returns those held."""
    # Commits stay synchronous: a decision reported as done (DEDUP_MERGE) is on disk.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_try_advisory_lock(key) FROM unnest(%s::bigint[]) WITH ORDINALITY "
            "AS keys(key, position) ORDER BY position",
            [[_lock_key(ns) for ns in namespaces]],
        )
        taken = [row[0] for row in cursor.fetchall()]
    return [ns for ns, held in zip(namespaces, taken, strict=True) if held]


def _unlock(namespaces: list[Namespace]) -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_unlock(key) FROM unnest(%s::bigint[]) AS key",
                [[_lock_key(ns) for ns in namespaces]],
            )
    except (OperationalError, InterfaceError):
        pass  # the session is gone, and its locks with it


# --- Routes inside a namespace -------------------------------------------------------------


def use_index(memories: list[Memory], changed: list[int] | None) -> bool:
    """The HNSW route pays per query and saves loading every vector: it wins when few
    memories are new in a large namespace (bench/find_duplicates.py measures both)."""
    return (
        changed is not None
        and len(memories) >= settings.DEDUP_INDEX_MIN_MEMORIES
        and len(changed) <= settings.DEDUP_INDEX_MAX_QUERIES
    )


def index_candidates(
    namespace: Namespace, memories: list[Memory], changed: list[int], thresholds: Thresholds
) -> tuple[np.ndarray | None, np.ndarray]:
    """Candidate pairs from the HNSW index, and the vectors of the memories involved."""
    position = {memory.pk: index for index, memory in enumerate(memories)}
    found = store_queries.nearest_pairs(
        namespace,
        [memories[p].pk for p in changed],
        k=thresholds.neighbours,
        floor=thresholds.candidate,
    )
    pairs = np.array(
        [
            (min(position[a], position[b]), max(position[a], position[b]), cosine)
            for a, b, cosine in found
            if a in position and b in position
        ],
        dtype=np.float64,
    ).reshape(-1, 3)
    if len(pairs):
        pairs = np.unique(pairs, axis=0)
    involved = {memories[p].pk for p in changed} | {b for _, b, _ in found}
    return store_queries.active_vectors(namespace, memories, only_ids=involved), pairs


def multilingual_vectors(
    namespace: Namespace, memories: list[Memory], options: Options
) -> np.ndarray | None:
    """The multilingual model's vectors of a namespace whose memories are in more than one
    language (None for any other: it never pays for them). Every write notes the
    language of what it brings (decisions.note_languages), so only a namespace whose
    language was never noted (memories stored before this version) is read here, once;
    found multilingual, it is marked so, and memories without the vector get it first (a
    dry run computes them without storing)."""
    if not namespace.multilingual:
        if namespace.language:
            return None
        if not decisions.note_languages(namespace, [memory.content for memory in memories]):
            return None
    if not options.dry_run:
        decisions.embed_multilingual(namespace, actor="command:find_duplicates")
    vectors = store_queries.active_vectors(namespace, memories, column="embedding_multi")
    if vectors is None:
        vectors = np.zeros((len(memories), multilingual.DIMENSIONS), dtype=np.float32)
    missing = np.flatnonzero(~vectors.any(axis=1))
    if len(missing):  # a dry run stores nothing: it computes what is missing
        vectors[missing] = multilingual.encode([memories[i].content for i in missing])
    return vectors


def changed_positions(memories: list[Memory], since: datetime | None) -> list[int] | None:
    """Positions to compare against the whole namespace: those added or changed since
    `since`, or every one (None) when there is no `since` (--full, a first run)."""
    if since is None:
        return None
    return [index for index, memory in enumerate(memories) if memory.updated_at >= since]


def _since(options: Options, now: datetime, last_complete: datetime | None) -> datetime | None:
    if options.full:
        return None
    if options.since is not None:
        return now - options.since
    return last_complete


# --- One batch of namespaces ---------------------------------------------------------------


@dataclass
class Outcome:
    """What happened to one namespace in a run."""

    namespace: str
    report: NamespaceReport | None = None
    locked: str = ""  # the message, when another run held the namespace
    failed: str = ""  # the error, when its detection or its writes failed


@dataclass
class _Part:
    """One namespace's share of a batch."""

    namespace: Namespace
    report: NamespaceReport
    run: DedupRun | None = None
    writes: applying.Writes | None = None
    seconds: float = 0.0  # its own detection time
    error: str = ""

    def fail(self, error: Exception, what: str) -> None:
        logger.exception("DEDUP_FAIL namespace=%s %s failed: %s", self.namespace.name, what, error)
        # The run records the first line: a database error goes on with its context
        # (the statement, rows of data), which the log above keeps.
        self.error, self.writes = f"{what} failed: {first_line(error)}", None


def run_batch(
    namespace_ids: list[int],
    options: Options,
    *,
    on_progress: Callable[[int, int], None] | None = None,
    vector_workers: int | None = None,
) -> list[Outcome]:
    """Detect and apply for a batch of namespaces, each holding its advisory lock (one
    that another run holds is skipped, its Outcome saying so). `on_progress(done, total)`:
    pairs compared so far in a namespace run alone; `vector_workers`: processes of the
    exact vector layer (None: DEDUP_WORKERS).

    Side effects: a DedupRun per namespace (running until the batch ends: one left
    running by a process that died is closed by the next run); every decision through
    curation.decisions, the batch's in one transaction. A namespace whose detection or
    writes fail is recorded failed (DEDUP_FAIL in the log) and the others are done. A
    lost database propagates (OperationalError, InterfaceError)."""
    namespaces = list(Namespace.objects.filter(pk__in=namespace_ids).order_by("name"))
    held = _try_locks(namespaces)
    # Until its part of the batch is done, a namespace's outcome is the lock it lacked.
    outcomes = {
        ns.pk: Outcome(
            ns.name, locked=f"another find_duplicates run is working on namespace {ns.name}"
        )
        for ns in namespaces
    }
    if held:
        try:
            with _fewer_collections():
                parts = _run_held(held, options, on_progress, vector_workers)
        finally:
            _unlock(held)
        for part in parts:
            outcomes[part.namespace.pk] = Outcome(
                part.namespace.name, report=part.report, failed=part.error
            )
    return [outcomes[ns.pk] for ns in namespaces]


@contextmanager
def _fewer_collections():
    """A batch makes hundreds of thousands of small objects that live until it ends: at
    the garbage collector's default pace (a collection every 700 allocations) walking
    them took a fifth of a worker's time (bench/find_duplicates.py, scenario b)."""
    before = gc.get_threshold()
    gc.set_threshold(50_000, 20, 20)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _run_held(held, options, on_progress, vector_workers) -> list[_Part]:
    started = time.perf_counter()
    now = timezone.now()
    close_interrupted(held)  # this run holds their locks: no other one is alive
    parts = [_Part(ns, NamespaceReport(namespace=ns.name)) for ns in held]
    if not options.dry_run:
        parameters = _parameters(options)
        created = DedupRun.objects.bulk_create(
            DedupRun(namespace=part.namespace, parameters=dict(parameters), dry_run=False)
            for part in parts
        )
        for part, run in zip(parts, created, strict=True):
            part.run = run
    try:
        _detect(parts, options, now, on_progress, vector_workers)
        _write(parts, options)
    except (OperationalError, InterfaceError) as error:
        # The database went away: one line, and the runs stay "running" until the next
        # run finds them (close_interrupted); writing to a lost database would only fail.
        logger.error(
            "DEDUP_FAIL namespaces=%s database error: %s",
            ",".join(part.namespace.name for part in parts),
            first_line(error),
        )
        raise
    _finish(parts, time.perf_counter() - started)
    return parts


def _detect(parts: list[_Part], options: Options, now, on_progress, vector_workers) -> None:
    """Read the batch (a few queries for all of it) and judge each namespace, collecting
    what it would write."""
    namespaces = [part.namespace for part in parts]
    ids = [ns.pk for ns in namespaces]
    last_complete = last_complete_starts(namespaces)
    since = {ns.pk: _since(options, now, last_complete.get(ns.pk)) for ns in namespaces}
    # A large namespace with few changes may take the HNSW route, which reads no vectors:
    # its rows are read without them, and its vectors only if the matrix route is taken.
    sizes = store_queries.active_counts(ids)
    maybe_index = {
        pk for pk in ids if since[pk] is not None and sizes[pk] >= settings.DEDUP_INDEX_MIN_MEMORIES
    }
    inputs = store_queries.detection_batch([pk for pk in ids if pk not in maybe_index])
    if maybe_index:
        inputs.update(store_queries.detection_batch(sorted(maybe_index), with_vectors=False))
    judged_apart = queries.human_judged_pairs(ids)
    known = applying.Known(
        member_sets=queries.existing_member_sets(ids),
        conflict_pairs=queries.existing_conflict_pairs(ids),
    )
    absorbing = queries.absorbing_ids(ids)
    llm_answers: dict = {}

    def cached(namespace_id: int) -> dict:
        if not llm_answers:  # read once for the batch, when a band first needs it
            llm_answers.update(queries.cached_llm_verdicts(ids, prompts.VERDICT_VERSION))
        return llm_answers[namespace_id]

    for part in parts:
        started = time.perf_counter()
        namespace, report = part.namespace, part.report
        found = inputs[namespace.pk]
        try:
            plan = _plan(
                namespace,
                found,
                changed_positions(found.memories, since[namespace.pk]),
                options,
                report,
                judged_apart=judged_apart[namespace.pk],
                absorbing=absorbing,
                cached=partial(cached, namespace.pk),
                on_progress=on_progress,
                vector_workers=vector_workers,
            )
            part.writes = applying.collect(plan, found.memories, options, report, known)
        except (OperationalError, InterfaceError):
            raise
        except Exception as error:
            part.fail(error, "detection")
        part.seconds = time.perf_counter() - started


def _plan(
    namespace: Namespace,
    found: store_queries.DetectionInput,
    changed: list[int] | None,
    options: Options,
    report: NamespaceReport,
    *,
    judged_apart: set[tuple[str, str]],
    absorbing: set[int],
    cached: Callable[[], dict],
    on_progress,
    vector_workers,
) -> planning.Plan:
    memories, vectors = found.memories, found.vectors
    thresholds = Thresholds.from_settings()
    vector_pairs = None
    if use_index(memories, changed):
        vectors, index_pairs = index_candidates(namespace, memories, changed, thresholds)
        vector_pairs = lambda *_: index_pairs  # noqa: E731
        report.route = "hnsw"
    elif vectors is None and memories:
        vectors = store_queries.active_vectors(namespace, memories)  # read without them
    report.memories = len(memories)
    report.changed = len(memories) if changed is None else len(changed)
    judged = planning.judge_namespace(
        memories,
        vectors,
        changed=changed,
        thresholds=thresholds,
        vector_pairs=vector_pairs,
        on_progress=on_progress,
        workers=vector_workers,
        multi_vectors=multilingual_vectors(namespace, memories, options),
    )
    llm_verdicts.ask_band(judged, namespace, options, report, cached=cached)

    def absorbed(memory_ids: list[int]) -> dict[int, list]:
        # Only a fold holding a memory that absorbed others before asks the database.
        if not absorbing.intersection(memory_ids):
            return {}
        return queries.absorbed_by(namespace.pk, memory_ids)

    plan = planning.group(judged, judged_pairs=judged_apart, absorbed=absorbed)
    report.pairs_checked = plan.pairs_checked
    logger.info(
        "DEDUP_CHECK namespace=%s memories=%d changed=%d pairs=%d route=%s",
        namespace.name,
        report.memories,
        report.changed,
        report.pairs_checked,
        report.route,
    )
    return plan


def _write(parts: list[_Part], options: Options) -> None:
    """Write every namespace's collected decisions in one transaction; when that fails,
    again one namespace at a time, so that only the failing one is left undone."""
    pending = [part for part in parts if part.writes]
    if options.dry_run or not pending:
        return
    try:
        applying.write([(part.report, part.writes) for part in pending], actor=options.actor)
    except (OperationalError, InterfaceError):
        raise
    except Exception as error:
        if len(pending) == 1:
            pending[0].fail(error, "writing")
            return
        for part in pending:
            try:
                applying.write([(part.report, part.writes)], actor=options.actor)
            except (OperationalError, InterfaceError):
                raise
            except Exception as error:
                part.fail(error, "writing")


def _finish(parts: list[_Part], batch_seconds: float) -> None:
    """Alerts, and each namespace's DedupRun closed (one statement for the batch). A
    namespace's duration is its own detection time and an equal share of what the batch
    spent reading and writing for all."""
    shared = max(batch_seconds - sum(part.seconds for part in parts), 0.0) / len(parts)
    finished_at = timezone.now()
    for part in parts:
        report, namespace = part.report, part.namespace
        report.duration_s = part.seconds + shared
        if part.error:
            report.failed += 1
        elif report.exact_collapsed or report.auto_merged or report.failed:
            logger.info(
                "DEDUP_MERGE namespace=%s collapsed=%d merged=%d failed=%d run=%s",
                namespace.name,
                report.exact_collapsed,
                report.auto_merged,
                report.failed,
                part.run.pk if part.run else None,
            )
        if report.removal_rate > settings.DEDUP_ALERT_REMOVAL_RATE:
            alert = (
                f"removal rate {report.removal_rate:.0%} exceeds "
                f"{settings.DEDUP_ALERT_REMOVAL_RATE:.0%} in namespace {namespace.name}"
            )
            report.alerts.append(alert)
            logger.warning("DEDUP_ALERT %s", alert)
        run = part.run
        if run is None:
            continue
        run.status = DedupRun.Status.FAILED if part.error else DedupRun.Status.DONE
        run.error = part.error
        run.finished_at = finished_at
        run.duration_s = report.duration_s
        run.counts = report.counts()
        run.parameters = {**run.parameters, "route": report.route}
        run.removal_rate = report.removal_rate
        run.alerts = report.alerts
    decisions.update_rows(
        [part.run for part in parts if part.run],
        [
            "status",
            "error",
            "finished_at",
            "duration_s",
            "counts",
            "parameters",
            "removal_rate",
            "alerts",
        ],
    )


def _parameters(options: Options) -> dict:
    thresholds = Thresholds.from_settings()
    return {
        "llm": settings.LLM_MODEL if options.llm_session else None,
        "max_ops": options.max_ops,
        "full": options.full,
        "since_hours": options.since.total_seconds() / 3600 if options.since else None,
        "thresholds": thresholds.__dict__,
        "embedding_model": embeddings.MODEL_ID,
    }


# --- Many namespaces -----------------------------------------------------------------------


def batches(namespaces: list[Namespace], sizes: dict[int, int]) -> list[list[int]]:
    """The namespaces in batches, in order: up to DEDUP_BATCH_MEMORIES active memories
    and DEDUP_BATCH_NAMESPACES namespaces each; a namespace that fills a batch alone is
    one."""
    found: list[list[int]] = []
    current: list[int] = []
    memories = 0
    for namespace in namespaces:
        size = sizes.get(namespace.pk, 0)
        if current and (
            memories + size > settings.DEDUP_BATCH_MEMORIES
            or len(current) >= settings.DEDUP_BATCH_NAMESPACES
        ):
            found.append(current)
            current, memories = [], 0
        current.append(namespace.pk)
        memories += size
    if current:
        found.append(current)
    return found


def run_many(
    namespaces: list[Namespace],
    options: Options,
    *,
    workers: int,
    on_done: Callable[[Outcome], None],
    on_progress: Callable[[str, int, int], None] | None = None,
) -> None:
    """Run every namespace, in batches (see batches), batches side by side in `workers`
    processes. A namespace that fills a batch alone runs afterwards in this process, its
    vector layer in the `workers` processes; `on_progress(namespace, done, total)` follows
    the pairs compared inside such a namespace. `on_done` hears of every namespace.

    Batches share nothing (each namespace has its own advisory lock, each batch its own
    transactions), so they run side by side; each worker opens its own database
    connection, and inside a worker the vector layer stays in one process so the two
    levels do not fight for the cores."""
    sizes = store_queries.active_counts([ns.pk for ns in namespaces])
    by_pk = {ns.pk: ns for ns in namespaces}
    all_batches = batches(namespaces, sizes)
    large = [b for b in all_batches if len(b) == 1 and sizes[b[0]] >= settings.DEDUP_BATCH_MEMORIES]
    small = [b for b in all_batches if b not in large]
    # Worker processes could not see a caller's uncommitted transaction: stay serial then;
    # and LLM calls go one at a time, within one run's budget.
    serial = workers <= 1 or len(small) <= 1 or options.llm_session is not None
    if serial or connection.in_atomic_block:
        large, small = all_batches, []
    if small:
        connections.close_all()  # a forked child must not share the parent's socket
        # The readers' dictionaries (lemmas, units: about 1.5 s to load) are loaded once
        # here and shared by the workers, not loaded again in each.
        reading.warm_up()
        # What this process holds is the workers' to read, never to collect: frozen, the
        # garbage collector of a worker does not walk (and copy) it all.
        gc.freeze()
        context = multiprocessing.get_context("fork")
        try:
            with ProcessPoolExecutor(
                max_workers=workers, mp_context=context, initializer=_start_worker
            ) as pool:
                # Each worker is busy with its own batch: its vector layer stays in it.
                run = partial(run_batch, options=options, vector_workers=1)
                for outcomes in pool.map(run, small):
                    for outcome in outcomes:
                        on_done(outcome)
        finally:
            gc.unfreeze()
    for batch in large:
        alone = len(batch) == 1 and on_progress is not None
        follow = partial(on_progress, by_pk[batch[0]].name) if alone else None
        for outcome in run_batch(batch, options, on_progress=follow, vector_workers=workers):
            on_done(outcome)


def _start_worker() -> None:
    connections.close_all()  # its own connection, opened on first use
    # Each worker judges its own batch: two BLAS threads per worker on two cores made the
    # run slower than one process (measured: bench/find_duplicates.py, scenario b).
    detect.one_blas_thread()
