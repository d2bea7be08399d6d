"""Every write to memories. Each function is atomic and writes its history events;
views, commands and the API call these and nothing else to change a memory."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memadmin.curation.models import HistoryEvent
from memadmin.store import embeddings
from memadmin.store.importing import Record
from memadmin.store.models import Memory, Namespace
from memadmin.store.text import content_hash

# What a history snapshot keeps of a memory: everything a person could change or an
# unmerge must restore. The embedding is not copied: curation never deletes a row, so
# the original vector stays on the original row.
SNAPSHOT_FIELDS = (
    "external_id",
    "content",
    "category",
    "tags",
    "source_ref",
    "session_id",
    "importance",
    "confidence",
    "access_count",
    "created_at",
    "last_accessed_at",
    "valid_from",
    "valid_until",
    "provenance",
    "metadata",
    "pinned",
    "status",
    "superseded_by_id",
    "embedding_model",
)
# Record keys a re-import may change on an existing memory.
IMPORTABLE_FIELDS = (
    "category",
    "tags",
    "source_ref",
    "session_id",
    "importance",
    "confidence",
    "access_count",
    "created_at",
    "last_accessed_at",
    "valid_from",
    "valid_until",
    "provenance",
    "metadata",
    "pinned",
    "status",
)


class DecisionError(Exception):
    """A decision that cannot be applied; nothing was changed."""


def snapshot(memory: Memory) -> dict[str, Any]:
    """A JSON-ready copy of `memory`'s curated fields, for history events."""
    values = {}
    for name in SNAPSHOT_FIELDS:
        value = getattr(memory, name)
        values[name] = value.isoformat() if isinstance(value, datetime) else value
    return values


@dataclass
class ImportResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    embedded: int = 0
    namespaces: set[str] = field(default_factory=set)


def import_records(
    *,
    records: Iterable[Record],
    actor: str,
    embed: bool = True,
    on_progress: Callable[[int], None] | None = None,
) -> ImportResult:
    """Create or update memories from validated records, all in one transaction.

    Side effects: creates missing namespaces; creates memories (with embeddings, unless
    `embed` is false or a vector is given) and an `import` history event for each; updates
    a known (namespace, id) whose content or given fields changed, re-embedding changed
    text, with an `update` event holding before and after. Records equal to what is stored
    change nothing, so importing the same file twice is a no-op. Any failure rolls the
    whole file back.
    """
    result = ImportResult()
    namespaces: dict[str, Namespace] = {}
    supersessions: list[tuple[Record, Memory]] = []
    with transaction.atomic():
        iterator = iter(records)
        while chunk := list(itertools.islice(iterator, settings.IMPORT_CHUNK_SIZE)):
            for record in chunk:
                if record.namespace not in namespaces:
                    namespaces[record.namespace], _ = Namespace.objects.get_or_create(
                        name=record.namespace
                    )
            _import_chunk(chunk, namespaces, actor, embed, result, supersessions)
            if on_progress:
                on_progress(len(chunk))
        _link_supersessions(supersessions, actor)
    result.namespaces = set(namespaces)
    return result


def _import_chunk(
    chunk: list[Record],
    namespaces: dict[str, Namespace],
    actor: str,
    embed: bool,
    result: ImportResult,
    supersessions: list[tuple[Record, Memory]],
) -> None:
    existing = {}
    for name, group in itertools.groupby(
        sorted(chunk, key=lambda r: r.namespace), lambda r: r.namespace
    ):
        ids = [record.external_id for record in group]
        for memory in Memory.objects.filter(namespace=namespaces[name], external_id__in=ids):
            existing[(name, memory.external_id)] = memory

    created: list[Memory] = []
    changed: list[tuple[Memory, dict[str, Any]]] = []
    needs_vector: list[tuple[Memory, Record]] = []
    now = timezone.now()
    for record in chunk:
        memory = existing.get((record.namespace, record.external_id))
        if memory is None:
            memory = _new_memory(record, namespaces[record.namespace], now)
            created.append(memory)
            needs_vector.append((memory, record))
        else:
            before = snapshot(memory)
            if _apply_record(memory, record):
                changed.append((memory, before))
                if before["content"] != memory.content:
                    needs_vector.append((memory, record))
            else:
                result.unchanged += 1
        if record.superseded_by:
            supersessions.append((record, memory))

    result.embedded += _set_vectors(needs_vector, embed)
    Memory.objects.bulk_create(created)
    if changed:
        for memory, _ in changed:
            memory.updated_at = now  # bulk_update does not apply auto_now
        Memory.objects.bulk_update(
            [memory for memory, _ in changed],
            [
                "content",
                "content_hash",
                "embedding",
                "embedding_model",
                "updated_at",
                *IMPORTABLE_FIELDS,
            ],
        )
    HistoryEvent.objects.bulk_create(
        [
            HistoryEvent(
                namespace=memory.namespace,
                memory=memory,
                action=HistoryEvent.Action.IMPORT,
                actor=actor,
                after=snapshot(memory),
                reason="imported",
            )
            for memory in created
        ]
        + [
            HistoryEvent(
                namespace=memory.namespace,
                memory=memory,
                action=HistoryEvent.Action.UPDATE,
                actor=actor,
                before=before,
                after=snapshot(memory),
                reason="re-imported with changes",
            )
            for memory, before in changed
        ]
    )
    result.created += len(created)
    result.updated += len(changed)


def _new_memory(record: Record, namespace: Namespace, now: datetime) -> Memory:
    memory = Memory(
        namespace=namespace,
        external_id=record.external_id,
        content=record.content,
        content_hash=content_hash(record.content),
        created_at=now,
    )
    for name in IMPORTABLE_FIELDS:
        if name in record.fields:
            setattr(memory, name, record.fields[name])
    if "provenance" not in record.fields:
        # A memory's provenance starts with its own origin; collapsed duplicates add theirs.
        memory.provenance = [_origin(memory)]
    return memory


def _origin(memory: Memory) -> dict[str, Any]:
    return {
        "external_id": memory.external_id,
        "session_id": memory.session_id,
        "source_ref": memory.source_ref,
        "seen_at": memory.created_at.isoformat(),
    }


def _apply_record(memory: Memory, record: Record) -> bool:
    """Copy the record's content and given fields onto `memory`; whether anything changed."""
    changed = False
    if memory.content != record.content:
        memory.content = record.content
        memory.content_hash = content_hash(record.content)
        memory.embedding = None
        changed = True
    for name in IMPORTABLE_FIELDS:
        if name in record.fields and getattr(memory, name) != record.fields[name]:
            setattr(memory, name, record.fields[name])
            changed = True
    return changed


def _set_vectors(pairs: list[tuple[Memory, Record]], embed: bool) -> int:
    """Give each memory the record's vector (normalised) or the model's; count embedded."""
    to_encode = []
    for memory, record in pairs:
        if record.embedding is not None:
            vector = np.asarray(record.embedding, dtype=np.float32)
            memory.embedding = vector / np.linalg.norm(vector)
            memory.embedding_model = record.fields.get("embedding_model", embeddings.MODEL_ID)
        elif embed:
            to_encode.append(memory)
        else:
            memory.embedding, memory.embedding_model = None, ""
    if to_encode:
        vectors = embeddings.encode([memory.content for memory in to_encode])
        for memory, vector in zip(to_encode, vectors, strict=True):
            memory.embedding, memory.embedding_model = vector, embeddings.MODEL_ID
    return len(to_encode)


def _link_supersessions(supersessions: list[tuple[Record, Memory]], actor: str) -> None:
    for record, memory in supersessions:
        target = Memory.objects.filter(
            namespace=memory.namespace, external_id=record.superseded_by
        ).first()
        if target is None:
            raise DecisionError(
                f"line {record.line}: superseded_by {record.superseded_by!r} is not a known id"
            )
        if memory.superseded_by_id != target.pk:
            Memory.objects.filter(pk=memory.pk).update(superseded_by=target)


def store_embeddings(*, memories: Sequence[Memory], vectors: np.ndarray, actor: str) -> int:
    """Save freshly computed vectors (and the model id) on `memories`.

    Side effects: updates embedding and embedding_model only, and writes one `embed`
    history event per namespace touched. A vector is derived data (recomputable from the
    content), so it gets no per-memory event.
    """
    now = timezone.now()
    with transaction.atomic():
        for memory, vector in zip(memories, vectors, strict=True):
            memory.embedding, memory.embedding_model = vector, embeddings.MODEL_ID
            # A new vector is a change detection must see (bulk_update skips auto_now).
            memory.updated_at = now
        Memory.objects.bulk_update(memories, ["embedding", "embedding_model", "updated_at"])
        counts: dict[int, int] = {}
        for memory in memories:
            counts[memory.namespace_id] = counts.get(memory.namespace_id, 0) + 1
        HistoryEvent.objects.bulk_create(
            HistoryEvent(
                namespace_id=namespace_id,
                action=HistoryEvent.Action.EMBED,
                actor=actor,
                after={"count": count, "model": embeddings.MODEL_ID},
                reason="embedded memories without a vector of the current model",
            )
            for namespace_id, count in counts.items()
        )
    return len(memories)
