"""Writes to single memories that are not curation of duplicates: import, vectors, time
decay, pinning, and storing an agent's write (or its exact repeat)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from memadmin.curation.decisions import overlaps
from memadmin.curation.decisions.history import (
    DecisionError,
    actor_of,
    change,
    event,
    lock_memory,
    log,
    snapshot,
)
from memadmin.curation.models import HistoryEvent
from memadmin.store import embeddings, multilingual
from memadmin.store import queries as store_queries
from memadmin.store.importing import IMPORTABLE_FIELDS, Record
from memadmin.store.lexicon import language_of
from memadmin.store.models import Memory, MemoryStatus, Namespace
from memadmin.store.text import content_hash


@dataclass
class ImportResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    embedded: int = 0
    # Memories curation had made inactive whose status the file would have changed back.
    kept_curated: int = 0
    namespaces: set[str] = field(default_factory=set)
    # Memories the file made inactive (their open conflicts and clusters follow).
    retired_ids: list[int] = field(default_factory=list)


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
            for name, group in itertools.groupby(
                sorted(chunk, key=lambda r: r.namespace), lambda r: r.namespace
            ):
                note_languages(namespaces[name], [record.content for record in group])
            _import_chunk(chunk, namespaces, actor, embed, result, supersessions)
            if on_progress:
                on_progress(len(chunk))
        _link_supersessions(supersessions, actor)
        # A file that retires a memory (its status, superseded_by) moves what held it.
        overlaps.follow(
            [m.pk for _, m in supersessions if m.status != MemoryStatus.ACTIVE]
            + result.retired_ids,
            actor=actor,
        )
        if embed:
            # Memories stored before their namespace turned multilingual get the vector.
            for namespace in namespaces.values():
                if namespace.multilingual:
                    result.embedded += embed_multilingual(namespace, actor=actor)
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
        found = Memory.objects.filter(namespace=namespaces[name], external_id__in=ids)
        for memory in found.select_related("superseded_by").defer(
            "superseded_by__embedding", "superseded_by__embedding_multi"
        ):
            existing[(name, memory.external_id)] = memory

    created: list[Memory] = []
    changed: list[tuple[Memory, dict[str, Any]]] = []
    needs_vector: list[tuple[Memory, Record]] = []
    now = timezone.now()
    for record in chunk:
        memory = existing.get((record.namespace, record.external_id))
        if memory is None:
            memory = new_memory(record, namespaces[record.namespace], now)
            created.append(memory)
            needs_vector.append((memory, record))
        else:
            before = snapshot(memory)
            curated = memory.status != MemoryStatus.ACTIVE
            if curated and _would_change_status(memory, record):
                result.kept_curated += 1
            if _apply_record(memory, record, keep_status=curated):
                changed.append((memory, before))
                if memory.status != MemoryStatus.ACTIVE and not curated:
                    result.retired_ids.append(memory.pk)
                if before["content"] != memory.content:
                    needs_vector.append((memory, record))
            else:
                result.unchanged += 1
            if curated:
                continue  # curation's superseded_by stays too
        if record.superseded_by:
            supersessions.append((record, memory))

    result.embedded += _set_vectors(needs_vector, embed, namespaces)
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
                "embedding_multi",
                "embedding_multi_model",
                "updated_at",
                *IMPORTABLE_FIELDS,
            ],
        )
    HistoryEvent.objects.bulk_create(
        [event(m, HistoryEvent.Action.IMPORT, actor=actor, reason="imported") for m in created]
        + [
            event(
                m,
                HistoryEvent.Action.UPDATE,
                actor=actor,
                before=before,
                reason="re-imported with changes",
            )
            for m, before in changed
        ]
    )
    result.created += len(created)
    result.updated += len(changed)


def new_memory(record: Record, namespace: Namespace, now: datetime) -> Memory:
    """An unsaved memory from a record (its provenance starts with its own origin)."""
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


def _would_change_status(memory: Memory, record: Record) -> bool:
    target = memory.superseded_by.external_id if memory.superseded_by_id else None
    return record.fields.get("status", memory.status) != memory.status or (
        record.superseded_by not in (None, target)
    )


def _apply_record(memory: Memory, record: Record, *, keep_status: bool = False) -> bool:
    """Copy the record's content and given fields onto `memory`; whether anything changed.

    A file never reverses curation (`keep_status`): a memory curation merged, superseded
    or retired keeps its status and superseded_by whatever an older export says (its other
    fields still apply), so importing a backup over a curated store brings nothing back
    to life and breaks no constraint; the history page undoes a decision."""
    changed = False
    if memory.content != record.content:
        memory.content = record.content
        memory.content_hash = content_hash(record.content)
        memory.embedding = memory.embedding_multi = None
        memory.embedding_multi_model = ""
        changed = True
    for name in IMPORTABLE_FIELDS:
        if keep_status and name == "status":
            continue
        if name in record.fields and getattr(memory, name) != record.fields[name]:
            setattr(memory, name, record.fields[name])
            changed = True
    return changed


def _set_vectors(
    pairs: list[tuple[Memory, Record]], embed: bool, namespaces: dict[str, Namespace]
) -> int:
    """Give each memory the record's vector (normalised) or the model's, and the
    multilingual model's where it is wanted (a multilingual namespace, a short memory:
    store.multilingual.wanted); count the memories embedded."""
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
    multi = [
        memory
        for memory, record in pairs
        if embed and multilingual.wanted(memory.content, namespaces[record.namespace].multilingual)
    ]
    if multi:
        vectors = multilingual.encode([memory.content for memory in multi])
        for memory, vector in zip(multi, vectors, strict=True):
            memory.embedding_multi, memory.embedding_multi_model = vector, multilingual.MODEL_ID
    return len(to_encode)


def embed_text(memory: Memory, *, among: Sequence[Memory] = ()) -> None:
    """Vectors for a memory's new text (a merge's): MiniLM's, and the multilingual
    model's where it is wanted. Sets them on the unsaved memory. A memory of `among`
    with the same text and vectors of the models in use gives its own (a merge of exact
    copies encodes nothing)."""
    if _vectors_of_a_copy(memory, among):
        return
    memory.embedding = embeddings.encode([memory.content])[0]
    memory.embedding_model = embeddings.MODEL_ID
    # Every text written notes its language, so detection never has to read them all.
    if multilingual.wanted(memory.content, note_languages(memory.namespace, [memory.content])):
        memory.embedding_multi = multilingual.encode([memory.content])[0]
        memory.embedding_multi_model = multilingual.MODEL_ID


def _vectors_of_a_copy(memory: Memory, among: Sequence[Memory]) -> bool:
    """Set `memory`'s vectors from a memory of `among` with the same text, when it has
    them of the models in use (the multilingual one only where the text wants it: then a
    copy without it gives nothing)."""
    same = [m for m in among if m.content_hash == memory.content_hash]
    if not same:
        return False
    read = [m for m in same if "embedding" not in m.get_deferred_fields()]
    if read:  # the copies were read with their vectors (a merge locks them whole)
        found = next(
            (
                (m.embedding, m.embedding_multi, m.embedding_multi_model)
                for m in read
                if m.embedding_model == embeddings.MODEL_ID and m.embedding is not None
            ),
            None,
        )
    else:
        found = (
            Memory.objects.filter(pk__in=[m.pk for m in same], embedding_model=embeddings.MODEL_ID)
            .exclude(embedding=None)
            .values_list("embedding", "embedding_multi", "embedding_multi_model")
            .first()
        )
    if found is None:
        return False
    vector, multi, multi_model = found
    wants_multi = multilingual.wanted(
        memory.content, note_languages(memory.namespace, [memory.content])
    )
    if wants_multi and (multi is None or multi_model != multilingual.MODEL_ID):
        return False
    memory.embedding, memory.embedding_model = vector, embeddings.MODEL_ID
    if wants_multi:
        memory.embedding_multi, memory.embedding_multi_model = multi, multilingual.MODEL_ID
    return True


def note_languages(namespace: Namespace, texts: Sequence[str]) -> bool:
    """Note the languages that new memories bring to `namespace` and say whether it is
    multilingual (now or already): the first memory sets its language, a memory in
    another one makes it multilingual for good. The check costs microseconds a text
    (store.lexicon.language_of), so an English-only namespace pays nothing else.
    Side effects: may update the namespace's language and multilingual flag (derived
    data, like a vector: no history event)."""
    if namespace.multilingual or not texts:
        return namespace.multilingual
    languages = {language_of(text) for text in texts}
    first = namespace.language or language_of(texts[0])
    update = {}
    if not namespace.language:
        update["language"] = first
    if languages - {first}:
        update["multilingual"] = True
    if update:
        Namespace.objects.filter(pk=namespace.pk).update(**update)
        for name, value in update.items():
            setattr(namespace, name, value)
    return namespace.multilingual


def embed_multilingual(namespace: Namespace, *, actor: str, store: bool = True) -> int:
    """Give every active memory of the namespace that wants the multilingual vector
    (store.multilingual.wanted: all of a multilingual namespace, else the short ones) and
    lacks it the vector (a namespace that turned multilingual after its first memories,
    memories stored before short ones got it). Returns how many were embedded. With
    store=False nothing is written (a dry run): the count only."""
    missing = [
        memory
        for memory in store_queries.without_multilingual_vector(namespace)
        if multilingual.wanted(memory.content, namespace.multilingual)
    ]
    if not missing or not store:
        return len(missing)
    for start in range(0, len(missing), 256):
        batch = missing[start : start + 256]
        vectors = multilingual.encode([memory.content for memory in batch])
        store_embeddings(memories=batch, vectors=vectors, actor=actor, model=multilingual.MODEL_ID)
    return len(missing)


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
            change(
                memory,
                HistoryEvent.Action.UPDATE,
                actor=actor,
                reason=f"line {record.line}: superseded by {target.external_id}",
                superseded_by=target,
            )


def store_embeddings(
    *,
    memories: Sequence[Memory],
    vectors: np.ndarray,
    actor: str,
    model: str = embeddings.MODEL_ID,
) -> int:
    """Save freshly computed vectors of `model` (MiniLM's, or the multilingual one's) on
    `memories`.

    Side effects: updates that model's vector and model id only, and writes one `embed`
    history event per namespace touched. A vector is derived data (recomputable from the
    content), so it gets no per-memory event.
    """
    column, model_column = (
        ("embedding_multi", "embedding_multi_model")
        if model == multilingual.MODEL_ID
        else ("embedding", "embedding_model")
    )
    now = timezone.now()
    with transaction.atomic():
        for memory, vector in zip(memories, vectors, strict=True):
            setattr(memory, column, vector)
            setattr(memory, model_column, model)
            # A new vector is a change detection must see (bulk_update skips auto_now).
            memory.updated_at = now
        Memory.objects.bulk_update(memories, [column, model_column, "updated_at"])
        counts: dict[int, int] = {}
        for memory in memories:
            counts[memory.namespace_id] = counts.get(memory.namespace_id, 0) + 1
        HistoryEvent.objects.bulk_create(
            HistoryEvent(
                namespace_id=namespace_id,
                action=HistoryEvent.Action.EMBED,
                actor=actor,
                after={"count": count, "model": model},
                reason="embedded memories without a vector of the current model",
            )
            for namespace_id, count in counts.items()
        )
    return len(memories)


def decay_confidence(
    *, rate: float, floor: float, now: datetime | None = None, namespace: Namespace | None = None
) -> int:
    """Lower the confidence of memories not accessed for over a day:
    confidence *= (1 - rate) ** days since last access (or since creation), never below
    `floor`. Side effects: updates confidence in one statement per namespace and writes
    one `decay` history event per namespace. Returns how many memories changed."""
    now = now or timezone.now()
    changed = 0
    namespaces = [namespace] if namespace else list(Namespace.objects.all())
    for ns in namespaces:
        with transaction.atomic():
            with connection.cursor() as cursor:
                # One UPDATE: the arithmetic happens in Postgres, never row by row here.
                cursor.execute(
                    """
                    UPDATE store_memory
                    SET confidence = GREATEST(%(floor)s, confidence * POWER(1 - %(rate)s,
                            EXTRACT(EPOCH FROM (%(now)s - COALESCE(last_accessed_at, created_at)))
                            / 86400.0)),
                        updated_at = %(now)s
                    WHERE namespace_id = %(ns)s AND status = 'active'
                      AND COALESCE(last_accessed_at, created_at) < %(now)s - INTERVAL '1 day'
                      AND confidence > %(floor)s
                    """,
                    {"floor": floor, "rate": rate, "now": now, "ns": ns.pk},
                )
                count = cursor.rowcount
            if count:
                HistoryEvent.objects.create(
                    namespace=ns,
                    action=HistoryEvent.Action.DECAY,
                    actor="command:decay_memories",
                    after={"count": count, "rate": rate, "floor": floor},
                    reason="time decay of confidence",
                )
            changed += count
    return changed


def pin_memory(*, memory: Memory, pinned: bool, user) -> None:
    """Pin (or unpin) a memory: a pinned memory is protected, never merged automatically.
    Side effects: updates `pinned`, writes a `pin` event."""
    with transaction.atomic():
        change(
            memory,
            HistoryEvent.Action.PIN,
            actor=actor_of(user),
            user=user,
            reason="pinned" if pinned else "unpinned",
            pinned=pinned,
        )


def forget_memory(*, memory: Memory, reason: str, actor: str) -> Memory:
    """An agent asks to forget one of its memories: never a hard delete. The memory is
    retired (status `deleted`: out of profiles, searches and detection), with a `forget`
    event holding the reason and the memory as it was, which a curator can undo from
    History. Refused for a memory that is not active, and for a pinned one (an admin
    pinned it: only an admin unpins). Returns the memory as saved."""
    with transaction.atomic():
        memory = lock_memory(memory)
        if memory.status != MemoryStatus.ACTIVE:
            raise DecisionError(f"{memory.external_id} is {memory.status}, not active")
        if memory.pinned:
            raise DecisionError(f"{memory.external_id} is pinned by an admin: it is kept")
        memory = change(
            memory,
            HistoryEvent.Action.FORGET,
            actor=actor,
            reason=reason,
            status=MemoryStatus.DELETED,
        )
        overlaps.follow([memory.pk], actor=actor)
        return memory


def return_from_source(*, memory: Memory, actor: str, reason: str) -> Memory:
    """An agent wrote a point again in the store memadmin pulls it from (sources) after
    memadmin had retired its memory: the agent's newer write wins, and the memory is
    active again (its text already updated by the pull). Side effects: the memory, one
    `update` event."""
    with transaction.atomic():
        memory = lock_memory(memory)
        if memory.status == MemoryStatus.ACTIVE:
            return memory
        memory = change(
            memory,
            HistoryEvent.Action.UPDATE,
            actor=actor,
            reason=reason,
            status=MemoryStatus.ACTIVE,
            superseded_by=None,
        )
        overlaps.follow([memory.pk], actor=actor)
        return memory


def undo_forget(*, forgotten: HistoryEvent, user) -> Memory:
    """A curator takes an agent's `forget` back: the memory is active again. Refused when
    it changed since (or the event was undone already). Side effects: the memory, one
    `undo` event pointing at the forget."""
    with transaction.atomic():
        forgotten = HistoryEvent.objects.select_for_update().get(pk=forgotten.pk)
        if forgotten.action != HistoryEvent.Action.FORGET:
            raise DecisionError("only a forget is undone here")
        if forgotten.undone_by.exists():
            raise DecisionError("this forget was undone already")
        memory = lock_memory(forgotten.memory)
        if memory.status != MemoryStatus.DELETED:
            raise DecisionError(f"{memory.external_id} changed since it was forgotten")
        memory = change(
            memory,
            HistoryEvent.Action.UNDO,
            actor=actor_of(user),
            user=user,
            reason=f"forget undone by {user.get_username()}",
            links={"undoes": forgotten},
            status=forgotten.before["status"],
        )
        overlaps.follow([memory.pk], actor=actor_of(user), user=user)
        return memory


def insert_written(
    *, memory: Memory, vector: np.ndarray, actor: str, multi_vector: np.ndarray | None = None
) -> Memory:
    """Store an agent's new memory (unsaved, from new_memory) with its vector (and its
    multilingual one, in a multilingual namespace).
    Side effects: creates the memory and its `write` event."""
    with transaction.atomic():
        memory.embedding, memory.embedding_model = vector, embeddings.MODEL_ID
        if multi_vector is not None:
            memory.embedding_multi = multi_vector
            memory.embedding_multi_model = multilingual.MODEL_ID
        memory.save()
        log(memory, HistoryEvent.Action.WRITE, actor=actor, reason="written by an agent")
    return memory


def record_repeat(*, existing: Memory, record: Record, actor: str) -> Memory:
    """An agent wrote `existing`'s text again: no new row; the existing memory's
    provenance gains this sighting and its confidence the maximum. `existing` must be
    locked by the caller. Side effects: updates it, writes a `write` event."""
    before = snapshot(existing)
    seen = {
        "external_id": record.external_id,
        "session_id": record.fields.get("session_id", ""),
        "source_ref": record.fields.get("source_ref", ""),
        "seen_at": timezone.now().isoformat(),
    }
    existing.provenance = [*existing.provenance, seen]
    existing.confidence = max(existing.confidence, record.fields.get("confidence", 0.0))
    existing.save(update_fields=["provenance", "confidence", "updated_at"])
    log(
        existing,
        HistoryEvent.Action.WRITE,
        actor=actor,
        before=before,
        reason="exact repeat written by an agent: provenance and confidence updated",
    )
    return existing
