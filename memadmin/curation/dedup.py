"""One find_duplicates run: which namespaces are due, the advisory lock, loading a
namespace, planning (curation.planning), and applying the plan one decision at a time
through curation.decisions, with a cap on automatic changes and a DedupRun record."""

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
import psycopg
from django.conf import settings
from django.db import connection, connections
from django.utils import timezone

from memadmin.curation import decisions, llm, planning, prompts
from memadmin.curation.detect import Thresholds, Verdict
from memadmin.curation.models import (
    Cluster,
    ClusterStatus,
    Conflict,
    DedupRun,
    PairVerdict,
)
from memadmin.store import embeddings, queries
from memadmin.store.models import Memory, MemoryStatus, Namespace

logger = logging.getLogger("memadmin.curation")

ACTOR = "command:find_duplicates"
# Verdicts that mean "never propose this pair again".
FINAL_VERDICTS = (
    PairVerdict.Verdict.NOT_DUPLICATE,
    PairVerdict.Verdict.BOTH_VALID,
    PairVerdict.Verdict.RELATED_DISTINCT,
    PairVerdict.Verdict.UNRELATED,
)
LOADED_FIELDS = (
    "id",
    "external_id",
    "content",
    "content_hash",
    "category",
    "source_ref",
    "tags",
    "importance",
    "confidence",
    "access_count",
    "pinned",
    "created_at",
    "updated_at",
    "namespace_id",
)


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

    @property
    def removal_rate(self) -> float:
        removed = self.exact_collapsed + self.auto_merged
        return removed / self.memories if self.memories else 0.0

    def counts(self) -> dict[str, int]:
        return {
            name: getattr(self, name)
            for name in (
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
        }


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


def last_run(namespace: Namespace) -> DedupRun | None:
    return (
        DedupRun.objects.filter(namespace=namespace, status=DedupRun.Status.DONE, dry_run=False)
        .order_by("-started_at")
        .first()
    )


def _lock_key(namespace: Namespace) -> int:
    # A signed 64-bit key per namespace: shards and cron workers on other namespaces
    # never wait for each other.
    return zlib.crc32(f"memadmin.find_duplicates:{namespace.pk}".encode()) - 2**31


def _try_lock(namespace: Namespace) -> bool:
    with connection.cursor() as cursor:
        # A batch run commits one small transaction per decision; waiting for each WAL
        # flush would cost more than the decision. A crash may lose the last few commits
        # (each still all-or-nothing), which the next run simply finds again.
        cursor.execute("SET synchronous_commit = off")
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [_lock_key(namespace)])
        return bool(cursor.fetchone()[0])


def _unlock(namespace: Namespace) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_unlock(%s)", [_lock_key(namespace)])


def load_memories(namespace: Namespace) -> list[Memory]:
    """The namespace's active memories, oldest first, without their vectors."""
    return list(
        Memory.objects.filter(namespace=namespace, status=MemoryStatus.ACTIVE)
        .only(*LOADED_FIELDS)
        .order_by("created_at", "id")
    )


def load_vectors(
    namespace: Namespace, memories: list[Memory], only_ids: set[int] | None = None
) -> np.ndarray | None:
    """The memories' vectors as one float32 matrix in their order (zeros where a memory
    has no vector of the current model, or is not in `only_ids`); None if none has one."""
    vectors = np.zeros((len(memories), embeddings.DIMENSIONS), dtype=np.float32)
    position = {memory.pk: index for index, memory in enumerate(memories)}
    sql = (
        "SELECT id, embedding FROM store_memory WHERE namespace_id = %s "
        "AND status = 'active' AND embedding IS NOT NULL AND embedding_model = %s"
    )
    params: list = [namespace.pk, embeddings.MODEL_ID]
    if only_ids is not None:
        sql += " AND id = ANY(%s)"
        params.append(list(only_ids))
    found = False
    connection.ensure_connection()
    # pgvector's binary format (2-byte dimension, 2 unused bytes, big-endian float32s),
    # read straight into numpy: no text formatting or parsing of 384 numbers per row.
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, params, binary=True)
        while batch := cursor.fetchmany(5000):
            for memory_id, raw in batch:
                vectors[position[memory_id]] = (
                    np.frombuffer(raw, dtype=">f4", offset=4)
                    if isinstance(raw, bytes)
                    else raw.to_numpy()  # pgvector's loader is registered on this connection
                )
            found = True
    return vectors if found else None


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
    found = queries.nearest_pairs(
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
    return load_vectors(namespace, memories, only_ids=involved), pairs


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
        previous = last_run(namespace)
        if previous is None:
            return None
        since = previous.started_at
    return [index for index, memory in enumerate(memories) if memory.updated_at >= since]


def run_namespace(
    namespace: Namespace,
    options: Options,
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> NamespaceReport:
    """Detect and apply for one namespace, holding its advisory lock. Raises RunLocked
    when another run holds it. `on_progress(done, total)`: pairs compared so far."""
    if not _try_lock(namespace):
        raise RunLocked(f"another find_duplicates run is working on namespace {namespace.name}")
    try:
        return _run_locked(namespace, options, on_progress)
    finally:
        _unlock(namespace)


def _run_locked(namespace, options, on_progress) -> NamespaceReport:
    started = time.perf_counter()
    now = timezone.now()
    report = NamespaceReport(namespace=namespace.name)
    run = None
    if not options.dry_run:
        run = DedupRun.objects.create(
            namespace=namespace,
            parameters=_parameters(options),
            dry_run=False,
        )
    try:
        memories = load_memories(namespace)
        changed = changed_positions(memories, namespace, options, now)
        thresholds = Thresholds.from_settings()
        vector_pairs = None
        if use_index(memories, changed):
            vectors, index_pairs = index_candidates(namespace, memories, changed, thresholds)
            vector_pairs = lambda *_: index_pairs  # noqa: E731
            report.route = "hnsw"
        else:
            vectors = load_vectors(namespace, memories)
        report.memories = len(memories)
        report.changed = len(memories) if changed is None else len(changed)
        judged = set(
            PairVerdict.objects.filter(namespace=namespace, verdict__in=FINAL_VERDICTS).values_list(
                "hash_low", "hash_high"
            )
        )
        judged_set = set(
            PairVerdict.objects.filter(
                namespace=namespace, decided_by="human", verdict__in=FINAL_VERDICTS
            ).values_list("hash_low", "hash_high")
        )
        judged = planning.judge_namespace(
            memories,
            vectors,
            changed=changed,
            thresholds=thresholds,
            vector_pairs=vector_pairs,
            on_progress=on_progress,
        )
        _llm_verdicts(judged, namespace, options, report)
        plan = planning.group(judged, judged_pairs=judged_set)
        report.pairs_checked = plan.pairs_checked
        logger.info(
            "DEDUP_CHECK namespace=%s memories=%d changed=%d pairs=%d route=%s",
            namespace.name,
            report.memories,
            report.changed,
            report.pairs_checked,
            report.route,
        )
        _apply(plan, memories, namespace, options, report, run)
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


def _llm_verdicts(judged, namespace, options: Options, report: NamespaceReport) -> None:
    """Ask the LLM about the band the rules cannot settle, closest to the automatic
    threshold first, and let its answers override the rule-based judgements. Answers are
    cached by (hash, hash, prompt version): the same pair is never asked twice."""
    band = planning.llm_band(judged, low=settings.LLM_BAND_LOW)
    if not band:
        return
    memories = judged.memories
    cached = {
        (v.hash_low, v.hash_high): v
        for v in PairVerdict.objects.filter(
            namespace=namespace, decided_by="llm", prompt_version=prompts.VERDICT_VERSION
        )
    }
    session = options.llm_session
    before = session.usage() if session else {}
    for i, j in band:
        older, newer = judged.ordered(i, j)
        hashes = tuple(sorted((memories[older].content_hash, memories[newer].content_hash)))
        verdict = cached.get(hashes)
        if verdict is not None:
            label, kind, reason = verdict.verdict, verdict.conflict_kind, verdict.reason
            report.llm_cached += 1
        elif session is not None:
            try:
                answer = session.verdict(memories[older], memories[newer])
            except llm.CapReached:
                continue
            except llm.LLMFailed as error:
                logger.warning(
                    "DEDUP_FAIL verdict %s / %s falls back to the rules: %s",
                    memories[older].external_id,
                    memories[newer].external_id,
                    error,
                )
                continue
            label, kind, reason = answer.label, answer.conflict_kind, answer.reasoning
            report.llm_verdicts += 1
            if not options.dry_run:
                decisions.record_verdict(
                    namespace=namespace,
                    hashes=hashes,
                    verdict=label,
                    conflict_kind=kind,
                    reason=reason,
                    decided_by="llm",
                    prompt_version=answer.prompt_version,
                )
        else:
            continue
        _override(judged.judge(i, j), label, kind, reason)
    if session:
        for name, value in session.usage().items():
            if hasattr(report, name):
                setattr(report, name, value - before.get(name, 0))


def _override(judgement, label: str, kind: str, reason: str) -> None:
    """Apply an LLM verdict to a rule judgement."""
    judgement.decided_by = "llm"
    judgement.reasons = [f"LLM: {label}: {reason}".strip()]
    if label == "duplicate":
        judgement.verdict, judgement.method = Verdict.REVIEW, "llm"
    elif label == "conflict":
        judgement.verdict = Verdict.CONFLICT
        judgement.conflict_kind = kind or "contradiction"
        judgement.never_together = True
    else:
        judgement.verdict, judgement.never_together = Verdict.DISTINCT, True


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


def _edges(group_edges, memories) -> list[dict]:
    return [
        {
            "a": memories[e.a].pk,
            "b": memories[e.b].pk,
            "similarity": round(float(e.similarity), 4),
            "method": e.method,
        }
        for e in group_edges
    ]


def _apply(plan, memories, namespace, options, report: NamespaceReport, run) -> None:
    ops_left = options.max_ops
    for kind, groups in (("collapse", plan.collapses), ("merge", plan.auto_merges)):
        for group in groups:
            survivor = memories[group.representative]
            others = [memories[p] for p in group.others]
            if len(others) > ops_left:
                report.deferred += len(others)
                continue
            description = (
                f"{kind} {', '.join(m.external_id for m in others)} into {survivor.external_id}"
            )
            if options.dry_run:
                report.actions.append(description)
            else:
                try:
                    decisions.fold_memories(
                        survivor=survivor,
                        others=others,
                        edges=_edges(group.edges, memories),
                        action="collapse" if kind == "collapse" else "merge",
                        actor=options.actor,
                        reason="exact duplicate" if kind == "collapse" else "near-identical",
                        run_id=run.pk if run else None,
                    )
                except decisions.DecisionError as error:
                    report.failed += 1
                    logger.warning("DEDUP_FAIL %s: %s", description, error)
                    continue
            ops_left -= len(others)
            if kind == "collapse":
                report.exact_collapsed += len(others)
            else:
                report.auto_merged += len(others)
    _apply_reviews(plan, memories, namespace, options, report)


def _apply_reviews(plan, memories, namespace, options, report) -> None:
    existing_sets = _existing_member_sets(namespace)
    proposed = []
    for cluster in plan.clusters:
        members = [memories[p] for p in cluster.members]
        ids = frozenset(m.pk for m in members)
        if any(ids <= known for known in existing_sets.get(members[0].pk, ())):
            continue  # already proposed (open or decided): never proposed twice
        if options.dry_run:
            report.actions.append(
                f"cluster {', '.join(m.external_id for m in members)}"
                + (f" [{', '.join(cluster.flags)}]" if cluster.flags else "")
            )
            report.clusters_opened += 1
            continue
        proposed.append(
            decisions.ProposedCluster(members, _edges(cluster.edges, memories), cluster.flags)
        )
    if proposed:
        for _, created in decisions.open_clusters(namespace=namespace, proposed=proposed):
            if created:
                report.clusters_opened += 1
            else:
                report.clusters_grown += 1
    known_conflicts = _existing_conflict_pairs(namespace)
    for candidate in plan.conflicts:
        older, newer = memories[candidate.older], memories[candidate.newer]
        if frozenset((older.pk, newer.pk)) in known_conflicts:
            continue
        judgement = candidate.judgement
        if options.dry_run:
            report.actions.append(
                f"conflict {older.external_id} / {newer.external_id} ({judgement.conflict_kind}: "
                f"{'; '.join(judgement.reasons)})"
            )
            report.conflicts_opened += 1
            continue
        _, created = decisions.open_conflict(
            older=older,
            newer=newer,
            kind=judgement.conflict_kind,
            reason="; ".join(judgement.reasons),
            differing_tokens=judgement.differing_tokens,
            detected_by=judgement.decided_by,
        )
        report.conflicts_opened += int(created)


def _existing_member_sets(namespace: Namespace) -> dict[int, list[frozenset[int]]]:
    """The member sets of the namespace's clusters (open or decided), under each member:
    a proposal is already known when a set under its first member holds all of it."""
    members: dict[int, set[int]] = {}
    rows = (
        Cluster.objects.filter(namespace=namespace)
        .exclude(status__in=[ClusterStatus.SPLIT, ClusterStatus.UNMERGED])
        .values_list("id", "memberships__memory_id")
    )
    for cluster_id, memory_id in rows:
        members.setdefault(cluster_id, set()).add(memory_id)
    by_member: dict[int, list[frozenset[int]]] = {}
    for ids in map(frozenset, members.values()):
        for memory_id in ids:
            by_member.setdefault(memory_id, []).append(ids)
    return by_member


def _existing_conflict_pairs(namespace: Namespace) -> set[frozenset[int]]:
    return {
        frozenset(pair)
        for pair in Conflict.objects.filter(namespace=namespace).values_list(
            "memory_a_id", "memory_b_id"
        )
    }


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
            on_done(_run_one(namespace.pk, options, follow))
        return
    connections.close_all()  # a forked child must not share the parent's socket
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_worker_start
    ) as pool:
        for outcome in pool.map(
            _run_one, [ns.pk for ns in namespaces], [options] * len(namespaces)
        ):
            on_done(outcome)


def _worker_start() -> None:
    connections.close_all()
    settings.DEDUP_WORKERS = 1  # this process is one of the workers already


def _run_one(
    namespace_id: int, options: Options, on_progress: Callable[[int, int], None] | None = None
) -> Outcome:
    namespace = Namespace.objects.get(pk=namespace_id)
    try:
        return Outcome(
            namespace.name, report=run_namespace(namespace, options, on_progress=on_progress)
        )
    except RunLocked as error:
        return Outcome(namespace.name, locked=str(error))
