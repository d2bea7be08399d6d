"""What every decision shares: the errors it refuses with, the row locks it takes, and the
history event it writes (with a snapshot of the memory before and after)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import connection, models

from memadmin.curation.models import Cluster, ClusterStatus, HistoryEvent
from memadmin.store import validation
from memadmin.store.importing import IMPORTABLE_FIELDS
from memadmin.store.models import Memory, MemoryStatus

# What a history snapshot keeps of a memory: everything a person could change or an
# unmerge must restore. The embedding is not copied: curation never deletes a row, so
# the original vector stays on the original row.
SNAPSHOT_FIELDS = (
    "external_id",
    "content",
    *IMPORTABLE_FIELDS,
    "superseded_by_id",
    "embedding_model",
)


class DecisionError(Exception):
    """A decision that cannot be applied; nothing was changed."""


class StaleDecision(DecisionError):
    """Someone decided first, or the members changed since the proposal was written."""


def actor_of(user) -> str:
    return f"user:{user.get_username()}"


def snapshot(memory: Memory) -> dict[str, Any]:
    """A JSON-ready copy of `memory`'s curated fields, for history events."""
    values = {}
    for name in SNAPSHOT_FIELDS:
        value = getattr(memory, name)
        values[name] = value.isoformat() if isinstance(value, datetime) else value
    return values


def event(
    memory: Memory, action: str, *, actor: str, reason: str, before=None, user=None, **links
) -> HistoryEvent:
    """One history event for one memory (unsaved: bulk paths insert many at once), its
    after-snapshot taken now."""
    return HistoryEvent(
        namespace_id=memory.namespace_id,
        memory=memory,
        action=action,
        actor=actor,
        user=user,
        before=before,
        after=snapshot(memory),
        reason=reason,
        **links,
    )


def log(memory: Memory, action: str, **fields) -> HistoryEvent:
    """Write one history event (see event)."""
    written = event(memory, action, **fields)
    written.save()
    return written


def change(
    memory: Memory, action: str, *, actor: str, reason: str, user=None, links=None, **changes
) -> Memory:
    """Set `changes` on one memory, its row locked, and write its history event (before
    and after; `links` are the event's cluster, conflict...). Returns the memory as saved."""
    memory = lock_memory(memory)
    before = snapshot(memory)
    for name, value in changes.items():
        setattr(memory, name, value)
    memory.save(update_fields=[*changes, "updated_at"])
    log(memory, action, actor=actor, user=user, before=before, reason=reason, **(links or {}))
    return memory


def log_undo(memory: Memory, before: dict, undone: HistoryEvent, *, actor, user, reason) -> None:
    """The `unmerge` event of one memory, pointing at the event it undoes."""
    log(
        memory,
        HistoryEvent.Action.UNMERGE,
        actor=actor,
        user=user,
        before=before,
        reason=reason,
        cluster=undone.cluster,
        undoes=undone,
    )


def log_cluster_decision(cluster: Cluster, action: str, user, reason: str, memory=None) -> None:
    """A decision about a cluster that changes no memory still goes in the log."""
    HistoryEvent.objects.create(
        namespace_id=cluster.namespace_id,
        memory=memory,
        action=action,
        actor=actor_of(user),
        user=user,
        reason=reason,
        cluster=cluster,
        related_memory_ids=list(
            cluster.memberships.values_list("memory_id", flat=True).order_by("memory_id")
        ),
    )


def unused_external_id(namespace_id: int, base: str) -> str:
    """An id for a memory memadmin makes (merged-..., rewritten-...): `base`, or `base-2`,
    `base-3`... when an imported memory already holds it (an export of another store
    carries the ids that store made). Agents cannot send these prefixes (api.validation)."""
    taken = set(
        Memory.objects.filter(namespace_id=namespace_id, external_id__startswith=base).values_list(
            "external_id", flat=True
        )
    )
    candidate, number = base, 1
    while candidate in taken:
        number += 1
        candidate = f"{base}-{number}"
    return candidate


def merged_text(text: str) -> str:
    """A merged or rewritten text as it will be stored: refused (DecisionError) when it
    is empty, unreadable or over the content limit, like any memory's text."""
    try:
        return validation.content(text.strip(), "the merged text")
    except validation.Invalid as problem:
        raise DecisionError(str(problem)) from None


def lock_active(ids: Sequence[int]) -> dict[int, Memory]:
    """Lock the memories (FOR UPDATE) and check that each is still active. The vector is
    not read: no decision changes it."""
    memories = {
        m.pk: m
        for m in Memory.objects.select_for_update()
        .defer("embedding", "embedding_multi")
        .filter(pk__in=ids)
    }
    inactive = [m.external_id for m in memories.values() if m.status != MemoryStatus.ACTIVE]
    if inactive or len(memories) != len(set(ids)):
        raise DecisionError(f"no longer active: {', '.join(sorted(inactive)) or 'missing rows'}")
    return memories


def lock_memory(memory: Memory) -> Memory:
    """The memory's row, locked (FOR UPDATE), as it is now."""
    return (
        Memory.objects.select_for_update().defer("embedding", "embedding_multi").get(pk=memory.pk)
    )


def lock_open_cluster(cluster: Cluster) -> Cluster:
    """The cluster's row, locked; refused (StaleDecision, saying who and when) when
    someone decided it first."""
    locked = Cluster.objects.select_for_update().get(pk=cluster.pk)
    refuse_if_decided(locked)
    return locked


def refuse_if_decided(cluster: Cluster) -> None:
    if cluster.status != ClusterStatus.OPEN:
        who = cluster.decided_by.get_username() if cluster.decided_by else "a command"
        when = cluster.decided_at.strftime("%Y-%m-%d %H:%M") if cluster.decided_at else "?"
        raise StaleDecision(f"this cluster was already {cluster.status} by {who} at {when}")


def update_rows(rows: Sequence[models.Model], fields: Sequence[str], *, batch_size=1000) -> None:
    """Write `fields` of many rows of one model, one UPDATE ... FROM (VALUES ...) per
    `batch_size` rows. Django's bulk_update builds a CASE expression per field and row: it
    took most of a batch run's time (bench/find_duplicates.py, scenario b)."""
    if not rows:
        return
    meta = type(rows[0])._meta
    key, columns = meta.pk, [meta.get_field(name) for name in fields]
    every = [key, *columns]
    # Each value cast to its column's type: VALUES would otherwise guess from the first row.
    row_sql = "(" + ", ".join(f"%s::{field.db_type(connection)}" for field in every) + ")"
    assignments = ", ".join(f'"{field.column}" = v."{field.column}"' for field in columns)
    names = ", ".join(f'"{field.column}"' for field in every)
    with connection.cursor() as cursor:
        for start in range(0, len(rows), batch_size):
            chunk = rows[start : start + batch_size]
            cursor.execute(
                f'UPDATE "{meta.db_table}" AS t SET {assignments} '
                f"FROM (VALUES {', '.join([row_sql] * len(chunk))}) AS v({names}) "
                f'WHERE t."{key.column}" = v."{key.column}"',
                [
                    field.get_db_prep_save(getattr(row, field.attname), connection)
                    for row in chunk
                    for field in every
                ],
            )
