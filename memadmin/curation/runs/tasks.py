"""find_duplicates as jobs on the procrastinate queue, in the same PostgreSQL: a batch of
namespaces (as `many.batches` forms them) is one job; workers started with
`python manage.py procrastinate worker --queues dedup` on any machine that reaches the
database take them. A job does exactly what the in-process run does for its batch
(`batch.run_batch`): the namespaces' advisory locks and DedupRuns make a retry after a
killed worker do each change once (the dead attempt's transaction never committed; its
DedupRuns are closed as interrupted by the retry).

Jobs are found again by their task name and arguments in procrastinate's own table; no
table of ours mirrors them."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import timedelta
from functools import partial

import procrastinate
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from procrastinate.contrib.django import app

from memadmin.curation.llm import client as llm
from memadmin.curation.models import DedupRun, LlmAllowance
from memadmin.curation.runs import worker
from memadmin.curation.runs.batch import run_batch
from memadmin.curation.runs.many import batches
from memadmin.curation.runs.options import Options
from memadmin.curation.runs.selection import namespaces_to_run
from memadmin.store import queries as store_queries
from memadmin.store.models import Namespace

logger = logging.getLogger("memadmin.curation")

BATCH_TASK = "memadmin.dedup_batch"
# Held (transaction-level) while a planner reads which namespaces are queued and defers
# its batches: two `--enqueue` at once never queue one namespace twice.
PLANNING_LOCK = 0x6D656D61  # "mema"


class BatchNotDone(Exception):
    """A batch some of whose namespaces failed, or were held by another run: procrastinate
    tries it again (DEDUP_TASK_RETRIES), then leaves it failed with this message."""


def _retry() -> procrastinate.RetryStrategy | bool:
    # procrastinate reads max_attempts=0 as "retry for ever": no retries is `False`.
    retries = settings.DEDUP_TASK_RETRIES
    return procrastinate.RetryStrategy(max_attempts=retries, wait=5) if retries else False


def options_as_arguments(options: Options, *, no_llm: bool) -> dict:
    """A run's options as a job's JSON arguments (the LLM session is made by the worker)."""
    return {
        "dry_run": options.dry_run,
        "max_ops": options.max_ops,
        "full": options.full,
        "since_seconds": options.since.total_seconds() if options.since else None,
        "no_llm": no_llm,
    }


def options_from_arguments(arguments: dict) -> Options:
    since = arguments.get("since_seconds")
    session = None
    if llm.configured() and not arguments.get("no_llm"):
        allowance = arguments.get("llm_allowance")
        # A job queued before allowances existed has none: its batch keeps a cap of its own.
        shared = None if allowance is None else partial(take_llm_calls, allowance)
        session = llm.Session(shared_cap=shared)
    return Options(
        dry_run=arguments.get("dry_run", False),
        max_ops=arguments.get("max_ops", settings.DEDUP_MAX_OPS),
        full=arguments.get("full", False),
        since=timedelta(seconds=since) if since else None,
        llm_session=session,
    )


def take_llm_calls(allowance_id: int, wanted: int = 1) -> int:
    """Take up to `wanted` LLM calls from a queued run's allowance; how many were taken
    (0 when none is left). One statement, so that workers taking calls at the same moment
    never take more than the cap together (the row is locked while it is read and
    written). The batch's detection runs outside a transaction: the row is not held
    beyond this statement."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            WITH before AS (
                SELECT id, calls FROM curation_llmallowance WHERE id = %s FOR UPDATE
            )
            UPDATE curation_llmallowance AS allowance
            SET calls = LEAST(allowance.max_calls, before.calls + %s)
            FROM before WHERE allowance.id = before.id
            RETURNING allowance.calls - before.calls
            """,
            [allowance_id, wanted],
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


@app.task(name=BATCH_TASK, queue=settings.DEDUP_QUEUE, retry=_retry())
def dedup_batch(namespace_ids: list[int], options: dict) -> dict:
    """One batch of namespaces, as find_duplicates runs it in-process. Raises BatchNotDone
    (so the job is tried again, then left failed) when a namespace failed or another run
    held it; the others are done and stay done (a retry finds nothing new in them)."""
    worker.prepare()
    outcomes = run_batch(namespace_ids, options_from_arguments(options), vector_workers=1)
    problems = [
        f"{outcome.namespace}: {outcome.failed or outcome.locked}"
        for outcome in outcomes
        if outcome.failed or outcome.locked
    ]
    if problems:
        raise BatchNotDone("; ".join(problems))
    return {"namespaces": [outcome.namespace for outcome in outcomes]}


@app.periodic(cron="* * * * *", periodic_id="recover-stalled")
@app.task(name="memadmin.recover_stalled", queue=settings.DEDUP_QUEUE, queueing_lock="recover")
async def recover_stalled_task(timestamp: int) -> int:
    """Every minute, on the workers: procrastinate's stalled-job recovery for batches."""
    return await _recover_stalled()


async def _recover_stalled() -> int:
    manager = app.job_manager
    stalled = await manager.get_stalled_jobs(
        task_name=BATCH_TASK, seconds_since_heartbeat=settings.DEDUP_STALLED_SECONDS
    )
    for job in stalled:
        await manager.retry_job(job)
        logger.warning("DEDUP_FAIL batch job %s stalled (its worker is gone): queued again", job.id)
    return len(stalled)


def recover_stalled() -> int:
    """Queue again every batch whose worker sent no heartbeat for DEDUP_STALLED_SECONDS
    (killed, its machine gone); `find_duplicates --wait` calls it too. Returns how many."""
    from asgiref.sync import async_to_sync

    return async_to_sync(_recover_stalled)()


def queue_due_namespaces() -> int:
    """What MEMADMIN_DEDUP_SCHEDULE does in place of a cron line
    (`find_duplicates --if-due --enqueue`): the due namespaces queued. Returns the batches."""
    due = namespaces_to_run(name=None, if_due=True, shard=None, now=timezone.now())
    planned = enqueue(due, Options(), no_llm=False)
    return len(planned.queued)


if settings.DEDUP_SCHEDULE:

    @app.periodic(cron=settings.DEDUP_SCHEDULE, periodic_id="scheduled-run")
    @app.task(name="memadmin.scheduled_run", queue=settings.DEDUP_QUEUE, queueing_lock="plan")
    def scheduled_run(timestamp: int) -> int:
        return queue_due_namespaces()


@dataclass
class Planned:
    """What --enqueue did: the batches queued (job id, namespace names) and the namespaces
    left out because a queued or running batch holds them already."""

    queued: list[tuple[int, list[str]]]
    already: list[str]


def enqueue(namespaces: list[Namespace], options: Options, *, no_llm: bool) -> Planned:
    """Defer the namespaces in batches, leaving out every namespace a queued or running
    batch holds (one namespace is never queued twice). Side effects: the jobs, and unless
    `no_llm` the LlmAllowance their batches share."""
    arguments = options_as_arguments(options, no_llm=no_llm)
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [PLANNING_LOCK])
        held = held_namespace_ids()
        free = [ns for ns in namespaces if ns.pk not in held]
        names = {ns.pk: ns.name for ns in free}
        sizes = store_queries.active_counts([ns.pk for ns in free])
        to_queue = batches(free, sizes, options)
        forget_spent_allowances()
        if to_queue and not no_llm:
            # The run's LLM calls, shared by its batches on every worker (LlmAllowance).
            allowance = LlmAllowance.objects.create(max_calls=settings.LLM_MAX_CALLS_PER_RUN)
            arguments["llm_allowance"] = allowance.pk
        queued = []
        for batch in to_queue:
            job_id = dedup_batch.defer(namespace_ids=batch, options=arguments)
            queued.append((job_id, [names[pk] for pk in batch]))
    return Planned(queued=queued, already=[ns.name for ns in namespaces if ns.pk in held])


def forget_spent_allowances() -> int:
    """Delete the LLM allowances no job can draw from any more: every batch of their run
    has ended well (a failed one may be retried by hand, and keeps its run's). An
    allowance and its jobs are committed together, so none is seen before its jobs."""
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM curation_llmallowance AS allowance WHERE NOT EXISTS ("
            "SELECT 1 FROM procrastinate_jobs WHERE task_name = %s "
            "AND status IN ('todo', 'doing', 'failed') "
            "AND (args -> 'options' ->> 'llm_allowance')::bigint = allowance.id)",
            [BATCH_TASK],
        )
        return cursor.rowcount


def held_namespace_ids() -> set[int]:
    """The namespaces of every batch queued or running now."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT jsonb_array_elements_text(args -> 'namespace_ids')::bigint "
            "FROM procrastinate_jobs WHERE task_name = %s AND status IN ('todo', 'doing')",
            [BATCH_TASK],
        )
        return {pk for (pk,) in cursor.fetchall()}


def live_workers() -> int:
    """procrastinate workers whose heartbeat is recent (DEDUP_STALLED_SECONDS: what the
    stalled-job recovery counts as alive); a worker that stopped cleanly is gone."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM procrastinate_workers "
            "WHERE last_heartbeat > now() - make_interval(secs => %s)",
            [settings.DEDUP_STALLED_SECONDS],
        )
        return cursor.fetchone()[0]


@dataclass
class BatchState:
    job_id: int
    status: str  # todo (queued), doing (running), failed, succeeded, cancelled, aborted
    namespaces: list[str]
    attempts: int
    errors: list[str]  # for a failed batch: each failed namespace's last error


def batch_states(job_ids: list[int] | None = None, statuses=("todo", "doing", "failed")):
    """The batches on the queue (those of `job_ids`, or every one in `statuses`), oldest
    first, with their namespaces and, when failed, why (each namespace's last failed run)."""
    query = (
        "SELECT id, status, args -> 'namespace_ids', attempts FROM procrastinate_jobs "
        "WHERE task_name = %s"
    )
    values: list = [BATCH_TASK]
    if job_ids is not None:
        query += " AND id = ANY(%s)"
        values.append(list(job_ids))
    else:
        query += " AND status = ANY(%s)"
        values.append(list(statuses))
    with connection.cursor() as cursor:
        cursor.execute(query + " ORDER BY id", values)
        # Django's cursor hands jsonb over as text.
        rows = [(job, status, json.loads(ids), tries) for job, status, ids, tries in cursor]
    ids = {pk for _, _, batch, _ in rows for pk in batch}
    names = dict(Namespace.objects.filter(pk__in=ids).values_list("pk", "name"))
    failed = {pk for _, status, batch, _ in rows if status == "failed" for pk in batch}
    # Each namespace's last failed run (in id order, the newest is kept).
    errors = dict(
        DedupRun.objects.filter(namespace_id__in=failed, status="failed")
        .order_by("id")
        .values_list("namespace_id", "error")
    )
    return [
        BatchState(
            job_id=job_id,
            status=status,
            namespaces=[names.get(pk, f"#{pk}") for pk in batch],
            attempts=attempts,
            errors=[
                f"{names.get(pk, pk)}: {errors[pk]}"
                for pk in batch
                if status == "failed" and pk in errors
            ],
        )
        for job_id, status, batch, attempts in rows
    ]
