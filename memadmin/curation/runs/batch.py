"""One batch of namespaces: read in a few queries (store.queries.detection_batch), each
namespace judged on its own (planning, llm_verdicts), their decisions written with
set-based statements in one transaction (applying), and a DedupRun for each."""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import partial

import numpy as np
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from memadmin.curation import decisions
from memadmin.curation.detection import pipeline
from memadmin.curation.detection.candidates.counts import Counts
from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.llm import band as llm_verdicts
from memadmin.curation.llm import prompts
from memadmin.curation.models import DedupRun
from memadmin.curation.reads.runs import (
    absorbed_by,
    cached_llm_verdicts,
    existing_conflict_pairs,
    existing_member_sets,
    human_judged_pairs,
    open_clusters,
    open_possible,
)
from memadmin.curation.runs import applying, counting, planning, routes
from memadmin.curation.runs.options import NamespaceReport, Options
from memadmin.curation.runs.routes import may_narrow
from memadmin.curation.runs.selection import (
    close_interrupted,
    last_complete_starts,
    try_locks,
    unlock,
)
from memadmin.store import embeddings, multilingual
from memadmin.store import queries as store_queries
from memadmin.store.models import Memory, Namespace
from memadmin.store.text import first_line, forget_texts

logger = logging.getLogger("memadmin.curation")


def multilingual_vectors(
    namespace: Namespace, memories: list[Memory], options: Options
) -> np.ndarray | None:
    """The multilingual model's vectors of the memories that have it (store.multilingual
    .wanted: all of a namespace in more than one language, else the short ones), rows of
    zeros for the others; None when none wants it (a namespace of long memories in one
    language never pays for it). Every write notes the language of what it brings
    (decisions.note_languages), so only a namespace whose language was never noted
    (memories stored before this version) is noted here, once. A memory that wants the
    vector and lacks it (stored before) gets it now; a dry run computes it without
    storing it."""
    several = namespace.multilingual or (
        not namespace.language
        and decisions.note_languages(namespace, [memory.content for memory in memories])
    )
    wanted = [i for i, m in enumerate(memories) if multilingual.wanted(m.content, several)]
    if not wanted:
        return None
    vectors = store_queries.active_vectors(
        namespace, memories, {memories[i].pk for i in wanted}, column="embedding_multi"
    )
    if vectors is None:
        vectors = np.zeros((len(memories), multilingual.DIMENSIONS), dtype=np.float32)
    missing = [i for i in wanted if not vectors[i].any()]
    if missing:
        vectors[missing] = multilingual.encode([memories[i].content for i in missing])
        if not options.dry_run:
            decisions.store_embeddings(
                memories=[memories[i] for i in missing],
                vectors=vectors[missing],
                actor="command:find_duplicates",
                model=multilingual.MODEL_ID,
            )
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
    lost database propagates (OperationalError, InterfaceError). The text caches are
    emptied as it ends (store.text.forget_texts)."""
    with _collector_paused():
        try:
            # Returned inside the block: the batch's objects are gone before collection
            # resumes.
            return _run_batch(namespace_ids, options, on_progress, vector_workers)
        finally:
            # What the batch read of its texts is of no use to the next one (their
            # namespaces share no memory), and held, it made every later batch slower.
            # A batch still running in another thread of the process (a queue worker with
            # --concurrency) reads its texts again: slower, never different.
            forget_texts()


@contextmanager
def _collector_paused():
    """A batch makes hundreds of thousands of objects that live until it ends and no
    cycles to collect (measured: 10 objects in 5 batches of 20 namespaces of 1,000). The
    garbage collector walking them at its default pace took a fifth of a worker's time,
    and still 7 % at a threshold of 50,000: it is off while a batch runs, and once the
    batch's objects are freed (by their reference counts), it finds little left to walk.
    Batches of one process that overlap (queue worker threads) leave it as the first found
    it once the last has ended."""
    with _paused_lock:
        if _paused["batches"] == 0:
            _paused["was_enabled"] = gc.isenabled()
            gc.disable()
        _paused["batches"] += 1
    try:
        yield
    finally:
        with _paused_lock:
            _paused["batches"] -= 1
            if _paused["batches"] == 0 and _paused["was_enabled"]:
                gc.enable()


# The batches running in this process with the collector paused, and whether it ran before.
_paused_lock = threading.Lock()
_paused = {"batches": 0, "was_enabled": True}


def _run_batch(namespace_ids, options, on_progress, vector_workers) -> list[Outcome]:
    namespaces = list(Namespace.objects.filter(pk__in=namespace_ids).order_by("name"))
    held = try_locks(namespaces)
    # Until its part of the batch is done, a namespace's outcome is the lock it lacked.
    outcomes = {
        ns.pk: Outcome(
            ns.name, locked=f"another find_duplicates run is working on namespace {ns.name}"
        )
        for ns in namespaces
    }
    if held:
        try:
            parts = _run_held(held, options, on_progress, vector_workers)
        finally:
            unlock(held)
        for part in parts:
            outcomes[part.namespace.pk] = Outcome(
                part.namespace.name, report=part.report, failed=part.error
            )
    return [outcomes[ns.pk] for ns in namespaces]


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
        counted = _detect(parts, options, now, on_progress, vector_workers)
        _write(parts, options)
        if not options.dry_run:
            counting.keep(counted)
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


@dataclass
class _Read:
    """A batch's memories as its namespaces' passes read them."""

    inputs: dict  # namespace id -> store.queries.DetectionInput
    narrowed: dict  # the namespaces read narrow (routes.narrow), with what they found
    vector_routes: dict  # namespace id -> how its vector layer runs
    changed: dict  # namespace id -> the positions of its memories new since the last run
    counted: dict  # namespace id -> counting.Counted


def _read(namespaces, options: Options, now, thresholds) -> _Read:
    """Read the batch (a few queries for all of it). An incremental pass reads light rows
    first: a namespace with few new memories is read narrow (routes.narrow), any other
    whole, without vectors (its route reads them)."""
    ids = [ns.pk for ns in namespaces]
    last_complete = last_complete_starts(namespaces)
    since = {ns.pk: _since(options, now, last_complete.get(ns.pk)) for ns in namespaces}
    light = store_queries.light_batch({pk: since[pk] for pk in ids if since[pk] is not None})
    kept = counting.kept_for(ids)
    narrowed = routes.narrow(
        {
            ns.pk: light[ns.pk]
            for ns in namespaces
            if ns.pk in light and may_narrow(ns, light[ns.pk])
        },
        kept,
        thresholds,
    )
    inputs = store_queries.detection_batch([pk for pk in ids if since[pk] is None])
    inputs.update(
        store_queries.detection_batch(
            [pk for pk in light if pk not in narrowed], with_vectors=False
        )
    )
    changed = {pk: changed_positions(found.memories, since[pk]) for pk, found in inputs.items()}
    vector_routes = routes.wide_routes(
        [ns for ns in namespaces if ns.pk not in narrowed], inputs, changed, thresholds
    )
    counted = counting.counts_for(inputs, kept)
    for pk, found in narrowed.items():
        inputs[pk] = store_queries.DetectionInput(found.memories, None)
        vector_routes[pk], changed[pk] = found.route, found.changed
        counted[pk] = found.counted
    return _Read(inputs, narrowed, vector_routes, changed, counted)


def _detect(
    parts: list[_Part], options: Options, now, on_progress, vector_workers
) -> dict[int, counting.Counted]:
    """Read the batch and judge each namespace, collecting what it would write; its
    counts (detection.candidates.counts), for the next run to keep."""
    namespaces = [part.namespace for part in parts]
    ids = [ns.pk for ns in namespaces]
    thresholds = Thresholds.from_settings()
    read = _read(namespaces, options, now, thresholds)
    inputs = read.inputs
    judged_apart = human_judged_pairs(ids)
    possible_sets, possible_conflicts = open_possible(ids)
    still_open = open_clusters(ids)
    known = applying.Known(
        member_sets=existing_member_sets(ids),
        conflict_pairs=existing_conflict_pairs(ids),
        possible_sets=possible_sets,
        possible_conflicts=possible_conflicts,
    )
    # What the memories read absorbed before (one query): a later fold counts it too.
    absorbed = absorbed_by(
        ids, [memory.pk for found in inputs.values() for memory in found.memories]
    )
    llm_answers: dict = {}

    def cached(namespace_id: int) -> dict:
        if not llm_answers:  # read once for the batch, when a band first needs it
            llm_answers.update(cached_llm_verdicts(ids, prompts.READING_VERSIONS))
        return llm_answers[namespace_id]

    for part in parts:
        started = time.perf_counter()
        namespace, report = part.namespace, part.report
        found = inputs[namespace.pk]
        try:
            plan = _plan(
                namespace,
                found.memories,
                read.vector_routes[namespace.pk],
                read.changed[namespace.pk],
                read.counted[namespace.pk].counts,
                read.narrowed.get(namespace.pk),
                thresholds,
                options,
                report,
                judged_apart=judged_apart[namespace.pk],
                absorbed=absorbed,
                still_open=still_open[namespace.pk],
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
    # The batch's audits in few calls (a call holds pairs of several namespaces); what
    # they answered is written with the rest.
    llm_verdicts.ask_audits(options)
    return read.counted


def _plan(
    namespace: Namespace,
    memories: list[Memory],
    route: routes.Route,
    changed: list[int] | None,
    counts: Counts,
    narrowed: routes.Narrowed | None,
    thresholds: Thresholds,
    options: Options,
    report: NamespaceReport,
    *,
    judged_apart: set[tuple[str, str]],
    absorbed: dict[int, list[Memory]],
    still_open: list[frozenset[int]],
    cached: Callable[[], dict],
    on_progress,
    vector_workers,
) -> planning.Plan:
    report.route = route.name
    report.memories = len(narrowed.every if narrowed else memories)
    report.changed = len(memories) if changed is None else len(changed)
    judged = pipeline.judge_namespace(
        memories,
        route.vectors,
        changed=changed,
        thresholds=thresholds,
        vector_pairs=None if route.pairs is None else lambda *_: route.pairs,
        on_progress=on_progress,
        workers=vector_workers,
        multi_vectors=multilingual_vectors(namespace, memories, options),
        counts=counts,
        word_pairs=narrowed.word_pairs if narrowed else None,
    )
    llm_verdicts.ask_band(judged, namespace, options, report, cached=cached)

    def absorbed_of(memory_ids: list[int]) -> dict[int, list[Memory]]:
        return {pk: absorbed[pk] for pk in memory_ids if pk in absorbed}

    # The open clusters of earlier runs among the memories read (by position): a new
    # memory's conflict with one member is the others' too.
    at = {memory.pk: k for k, memory in enumerate(judged.memories)}
    earlier = [[at[pk] for pk in ids if pk in at] for ids in still_open]
    plan = planning.group(
        judged,
        judged_pairs=judged_apart,
        absorbed=absorbed_of,
        open_clusters=[members for members in earlier if len(members) > 1],
    )
    plan.audit = llm_verdicts.draw_audit(judged, plan, options, report)
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
        if report.deferred:
            # Done, but not all of it: the rest waits for the next run (--max-ops).
            alert = f"partial: {report.deferred} left for the next run (--max-ops)"
            report.alerts.append(alert)
            logger.warning("DEDUP_ALERT %s in namespace %s", alert, namespace.name)
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
