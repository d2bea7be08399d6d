"""One find_duplicates run: which namespaces are due, the shard a namespace belongs to,
the advisory lock that keeps two runs apart, the DedupRun record, and running namespaces
side by side in worker processes. What a run does inside a namespace is load
(store.queries), judge (planning, llm_verdicts), and apply (applying)."""

from __future__ import annotations

import logging
import multiprocessing
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial

import numpy as np
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, connections
from django.utils import timezone

from memadmin.curation import decisions, llm, llm_verdicts, planning, queries
from memadmin.curation.applying import apply_plan
from memadmin.curation.detect import Thresholds
from memadmin.curation.models import DedupRun
from memadmin.store import embeddings, multilingual
from memadmin.store import queries as store_queries
from memadmin.store.models import Memory, MemoryStatus, Namespace
from memadmin.store.text import first_line

logger = logging.getLogger("memadmin.curation")

ACTOR = "command:find_duplicates"


class RunLocked(Exception):
    """Another find_duplicates run holds this namespace."""


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
    namespaces = Namespace.objects.order_by("name")
    if name:
        namespaces = namespaces.filter(name=name)
    chosen = [ns for ns in namespaces if shard is None or shard_of(ns.name, shard[1]) == shard[0]]
    if if_due:
        chosen = [ns for ns in chosen if is_due(ns, now)]
    return chosen


def is_due(namespace: Namespace, now: datetime) -> bool:
    """More than DEDUP_MIN_MEMORIES active memories and no finished run within
    DEDUP_INTERVAL_HOURS."""
    active = Memory.objects.filter(namespace=namespace, status=MemoryStatus.ACTIVE).count()
    if active <= settings.DEDUP_MIN_MEMORIES:
        return False
    last = last_run(namespace)
    return last is None or last.started_at < now - timedelta(hours=settings.DEDUP_INTERVAL_HOURS)


def last_run(namespace: Namespace, *, complete: bool = False) -> DedupRun | None:
    """The namespace's last finished run; with `complete`, the last one that left nothing
    for later (no change deferred by --max-ops, none failed): what an incremental run
    compares from, so that deferred work is picked up again."""
    runs = DedupRun.objects.filter(namespace=namespace, status=DedupRun.Status.DONE, dry_run=False)
    if complete:
        runs = runs.filter(counts__deferred=0, counts__failed=0)
    return runs.order_by("-started_at").first()


def close_interrupted(namespace: Namespace) -> int:
    """Runs of the namespace still marked running when its lock is free died (kill -9, a
    lost database): they are marked failed, so none stays "running" forever."""
    return DedupRun.objects.filter(namespace=namespace, status=DedupRun.Status.RUNNING).update(
        status=DedupRun.Status.FAILED,
        finished_at=timezone.now(),
        error="interrupted: the process ended before the run finished",
    )


# --- The lock ------------------------------------------------------------------------------


def _lock_key(namespace: Namespace) -> int:
    # A signed 64-bit key per namespace: shards and cron workers on other namespaces
    # never wait for each other.
    return zlib.crc32(f"memadmin.find_duplicates:{namespace.pk}".encode()) - 2**31


def _try_lock(namespace: Namespace) -> bool:
    # Commits stay synchronous: a decision reported as done (DEDUP_MERGE) is on disk.
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [_lock_key(namespace)])
        return bool(cursor.fetchone()[0])


def _unlock(namespace: Namespace) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_unlock(%s)", [_lock_key(namespace)])


# --- One namespace -------------------------------------------------------------------------


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
    language (None for any other: it never pays for them). A namespace found to be
    multilingual here (memories stored before this version) is marked so, and memories
    without the vector get it first (a dry run computes them without storing)."""
    if not namespace.multilingual:
        if not multilingual.needs_multilingual(memory.content for memory in memories):
            return None
        decisions.note_languages(namespace, [memory.content for memory in memories])
    if not options.dry_run:
        decisions.embed_multilingual(namespace, actor="command:find_duplicates")
    vectors = store_queries.active_vectors(namespace, memories, column="embedding_multi")
    if vectors is None:
        vectors = np.zeros((len(memories), multilingual.DIMENSIONS), dtype=np.float32)
    missing = np.flatnonzero(~vectors.any(axis=1))
    if len(missing):  # a dry run stores nothing: it computes what is missing
        vectors[missing] = multilingual.encode([memories[i].content for i in missing])
    return vectors


def changed_positions(
    memories: list[Memory], namespace: Namespace, options: Options, now: datetime
) -> list[int] | None:
    """Positions to compare against the whole namespace: everything with --full or on a
    first run, else what was added or changed since the last run (or the --since window)."""
    if options.full:
        return None
    if options.since is not None:
        since = now - options.since
    else:
        previous = last_run(namespace, complete=True)
        if previous is None:
            return None
        since = previous.started_at
    return [index for index, memory in enumerate(memories) if memory.updated_at >= since]


def run_namespace(
    namespace: Namespace,
    options: Options,
    *,
    on_progress: Callable[[int, int], None] | None = None,
    vector_workers: int | None = None,
) -> NamespaceReport:
    """Detect and apply for one namespace, holding its advisory lock. Raises RunLocked
    when another run holds it. `on_progress(done, total)`: pairs compared so far;
    `vector_workers`: processes of the exact vector layer (None: DEDUP_WORKERS)."""
    if not _try_lock(namespace):
        raise RunLocked(f"another find_duplicates run is working on namespace {namespace.name}")
    try:
        return _run_locked(namespace, options, on_progress, vector_workers)
    finally:
        _unlock(namespace)


def _run_locked(namespace, options, on_progress, vector_workers) -> NamespaceReport:
    started = time.perf_counter()
    now = timezone.now()
    report = NamespaceReport(namespace=namespace.name)
    run = None
    close_interrupted(namespace)  # this run holds the lock: no other one is alive
    if not options.dry_run:
        run = DedupRun.objects.create(
            namespace=namespace,
            parameters=_parameters(options),
            dry_run=False,
        )
    try:
        memories = store_queries.active_memories(namespace)
        changed = changed_positions(memories, namespace, options, now)
        thresholds = Thresholds.from_settings()
        vector_pairs = None
        if use_index(memories, changed):
            vectors, index_pairs = index_candidates(namespace, memories, changed, thresholds)
            vector_pairs = lambda *_: index_pairs  # noqa: E731
            report.route = "hnsw"
        else:
            vectors = store_queries.active_vectors(namespace, memories)
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
        llm_verdicts.ask_band(judged, namespace, options, report)
        plan = planning.group(
            judged,
            judged_pairs=queries.human_judged_pairs(namespace),
            absorbed=lambda ids: queries.absorbed_by(namespace, ids),
        )
        report.pairs_checked = plan.pairs_checked
        logger.info(
            "DEDUP_CHECK namespace=%s memories=%d changed=%d pairs=%d route=%s",
            namespace.name,
            report.memories,
            report.changed,
            report.pairs_checked,
            report.route,
        )
        apply_plan(plan, memories, namespace, options, report, run)
    except (OperationalError, InterfaceError) as error:
        # The database went away: one line, and the run stays "running" until the next
        # run finds it (close_interrupted); writing to a lost database would only fail.
        logger.error(
            "DEDUP_FAIL namespace=%s database error: %s", namespace.name, first_line(error)
        )
        raise
    except Exception as error:
        logger.exception("DEDUP_FAIL namespace=%s run failed: %s", namespace.name, error)
        if run:
            run.status, run.error = DedupRun.Status.FAILED, str(error)
            _finish(run, report, started)
        raise
    if report.removal_rate > settings.DEDUP_ALERT_REMOVAL_RATE:
        alert = (
            f"removal rate {report.removal_rate:.0%} exceeds "
            f"{settings.DEDUP_ALERT_REMOVAL_RATE:.0%} in namespace {namespace.name}"
        )
        report.alerts.append(alert)
        logger.warning("DEDUP_ALERT %s", alert)
    report.duration_s = time.perf_counter() - started
    if run:
        run.status = DedupRun.Status.DONE
        _finish(run, report, started)
    return report


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


def _finish(run: DedupRun, report: NamespaceReport, started: float) -> None:
    run.finished_at = timezone.now()
    run.duration_s = time.perf_counter() - started
    run.counts = report.counts()
    run.parameters = {**run.parameters, "route": report.route}
    run.removal_rate = report.removal_rate
    run.alerts = report.alerts
    run.save()


# --- Many namespaces -----------------------------------------------------------------------


@dataclass
class Outcome:
    """What happened to one namespace in a multi-namespace run."""

    namespace: str
    report: NamespaceReport | None = None
    locked: str = ""  # the message, when another run held the namespace


def run_many(
    namespaces: list[Namespace],
    options: Options,
    *,
    workers: int,
    on_done: Callable[[Outcome], None],
    on_progress: Callable[[str, int, int], None] | None = None,
) -> None:
    """Run every namespace, in `workers` processes when there are several namespaces.
    `on_progress(namespace, done, total)` follows the pairs compared inside a namespace
    when they run one at a time (the case of one large namespace; worker processes report
    only through `on_done`).

    Namespaces share nothing (each has its own advisory lock and transactions), so they
    run side by side; each worker opens its own database connection, and inside a worker
    the vector layer stays in one process so the two levels do not fight for the cores.
    """
    # Worker processes could not see a caller's uncommitted transaction: stay serial then;
    # and LLM calls go one at a time, within one run's budget.
    serial = workers <= 1 or len(namespaces) <= 1 or options.llm_session is not None
    if serial or connection.in_atomic_block:
        for namespace in namespaces:
            follow = partial(on_progress, namespace.name) if on_progress is not None else None
            on_done(_run_one(namespace.pk, options, follow, vector_workers=workers))
        return
    connections.close_all()  # a forked child must not share the parent's socket
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=connections.close_all
    ) as pool:
        # This process is one of the workers already: its vector layer stays in it.
        run_one = partial(_run_one, on_progress=None, vector_workers=1)
        for outcome in pool.map(run_one, [ns.pk for ns in namespaces], [options] * len(namespaces)):
            on_done(outcome)


def _run_one(
    namespace_id: int,
    options: Options,
    on_progress: Callable[[int, int], None] | None = None,
    *,
    vector_workers: int | None = None,
) -> Outcome:
    namespace = Namespace.objects.get(pk=namespace_id)
    try:
        report = run_namespace(
            namespace, options, on_progress=on_progress, vector_workers=vector_workers
        )
    except RunLocked as error:
        return Outcome(namespace.name, locked=str(error))
    return Outcome(namespace.name, report=report)
