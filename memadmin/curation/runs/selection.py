"""Which namespaces a run takes (due, changed, a shard of them), the runs it closes
as interrupted, and the advisory locks that keep two runs of one namespace apart."""

from __future__ import annotations

import logging
import zlib
from datetime import datetime, timedelta

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from memadmin.curation.models import DedupRun
from memadmin.store import queries as store_queries
from memadmin.store.models import Memory, MemoryStatus, Namespace

logger = logging.getLogger("memadmin.curation")


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


def lock_key(namespace: Namespace) -> int:
    # A signed 64-bit key per namespace: shards and cron workers on other namespaces
    # never wait for each other.
    return zlib.crc32(f"memadmin.find_duplicates:{namespace.pk}".encode()) - 2**31


def try_locks(namespaces: list[Namespace]) -> list[Namespace]:
    """Take each namespace's advisory lock that is free (one query); returns those held."""
    # Commits stay synchronous: a decision reported as done (DEDUP_MERGE) is on disk.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_try_advisory_lock(key) FROM unnest(%s::bigint[]) WITH ORDINALITY "
            "AS keys(key, position) ORDER BY position",
            [[lock_key(ns) for ns in namespaces]],
        )
        taken = [row[0] for row in cursor.fetchall()]
    return [ns for ns, held in zip(namespaces, taken, strict=True) if held]


def unlock(namespaces: list[Namespace]) -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_unlock(key) FROM unnest(%s::bigint[]) AS key",
                [[lock_key(ns) for ns in namespaces]],
            )
    except (OperationalError, InterfaceError):
        pass  # the session is gone, and its locks with it


def finished_runs(names: list[str], *, since) -> list[tuple[dict[str, int], str | None]]:
    """The counts of every run of these namespaces that finished after `since`, and the
    LLM it used (None: the rules alone): what the queue's workers did for a `--wait`."""
    return list(
        DedupRun.objects.filter(
            namespace__name__in=names, started_at__gte=since, finished_at__isnull=False
        ).values_list("counts", "parameters__llm")
    )
