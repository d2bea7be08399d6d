"""What every decision shares: the errors it refuses with, the row locks it takes, and the
history event it writes (with a snapshot of the memory before and after)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from functools import cache, partial
from typing import Any, TypeVar

import orjson
import psycopg
from django.db import connection, models, router
from django.db.models.base import ModelState
from django.utils import timezone

from memadmin.curation.models import Cluster, ClusterStatus, HistoryEvent
from memadmin.store import validation
from memadmin.store.importing import IMPORTABLE_FIELDS
from memadmin.store.models import Memory, MemoryStatus
from memadmin.store.queries import locked_memories

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


class InvalidText(DecisionError):
    """The text a person wrote cannot be stored (blank, unreadable, too long): nothing to
    do with what anyone else decided; the page keeps the text in its box."""


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
    return unsaved(
        HistoryEvent,
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


def undo_event(memory: Memory, before: dict, undone: HistoryEvent, *, actor, user, reason):
    """The `unmerge` event of one memory, unsaved (undos insert many at once); its cluster
    by id (the undone event's cluster is not read again)."""
    return event(
        memory,
        HistoryEvent.Action.UNMERGE,
        actor=actor,
        user=user,
        before=before,
        reason=reason,
        cluster_id=undone.cluster_id,
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
    in_namespace = Memory.objects.filter(namespace_id=namespace_id)
    # The first few candidates looked up by the unique index (a prefix scan reads the
    # whole namespace: a cluster merged, undone and merged again takes `base`).
    candidates = [base, *(f"{base}-{number}" for number in range(2, 21))]
    taken = set(
        in_namespace.filter(external_id__in=candidates).values_list("external_id", flat=True)
    )
    if len(taken) == len(candidates):
        taken = set(
            in_namespace.filter(external_id__startswith=base).values_list("external_id", flat=True)
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
        raise InvalidText(str(problem)) from None


def lock_active(ids: Sequence[int]) -> dict[int, Memory]:
    """Lock the memories (FOR UPDATE) and check that each is still active. The vector is
    not read: no decision changes it."""
    memories = locked_memories(ids)
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
    # Its namespace read with it (a merge's new memory notes its language there), the
    # namespace's row not locked.
    locked = (
        Cluster.objects.select_for_update(of=("self",))
        .select_related("namespace")
        .get(pk=cluster.pk)
    )
    refuse_if_decided(locked)
    return locked


def refuse_if_decided(cluster: Cluster) -> None:
    """Refuse a decision on a cluster someone decided first, saying who and when."""
    if cluster.status != ClusterStatus.OPEN:
        raise StaleDecision(decided_in_words(cluster))


# How each way a cluster closes reads after its decider's name.
_CLUSTER_VERBS = {
    ClusterStatus.ACCEPTED: "accepted",
    ClusterStatus.DISMISSED: "dismissed",
    ClusterStatus.SPLIT: "split",
    ClusterStatus.UNMERGED: "undid the merge of",
    ClusterStatus.AUTO_MERGED: "merged automatically",
}


def at_time(moment) -> str:
    """When, as a reviewer reads it: "at 10:42" today, "on 2026-11-26 at 10:42" before."""
    if moment is None:
        return "at an unknown time"
    local = timezone.localtime(moment)
    if local.date() == timezone.localdate():
        return f"at {local:%H:%M}"
    return f"on {local:%Y-%m-%d} at {local:%H:%M}"


def decided_in_words(cluster: Cluster) -> str:
    """Who decided a cluster that is no longer open, and when: "carla accepted this cluster
    at 10:42"; a cluster another decision overtook says which ("kit-1 was merged into m
    by carla at ...")."""
    if cluster.status == ClusterStatus.OVERTAKEN:
        notes = cluster.memberships.exclude(taken_note="").values_list("taken_note", flat=True)
        return "another decision took this cluster's members: " + "; ".join(notes)
    verb = _CLUSTER_VERBS.get(cluster.status, str(cluster.status))
    who = _decider(cluster)
    return f"{who} {verb} this cluster {at_time(cluster.decided_at or cluster.updated_at)}"


def _decider(cluster: Cluster) -> str:
    """The person who decided the cluster; else the actor of its last decision (the
    command, or an agent's token)."""
    if cluster.decided_by_id:
        return cluster.decided_by.get_username()
    event = (
        HistoryEvent.objects.filter(cluster=cluster)
        .exclude(action=HistoryEvent.Action.OVERTAKE)
        .order_by("-id")
        .values_list("actor", flat=True)
        .first()
    )
    return event or "find_duplicates"


def update_rows(rows: Sequence[models.Model], fields: Sequence[str], *, batch_size=1000) -> None:
    """Write `fields` of many rows of one model, one UPDATE ... FROM (VALUES ...) per
    `batch_size` rows, the values sent apart from the statement (no quoting). Django's
    bulk_update builds a CASE expression per field and row: it took most of a batch
    run's time (bench/find_duplicates.py, scenario b)."""
    if not rows:
        return
    meta = type(rows[0])._meta
    key, columns = meta.pk, [meta.get_field(name) for name in fields]
    every = [key, *columns]
    # Each value cast to its column's type: VALUES would otherwise guess from the first row.
    row_sql = "(" + ", ".join(f"%s::{field.db_type(connection)}" for field in every) + ")"
    assignments = ", ".join(f'"{field.column}" = v."{field.column}"' for field in columns)
    names = ", ".join(f'"{field.column}"' for field in every)
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
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


def insert_rows(rows: Sequence[models.Model]) -> None:
    """Insert new rows of one model with COPY, each given its primary key from the
    table's sequence first (so that rows inserted next can point at it). Django's
    bulk_create quotes every value into the statement; for the history events, clusters
    and members of a batch run that was most of the writing time. Side effects: sets
    each row's pk, and marks it saved."""
    if not rows:
        return
    meta = type(rows[0])._meta
    fields = meta.concrete_fields
    values = [_copy_value(field) for field in fields]
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        # The sequence looked up once, not for every row (2.7 µs a key, this 0.4).
        cursor.execute(
            "WITH s AS MATERIALIZED (SELECT pg_get_serial_sequence(%s, %s)::regclass AS seq) "
            "SELECT nextval(seq) FROM s, generate_series(1, %s)",
            [meta.db_table, meta.pk.column, len(rows)],
        )
        for row, (key,) in zip(rows, cursor.fetchall(), strict=True):
            row.pk = key
        columns = ", ".join(f'"{field.column}"' for field in fields)
        with cursor.copy(f'COPY "{meta.db_table}" ({columns}) FROM STDIN') as copy:
            for row in rows:
                copy.write_row([value(row) for value in values])
    for row in rows:
        row._state.adding, row._state.db = False, connection.alias


Row = TypeVar("Row", bound=models.Model)


def unsaved(model: type[Row], **values) -> Row:
    """`model(**values)` as Django's __init__ leaves it: the fields given (a related
    object by its field's name: kept in the instance's cache, its key copied), every other
    field its default. Without __init__'s keyword handling and signals: a batch run makes
    a history event, a cluster or a membership for each memory it folds (about 280 rows a
    namespace of 1,000), and __init__ took 5-13 µs of each, this 1-3."""
    concrete, relations = _fields_of(model)
    row = model.__new__(model)
    row._state = ModelState()
    attributes = row.__dict__
    for name, value in values.items():
        relation = relations.get(name)
        if relation is not None:
            relation.set_cached_value(row, value)
            if value is not None and row._state.db is None:  # as the related descriptor does
                row._state.db = router.db_for_write(model, instance=value)
            name, value = relation.attname, None if value is None else value.pk
        elif name not in concrete:
            raise TypeError(f"{model.__name__} has no field {name!r}")
        attributes[name] = value
    for attname, field in concrete.items():
        if attname not in attributes:
            attributes[attname] = field.get_default()
    return row


@cache
def _fields_of(model: type[models.Model]) -> tuple[dict[str, models.Field], dict]:
    """A model's concrete fields by attribute name, and its foreign keys by field name."""
    concrete = {field.attname: field for field in model._meta.concrete_fields}
    relations = {field.name: field for field in concrete.values() if field.many_to_one}
    return concrete, relations


def _json_text(value) -> str:
    """`value` as JSON text, by orjson (0.5 µs for a snapshot, json.dumps 4.7: a batch run
    writes two snapshots per fold); json.dumps for what orjson refuses (an integer past 64
    bits), which PostgreSQL's jsonb takes."""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value)


def _copy_value(field: models.Field):
    """How COPY reads a field of a row: JSON adapted, automatic times set, any other value
    as it is (psycopg writes strings, numbers, times and lists itself). Django's own
    get_db_prep_save for every field cost more than the COPY (measured in
    bench/find_duplicates.py --profile)."""
    if isinstance(field, models.JSONField):
        # The JSON text itself: COPY's text form takes it as it is, without psycopg's JSON
        # dumper called per value.
        dumps = _json_text if field.encoder is None else partial(json.dumps, cls=field.encoder)

        def json_value(row):
            value = getattr(row, field.attname)
            if value is None:  # SQL NULL or JSON null, as Django decides for the field
                return field.get_db_prep_save(value, connection)
            return dumps(value)

        return json_value
    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        return lambda row: field.pre_save(row, add=True)
    if field.many_to_one:

        def key_value(row):
            # A row made before what it points at was inserted (an event of a new
            # cluster) holds the object, not yet its key: as Django's bulk_create does.
            value = getattr(row, field.attname)
            if value is None and field.is_cached(row):
                target = field.get_cached_value(row)
                value = None if target is None else target.pk
                setattr(row, field.attname, value)
            return value

        return key_value
    return lambda row: getattr(row, field.attname)
