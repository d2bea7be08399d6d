"""Every write to memories. Each function is atomic and writes its history events;
views, commands and the API call these and nothing else to change a memory."""

from __future__ import annotations

import hashlib
import itertools
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from memadmin.curation.models import (
    Cluster,
    ClusterMember,
    ClusterStatus,
    Conflict,
    ConflictResolution,
    ConflictStatus,
    HistoryEvent,
    MergeProposal,
    PairVerdict,
    ProposalStatus,
)
from memadmin.store import embeddings, queries
from memadmin.store.importing import Record
from memadmin.store.models import Memory, MemoryStatus, Namespace
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


logger = logging.getLogger("memadmin.curation")


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
        [_event(m, HistoryEvent.Action.IMPORT, actor=actor, reason="imported") for m in created]
        + [
            _event(
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
            before = snapshot(memory)
            memory.superseded_by = target
            memory.save(update_fields=["superseded_by", "updated_at"])
            _log(
                memory,
                HistoryEvent.Action.UPDATE,
                actor=actor,
                before=before,
                reason=f"line {record.line}: superseded by {target.external_id}",
            )


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


# --- Detection's decisions -------------------------------------------------------------


def fold_memories(
    *,
    survivor: Memory,
    others: Sequence[Memory],
    edges: list[dict],
    action: str,
    actor: str,
    reason: str,
    run_id: int | None = None,
) -> Cluster:
    """Fold `others` into `survivor` (an exact collapse or an automatic merge): the
    survivor keeps its text and gains the others' tags, provenance and sessions, the
    maximum importance and confidence; the others become superseded by it.

    Side effects, in one transaction: updates the survivor and supersedes the others
    (each with a history event holding before and after), and records an `auto_merged`
    Cluster whose events an unmerge reads. Refuses (DecisionError, nothing changed) when
    any memory is no longer active.
    """
    now = timezone.now()
    with transaction.atomic():
        locked = _lock_active([survivor.pk, *(m.pk for m in others)])
        survivor, others = locked[survivor.pk], [locked[m.pk] for m in others]
        before = snapshot(survivor)
        for other in others:
            survivor.tags = survivor.tags + [t for t in other.tags if t not in survivor.tags]
            survivor.provenance = survivor.provenance + [
                entry for entry in other.provenance if entry not in survivor.provenance
            ]
            survivor.importance = max(survivor.importance, other.importance)
            survivor.confidence = max(survivor.confidence, other.confidence)
            survivor.access_count += other.access_count
        survivor.updated_at = now
        survivor.save(update_fields=FOLDED_FIELDS)
        cluster = Cluster.objects.create(
            namespace_id=survivor.namespace_id,
            status=ClusterStatus.AUTO_MERGED,
            edges=edges,
            min_similarity=min((e["similarity"] for e in edges), default=1.0),
            weakest_link=_weakest(edges),
            flags=[action],
            decided_at=now,
        )
        ClusterMember.objects.bulk_create(
            ClusterMember(cluster=cluster, memory=m) for m in [survivor, *others]
        )
        befores = {other.pk: snapshot(other) for other in others}
        Memory.objects.filter(pk__in=befores).update(
            status=MemoryStatus.SUPERSEDED, superseded_by=survivor, updated_at=now
        )
        events = [
            _event(
                survivor,
                action,
                actor=actor,
                before=before,
                reason=reason,
                related_memory_ids=[m.pk for m in others],
                cluster=cluster,
            )
        ]
        for other in others:
            other.status, other.superseded_by_id = MemoryStatus.SUPERSEDED, survivor.pk
            events.append(
                _event(
                    other,
                    HistoryEvent.Action.SUPERSEDE,
                    actor=actor,
                    before=befores[other.pk],
                    reason=reason,
                    related_memory_ids=[survivor.pk],
                    cluster=cluster,
                )
            )
        HistoryEvent.objects.bulk_create(events)
    logger.info(
        "DEDUP_MERGE namespace=%s action=%s survivor=%s folded=%s run=%s",
        survivor.namespace_id,
        action,
        survivor.external_id,
        ",".join(m.external_id for m in others),
        run_id,
    )
    return cluster


# What a fold changes on the survivor.
FOLDED_FIELDS = ["tags", "provenance", "importance", "confidence", "access_count", "updated_at"]


def _lock_active(ids: Sequence[int]) -> dict[int, Memory]:
    """Lock the memories (FOR UPDATE) and check that each is still active. The vector is
    not read: no decision changes it."""
    memories = {
        m.pk: m for m in Memory.objects.select_for_update().defer("embedding").filter(pk__in=ids)
    }
    inactive = [m.external_id for m in memories.values() if m.status != MemoryStatus.ACTIVE]
    if inactive or len(memories) != len(set(ids)):
        raise DecisionError(f"no longer active: {', '.join(sorted(inactive)) or 'missing rows'}")
    return memories


def _weakest(edges: list[dict]) -> list[int]:
    if not edges:
        return []
    weakest = min(edges, key=lambda e: e["similarity"])
    return [weakest["a"], weakest["b"]]


@dataclass
class ProposedCluster:
    """Memories a detection pass proposes for review, with every pair's similarity."""

    memories: Sequence[Memory]
    edges: list[dict]
    flags: list[str]


def open_cluster(
    *, namespace: Namespace, memories: Sequence[Memory], edges: list[dict], flags: list[str]
) -> tuple[Cluster, bool]:
    """Open a cluster for review, or grow the open cluster that already holds one of
    `memories` (a new memory joins it rather than opening a duplicate cluster).

    Side effects: creates or updates a Cluster and its ClusterMember rows. Returns the
    cluster and whether it is new.
    """
    ((cluster, created),) = open_clusters(
        namespace=namespace, proposed=[ProposedCluster(memories, edges, flags)]
    )
    return cluster, created


def open_clusters(
    *, namespace: Namespace, proposed: Sequence[ProposedCluster]
) -> list[tuple[Cluster, bool]]:
    """open_cluster for a whole batch run's proposals at once: one query finds the open
    clusters that already hold any of their memories, and the new clusters and their
    members are inserted in bulk (one at a time, 1,839 clusters took 7 s).

    Side effects, in one transaction: creates or grows Cluster and ClusterMember rows.
    Returns (cluster, created) per proposal, in order.
    """
    with transaction.atomic():
        open_cluster_of = dict(
            ClusterMember.objects.filter(
                cluster__namespace=namespace,
                cluster__status=ClusterStatus.OPEN,
                memory__in=[m.pk for p in proposed for m in p.memories],
            ).values_list("memory_id", "cluster_id")
        )
        fresh = [p for p in proposed if not any(m.pk in open_cluster_of for m in p.memories)]
        created = Cluster.objects.bulk_create(
            Cluster(
                namespace=namespace,
                status=ClusterStatus.OPEN,
                edges=sorted(p.edges, key=lambda e: (e["a"], e["b"])),
                min_similarity=min((e["similarity"] for e in p.edges), default=0.0),
                weakest_link=_weakest(p.edges),
                flags=sorted(set(p.flags)),
            )
            for p in fresh
        )
        ClusterMember.objects.bulk_create(
            ClusterMember(cluster=cluster, memory=m)
            for cluster, p in zip(created, fresh, strict=True)
            for m in p.memories
        )
        new_cluster = {id(p): cluster for p, cluster in zip(fresh, created, strict=True)}
        results = []
        for p in proposed:
            if id(p) in new_cluster:
                results.append((new_cluster[id(p)], True))
                continue
            held = next(open_cluster_of[m.pk] for m in p.memories if m.pk in open_cluster_of)
            results.append((_grow_cluster(held, p), False))
    return results


def _grow_cluster(cluster_id: int, proposed: ProposedCluster) -> Cluster:
    # Lock the row itself (FOR UPDATE cannot go with the join that found it).
    cluster = Cluster.objects.select_for_update().get(pk=cluster_id)
    known = set(cluster.memberships.values_list("memory_id", flat=True))
    ClusterMember.objects.bulk_create(
        ClusterMember(cluster=cluster, memory=m) for m in proposed.memories if m.pk not in known
    )
    merged_edges = {(e["a"], e["b"]): e for e in cluster.edges}
    merged_edges.update({(e["a"], e["b"]): e for e in proposed.edges})
    cluster.edges = sorted(merged_edges.values(), key=lambda e: (e["a"], e["b"]))
    cluster.min_similarity = min((e["similarity"] for e in cluster.edges), default=0.0)
    cluster.weakest_link = _weakest(cluster.edges)
    cluster.flags = sorted(set(cluster.flags) | set(proposed.flags))
    cluster.save()
    return cluster


def open_conflict(
    *,
    older: Memory,
    newer: Memory,
    kind: str,
    reason: str,
    differing_tokens: list[str],
    detected_by: str = "rule",
) -> tuple[Conflict, bool]:
    """Record that `older` and `newer` disagree (unless that pair already has a
    conflict, open or decided). Side effects: creates one Conflict row."""
    with transaction.atomic():
        existing = Conflict.objects.filter(
            Q(memory_a=older, memory_b=newer) | Q(memory_a=newer, memory_b=older)
        ).first()
        if existing:
            return existing, False
        conflict = Conflict.objects.create(
            namespace=older.namespace,
            memory_a=older,
            memory_b=newer,
            kind=kind,
            reason=reason,
            detected_by=detected_by,
            differing_tokens=differing_tokens,
        )
    return conflict, True


def unmerge(*, cluster: Cluster, actor: str, user=None, reason: str = "") -> None:
    """Undo one fold (exact collapse, automatic or accepted merge): the folded memories
    become active again exactly as they were, and the survivor loses what the fold gave
    it (tags, provenance, importance, confidence, access count) unless later changes
    replaced those values. Works whatever merges came after, as long as none of this
    fold's memories was folded again since (then that later merge must be undone first).

    Side effects, in one transaction: restores memories, writes an `unmerge` event per
    memory pointing at the event it undoes, marks the cluster `unmerged`.
    """
    with transaction.atomic():
        cluster = Cluster.objects.select_for_update().get(pk=cluster.pk)
        if cluster.status not in (ClusterStatus.AUTO_MERGED, ClusterStatus.ACCEPTED):
            raise DecisionError(f"cluster {cluster.pk} is {cluster.status}, not a merge")
        events = list(
            HistoryEvent.objects.filter(cluster=cluster, undoes__isnull=True)
            .exclude(action=HistoryEvent.Action.UNMERGE)
            .select_related("memory")
            .order_by("id")
        )
        memories = {
            m.pk: m
            for m in Memory.objects.select_for_update().filter(
                pk__in=[e.memory_id for e in events if e.memory_id]
            )
        }
        superseded = [e for e in events if e.action == HistoryEvent.Action.SUPERSEDE]
        for event in superseded:
            memory = memories[event.memory_id]
            if (
                memory.status != MemoryStatus.SUPERSEDED
                or memory.superseded_by_id != event.after["superseded_by_id"]
            ):
                raise DecisionError(
                    f"{memory.external_id} changed after this merge; undo the later change first"
                )
        for event in events:
            if event.action == HistoryEvent.Action.SUPERSEDE:
                continue
            memory = memories[event.memory_id]
            if memory.status != MemoryStatus.ACTIVE:
                later = memory.superseded_by.external_id if memory.superseded_by else "?"
                raise DecisionError(
                    f"{memory.external_id} was merged again later (into {later}); "
                    "undo that merge first"
                )
            _restore_survivor(memory, event, actor=actor, user=user, reason=reason)
        for event in superseded:
            _restore_folded(memories[event.memory_id], event, actor=actor, user=user, reason=reason)
        cluster.status = ClusterStatus.UNMERGED
        cluster.decided_by = user
        cluster.decided_at = timezone.now()
        cluster.save(update_fields=["status", "decided_by", "decided_at", "updated_at"])


def _restore_folded(memory: Memory, event: HistoryEvent, *, actor, user, reason) -> None:
    before = snapshot(memory)
    memory.status = event.before["status"]
    memory.superseded_by_id = event.before["superseded_by_id"]
    memory.save(update_fields=["status", "superseded_by", "updated_at"])
    _log_undo(memory, before, event, actor=actor, user=user, reason=reason or "merge undone")


def _restore_survivor(memory: Memory, event: HistoryEvent, *, actor, user, reason) -> None:
    before = snapshot(memory)
    given, taken = event.after, event.before
    if taken is None:
        # The merge created this memory: undoing it retires the memory (never deleted).
        memory.status = MemoryStatus.DELETED
        memory.save(update_fields=["status", "updated_at"])
        reason = reason or "merge undone: the merged memory is retired"
        _log_undo(memory, before, event, actor=actor, user=user, reason=reason)
        return
    for name in ("content", "category", "importance", "confidence", "access_count"):
        # Only undo what this fold set and nothing has changed since.
        if getattr(memory, name) == given[name]:
            setattr(memory, name, taken[name])
    if memory.content != before["content"]:
        memory.content_hash = content_hash(memory.content)
    for name in ("tags", "provenance"):
        added = [item for item in given[name] if item not in taken[name]]
        setattr(memory, name, [item for item in getattr(memory, name) if item not in added])
    memory.save()
    _log_undo(memory, before, event, actor=actor, user=user, reason=reason or "merge undone")


def _event(
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


def _log(memory: Memory, action: str, **fields) -> HistoryEvent:
    """Write one history event (see _event)."""
    event = _event(memory, action, **fields)
    event.save()
    return event


def _log_undo(memory: Memory, before: dict, event: HistoryEvent, *, actor, user, reason) -> None:
    """The `unmerge` event of one memory, pointing at the event it undoes."""
    _log(
        memory,
        HistoryEvent.Action.UNMERGE,
        actor=actor,
        user=user,
        before=before,
        reason=reason,
        cluster=event.cluster,
        undoes=event,
    )


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


# --- LLM verdicts and merge proposals ----------------------------------------------------


def record_verdict(
    *,
    namespace: Namespace,
    hashes: tuple[str, str],
    verdict: str,
    conflict_kind: str,
    reason: str,
    decided_by: str,
    prompt_version: str = "",
    user=None,
) -> PairVerdict:
    """Remember a judgement on a pair of texts (by content hash), so it is never asked or
    proposed again. Side effects: creates one PairVerdict (or returns the existing one)."""
    low, high = sorted(hashes)
    pair_verdict, _ = PairVerdict.objects.get_or_create(
        namespace=namespace,
        hash_low=low,
        hash_high=high,
        decided_by=decided_by,
        prompt_version=prompt_version,
        defaults={
            "verdict": verdict,
            "conflict_kind": conflict_kind,
            "reason": reason,
            "user": user,
        },
    )
    return pair_verdict


def members_fingerprint(memories: Sequence[Memory]) -> str:
    """What a proposal was written from: its members' ids and texts. A proposal whose
    members changed since no longer matches."""
    import hashlib

    parts = sorted(f"{m.pk}:{m.content_hash}" for m in memories)
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def record_proposal(*, cluster: Cluster, members: Sequence[Memory], draft) -> MergeProposal:
    """Store a merge proposal for an open cluster; earlier pending proposals of the
    cluster are discarded (they were written from other members or another model).
    Side effects: creates one MergeProposal, updates the older pending ones."""
    with transaction.atomic():
        cluster = Cluster.objects.select_for_update().get(pk=cluster.pk)
        if cluster.status != ClusterStatus.OPEN:
            raise DecisionError(f"cluster {cluster.pk} is {cluster.status}, not open")
        MergeProposal.objects.filter(cluster=cluster, status=ProposalStatus.PENDING).update(
            status=ProposalStatus.DISCARDED
        )
        return MergeProposal.objects.create(
            cluster=cluster,
            merged_text=draft.text,
            author=draft.author,
            llm_model=draft.model,
            prompt_version=draft.prompt_version,
            rationale=draft.rationale,
            dropped_facts=draft.dropped_facts,
            warnings=draft.warnings,
            input_tokens=draft.input_tokens,
            output_tokens=draft.output_tokens,
            latency_ms=draft.latency_ms,
            members_fingerprint=members_fingerprint(members),
            status=ProposalStatus.DISCARDED if draft.discarded else ProposalStatus.PENDING,
        )


class StaleDecision(DecisionError):
    """Someone decided first, or the members changed since the proposal was written."""


def accept_proposal(
    *, proposal: MergeProposal, user, text: str | None = None, actor: str | None = None
) -> Memory:
    """Merge a cluster as its proposal (or a curator's `text`) says: a new memory with the
    merged text, its metadata from the newest member, importance and confidence the
    maximum, tags and provenance the union; every member becomes superseded by it.

    Side effects, in one transaction: creates the merged memory (embedded), supersedes
    the members, marks the cluster accepted and the proposal accepted (or edited), and
    writes a `merge` event for the new memory and a `supersede` event per member.
    Refuses with StaleDecision when the cluster was decided already (saying who and when)
    or its members changed since the proposal was written; nothing is changed then.
    """
    actor = actor or f"user:{user.get_username()}"
    with transaction.atomic():
        cluster = Cluster.objects.select_for_update().get(pk=proposal.cluster_id)
        proposal = MergeProposal.objects.select_for_update().get(pk=proposal.pk)
        _refuse_if_decided(cluster)
        member_ids = list(
            cluster.memberships.filter(excluded=False).values_list("memory_id", flat=True)
        )
        members = (
            sorted(_lock_active(member_ids).values(), key=lambda m: (m.created_at, m.pk))
            if member_ids
            else []
        )
        if len(members) < 2 or members_fingerprint(members) != proposal.members_fingerprint:
            raise StaleDecision("the members changed since this proposal was written; refresh it")
        merged_text = (text if text is not None else proposal.merged_text).strip()
        if not merged_text:
            raise DecisionError("the merged text is empty")
        newest = members[-1]
        now = timezone.now()
        merged = Memory(
            namespace_id=cluster.namespace_id,
            external_id=f"merged-{cluster.pk}-{proposal.pk}",
            content=merged_text,
            content_hash=content_hash(merged_text),
            category=newest.category,
            source_ref=newest.source_ref,
            session_id=newest.session_id,
            metadata=newest.metadata,
            created_at=now,
            valid_from=newest.valid_from,
            valid_until=newest.valid_until,
            importance=max(m.importance for m in members),
            confidence=max(m.confidence for m in members),
            access_count=sum(m.access_count for m in members),
            pinned=any(m.pinned for m in members),
            tags=list(dict.fromkeys(tag for m in members for tag in m.tags)),
            provenance=[entry for m in members for entry in m.provenance],
        )
        merged.embedding = embeddings.encode([merged_text])[0]
        merged.embedding_model = embeddings.MODEL_ID
        merged.save()
        edited = text is not None and merged_text != proposal.merged_text.strip()
        reason = "merge accepted" + (" with the curator's text" if edited else "")
        events = [
            _event(
                merged,
                HistoryEvent.Action.MERGE,
                actor=actor,
                user=user,
                reason=reason,
                llm_model=proposal.llm_model,
                prompt_version=proposal.prompt_version,
                related_memory_ids=[m.pk for m in members],
                cluster=cluster,
            )
        ]
        for member in members:
            before = snapshot(member)
            member.status, member.superseded_by = MemoryStatus.SUPERSEDED, merged
            member.save(update_fields=["status", "superseded_by", "updated_at"])
            events.append(
                _event(
                    member,
                    HistoryEvent.Action.SUPERSEDE,
                    actor=actor,
                    user=user,
                    before=before,
                    reason=reason,
                    related_memory_ids=[merged.pk],
                    cluster=cluster,
                )
            )
        HistoryEvent.objects.bulk_create(events)
        proposal.status = ProposalStatus.EDITED if edited else ProposalStatus.ACCEPTED
        proposal.reviewer, proposal.decided_at = user, now
        proposal.save(update_fields=["status", "reviewer", "decided_at"])
        cluster.status, cluster.decided_by, cluster.decided_at = ClusterStatus.ACCEPTED, user, now
        cluster.save(update_fields=["status", "decided_by", "decided_at", "updated_at"])
    return merged


# --- Write-time dedup (the agent API) ---------------------------------------------------


@dataclass
class WriteResult:
    action: str  # duplicate | replaced | merged | inserted
    memory: Memory
    similar: list[dict] = field(default_factory=list)
    conflict_id: int | None = None
    cluster_id: int | None = None
    queued_for_review: bool = False
    check_failed: bool = False
    embed_ms: float = 0.0
    check_ms: float = 0.0


def _content_lock_key(namespace_id: int, digest: str) -> int:
    raw = hashlib.sha256(f"memadmin.write:{namespace_id}:{digest}".encode()).digest()
    return int.from_bytes(raw[:8], "big", signed=True)


def write_memory(
    *, namespace: Namespace, record: Record, actor: str, llm_session=None
) -> WriteResult:
    """An agent's new memory, checked against the namespace before it is stored.

    Exact repeat: no new row; the existing memory gains this session/source in its
    provenance and the higher confidence (`duplicate`). Near-identical with every guard
    passing: stored, the older superseded by it, undoable (`replaced`). The review band:
    merged by the LLM when one is configured (`merged`), else stored and the pair queued
    for review (`inserted`, queued_for_review). A key-token difference on the same
    subject: stored and a Conflict opened. Otherwise stored (`inserted`).

    Writers of the same text in one namespace are serialized by a transaction-level
    advisory lock, so concurrent identical posts leave one row. If the similarity check
    itself fails, the memory is stored anyway (fail open) and the failure logged.
    """
    started = time.perf_counter()
    vector = embeddings.encode([record.content])[0]
    result = WriteResult(action="inserted", memory=None)  # type: ignore[arg-type]
    result.embed_ms = (time.perf_counter() - started) * 1000
    digest = content_hash(record.content)
    memory = _new_memory(record, namespace, timezone.now())
    memory.content_hash = digest
    # The check reads only, before the write transaction: a failure cannot abort the
    # write (fail open), and the row lock below is held for the write alone.
    # An exact copy with a vector is the nearest neighbour; the re-check under the lock
    # below finds any other, so the check needs no query of its own for it.
    check_started = time.perf_counter()
    judged: list = []
    try:
        judged = _check_write(memory, namespace, vector)
    except Exception:
        logger.exception("DEDUP_FAIL write-time check failed; storing without it")
        result.check_failed = True
    result.check_ms = (time.perf_counter() - check_started) * 1000
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_xact_lock(%s)", [_content_lock_key(namespace.pk, digest)]
            )
        # Under the lock: a concurrent writer of the same text has committed by now.
        existing = (
            Memory.objects.select_for_update()
            .defer("embedding")
            .filter(namespace=namespace, content_hash=digest, status=MemoryStatus.ACTIVE)
            .order_by("created_at", "id")
            .first()
        )
        if existing is not None:
            return _record_repeat(existing, record, actor, result)
        if Memory.objects.filter(namespace=namespace, external_id=record.external_id).exists():
            raise DecisionError(f"id {record.external_id!r} already exists in {namespace.name}")
        memory.embedding, memory.embedding_model = vector, embeddings.MODEL_ID
        memory.save()
        _log(memory, HistoryEvent.Action.WRITE, actor=actor, reason="written by an agent")
        result.memory = memory
        _act_on_write(memory, judged, actor, llm_session, result)
    return result


def _check_write(memory: Memory, namespace: Namespace, vector) -> list:
    """The dedup check: the nearest active memories and the judgement of each pair
    (older, new), nearest first. Reads only."""
    from memadmin.curation import detect, lexical

    neighbours = queries.nearest_memories(namespace, vector, k=settings.API_NEIGHBOURS)
    thresholds = detect.Thresholds.from_settings()
    # IDF over the neighbourhood: a whole-namespace IDF per write would cost more than
    # the rest of the request; the neighbours share the subject, which is what it weighs.
    tfidf = lexical.TfIdf([memory.content, *(n.memory.content for n in neighbours)])
    judged = []
    for n in neighbours:
        if n.similarity >= thresholds.candidate or n.memory.content_hash == memory.content_hash:
            judgement = detect.judge_pair(
                n.memory, memory, cosine=n.similarity, tfidf=tfidf, thresholds=thresholds
            )
        else:  # below the vector layer's floor: only listed as similar
            judgement = detect.PairJudgement(
                detect.Verdict.DISTINCT, n.similarity, n.similarity, 0.0, "vector"
            )
        judged.append((n, judgement))
    return judged


def _record_repeat(existing: Memory, record: Record, actor: str, result: WriteResult):
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
    _log(
        existing,
        HistoryEvent.Action.WRITE,
        actor=actor,
        before=before,
        reason="exact repeat written by an agent: provenance and confidence updated",
    )
    result.action, result.memory = "duplicate", existing
    return result


def _act_on_write(memory: Memory, judged: list, actor: str, llm_session, result: WriteResult):
    """Act on the nearest decisive judgement (merge, conflict or review); list the rest
    as `similar`."""
    from memadmin.curation import detect

    decided = False
    auto_merge = detect.Thresholds.from_settings().auto_merge
    for neighbour, judgement in judged:
        older = neighbour.memory
        if not decided and judgement.verdict == detect.Verdict.AUTO_MERGE:
            cluster = fold_memories(
                survivor=memory,
                others=[older],
                edges=[_edge(older, memory, judgement)],
                action=HistoryEvent.Action.MERGE,
                actor=actor,
                reason=f"replaced at write time ({'; '.join(judgement.reasons)})",
            )
            result.action, result.cluster_id, decided = "replaced", cluster.pk, True
            memory.refresh_from_db()
            continue
        if not decided and judgement.verdict == detect.Verdict.CONFLICT:
            conflict, _ = open_conflict(
                older=older,
                newer=memory,
                kind=judgement.conflict_kind,
                reason="; ".join(judgement.reasons),
                differing_tokens=judgement.differing_tokens,
            )
            result.conflict_id, decided = conflict.pk, True
        elif not decided and judgement.verdict == detect.Verdict.REVIEW:
            cluster, _ = open_cluster(
                namespace=memory.namespace,
                memories=[older, memory],
                edges=[_edge(older, memory, judgement)],
                flags=judgement.flags,
            )
            result.cluster_id, decided = cluster.pk, True
            merged = _merge_now(cluster, [older, memory], llm_session, actor, judgement)
            if merged is not None:
                result.action, result.memory = "merged", merged
            else:
                result.queued_for_review = True
            continue
        if judgement.similarity < auto_merge:
            result.similar.append(
                {
                    "id": older.external_id,
                    "content": older.content,
                    "similarity": round(neighbour.similarity, 4),
                }
            )


def _merge_now(cluster, members, llm_session, actor, judgement) -> Memory | None:
    """The LLM merges a review-band pair at write time, when it can (not for protected
    memories); the proposal and both originals stay in history."""
    from memadmin.curation import llm, proposals

    if llm_session is None or not llm.configured() or judgement.flags:
        return None
    draft = proposals.draft_for(members, llm_session)
    if draft.author != "llm":
        return None
    proposal = record_proposal(cluster=cluster, members=members, draft=draft)
    return accept_proposal(proposal=proposal, user=None, actor=actor)


def _edge(a: Memory, b: Memory, judgement) -> dict:
    return {
        "a": a.pk,
        "b": b.pk,
        "similarity": round(float(judgement.similarity), 4),
        "method": judgement.method,
    }


def _refuse_if_decided(cluster: Cluster) -> None:
    if cluster.status != ClusterStatus.OPEN:
        who = cluster.decided_by.get_username() if cluster.decided_by else "a command"
        when = cluster.decided_at.strftime("%Y-%m-%d %H:%M") if cluster.decided_at else "?"
        raise StaleDecision(f"this cluster was already {cluster.status} by {who} at {when}")


def dismiss_cluster(*, cluster: Cluster, user, reason: str = "") -> None:
    """A curator says the members are not duplicates: the cluster closes, and every pair
    of its members is remembered (PairVerdict `not_duplicate`, by content hash), so the
    same pairs are never proposed again. No memory changes. Refuses with StaleDecision
    when someone decided first."""
    with transaction.atomic():
        cluster = Cluster.objects.select_for_update().get(pk=cluster.pk)
        _refuse_if_decided(cluster)
        members = [
            m.memory for m in cluster.memberships.filter(excluded=False).select_related("memory")
        ]
        for position, a in enumerate(members):
            for b in members[position + 1 :]:
                if a.content_hash != b.content_hash:
                    record_verdict(
                        namespace=cluster.namespace,
                        hashes=(a.content_hash, b.content_hash),
                        verdict=PairVerdict.Verdict.NOT_DUPLICATE,
                        conflict_kind="",
                        reason=reason or f"dismissed by {user.get_username()}",
                        decided_by="human",
                        user=user,
                    )
        MergeProposal.objects.filter(cluster=cluster, status=ProposalStatus.PENDING).update(
            status=ProposalStatus.DISMISSED, reviewer=user, decided_at=timezone.now()
        )
        cluster.status = ClusterStatus.DISMISSED
        cluster.decided_by, cluster.decided_at = user, timezone.now()
        cluster.save(update_fields=["status", "decided_by", "decided_at", "updated_at"])
        _log_cluster_decision(
            cluster, HistoryEvent.Action.DISMISS, user, reason or "not duplicates"
        )


def resolve_conflict(
    *, conflict: Conflict, resolution: str, user, scope_note: str = "", text: str = ""
) -> Conflict:
    """An admin settles a conflict (a = older, b = newer):
    keep_a / keep_b: the other memory is retired (status deleted, never removed);
    both_valid: both stay, with the scope note (e.g. "staging" / "production");
    b_supersedes_a: a is superseded by b and valid until b's creation;
    rewritten: one new memory with `text` (metadata from b) supersedes both;
    dismiss: not a conflict. Every outcome but a rewrite is remembered for the pair, so
    it is not raised again. Side effects: the memory changes with their history events,
    the conflict's status. Refuses with StaleDecision when someone settled it first."""
    with transaction.atomic():
        conflict = Conflict.objects.select_for_update().get(pk=conflict.pk)
        if conflict.status != ConflictStatus.OPEN:
            who = conflict.resolver.get_username() if conflict.resolver else "a command"
            when = conflict.resolved_at.strftime("%Y-%m-%d %H:%M") if conflict.resolved_at else "?"
            raise StaleDecision(f"this conflict was already {conflict.status} by {who} at {when}")
        older, newer = conflict.memory_a, conflict.memory_b
        actor, now = f"user:{user.get_username()}", timezone.now()
        reason = f"conflict {conflict.pk} resolved: {resolution}"
        if resolution in (ConflictResolution.KEEP_A, ConflictResolution.KEEP_B):
            retired = newer if resolution == ConflictResolution.KEEP_A else older
            _change(retired, actor, user, reason, conflict, status=MemoryStatus.DELETED)
        elif resolution == ConflictResolution.B_SUPERSEDES_A:
            _change(
                older,
                actor,
                user,
                reason,
                conflict,
                status=MemoryStatus.SUPERSEDED,
                superseded_by=newer,
                valid_until=newer.created_at,
            )
        elif resolution == ConflictResolution.REWRITTEN:
            if not text.strip():
                raise DecisionError("a rewrite needs the new text")
            merged = _rewrite(older, newer, text.strip(), actor, user, reason, conflict, now)
            for memory in (older, newer):
                _change(
                    memory,
                    actor,
                    user,
                    reason,
                    conflict,
                    status=MemoryStatus.SUPERSEDED,
                    superseded_by=merged,
                )
        elif resolution not in (ConflictResolution.BOTH_VALID, "dismiss"):
            raise DecisionError(f"unknown resolution {resolution!r}")
        if resolution != ConflictResolution.REWRITTEN:
            record_verdict(
                namespace=conflict.namespace,
                hashes=(older.content_hash, newer.content_hash),
                verdict=PairVerdict.Verdict.BOTH_VALID,
                conflict_kind="",
                reason=scope_note or reason,
                decided_by="human",
                user=user,
            )
        conflict.status = (
            ConflictStatus.DISMISSED if resolution == "dismiss" else ConflictStatus.RESOLVED
        )
        conflict.resolution = "" if resolution == "dismiss" else resolution
        conflict.scope_note, conflict.resolver, conflict.resolved_at = scope_note, user, now
        conflict.save()
    return conflict


def _change(memory: Memory, actor, user, reason, conflict, **changes) -> None:
    memory = Memory.objects.select_for_update().defer("embedding").get(pk=memory.pk)
    before = snapshot(memory)
    for name, value in changes.items():
        setattr(memory, name, value)
    memory.save(update_fields=[*changes, "updated_at"])
    _log(
        memory,
        HistoryEvent.Action.RESOLVE,
        actor=actor,
        user=user,
        before=before,
        reason=reason,
        conflict=conflict,
    )


def _rewrite(older, newer, text, actor, user, reason, conflict, now) -> Memory:
    merged = Memory(
        namespace_id=newer.namespace_id,
        external_id=f"rewritten-{conflict.pk}",
        content=text,
        content_hash=content_hash(text),
        category=newer.category,
        tags=list(dict.fromkeys([*older.tags, *newer.tags])),
        source_ref=newer.source_ref,
        session_id=newer.session_id,
        importance=max(older.importance, newer.importance),
        confidence=max(older.confidence, newer.confidence),
        metadata=newer.metadata,
        provenance=[*older.provenance, *newer.provenance],
        created_at=now,
    )
    merged.embedding, merged.embedding_model = embeddings.encode([text])[0], embeddings.MODEL_ID
    merged.save()
    _log(
        merged,
        HistoryEvent.Action.RESOLVE,
        actor=actor,
        user=user,
        reason=reason,
        related_memory_ids=[older.pk, newer.pk],
        conflict=conflict,
    )
    return merged


def _open_members(cluster: Cluster) -> list[Memory]:
    return [
        m.memory
        for m in cluster.memberships.filter(excluded=False)
        .select_related("memory")
        .defer("memory__embedding")
        .order_by("memory__created_at", "memory_id")
    ]


def _remember_apart(cluster: Cluster, a: Memory, others: Sequence[Memory], user, reason) -> None:
    for other in others:
        if other.content_hash != a.content_hash:
            record_verdict(
                namespace=cluster.namespace,
                hashes=(a.content_hash, other.content_hash),
                verdict=PairVerdict.Verdict.NOT_DUPLICATE,
                conflict_kind="",
                reason=reason,
                decided_by="human",
                user=user,
            )


def _log_cluster_decision(cluster: Cluster, action: str, user, reason: str, memory=None) -> None:
    """A decision about a cluster that changes no memory still goes in the log."""
    HistoryEvent.objects.create(
        namespace_id=cluster.namespace_id,
        memory=memory,
        action=action,
        actor=f"user:{user.get_username()}",
        user=user,
        reason=reason,
        cluster=cluster,
        related_memory_ids=list(
            cluster.memberships.values_list("memory_id", flat=True).order_by("memory_id")
        ),
    )


def _close(cluster: Cluster, status: str, user) -> None:
    MergeProposal.objects.filter(cluster=cluster, status=ProposalStatus.PENDING).update(
        status=ProposalStatus.DISCARDED
    )
    cluster.status, cluster.decided_by, cluster.decided_at = status, user, timezone.now()
    cluster.save(update_fields=["status", "decided_by", "decided_at", "updated_at"])


def keep_survivor(*, cluster: Cluster, survivor_id: int, user) -> Cluster:
    """Keep one member as it is; the others fold into it (superseded, their tags and
    provenance carried over) without any merged text. Undoable like any merge."""
    with transaction.atomic():
        cluster = Cluster.objects.select_for_update().get(pk=cluster.pk)
        _refuse_if_decided(cluster)
        members = _open_members(cluster)
        survivor = next((m for m in members if m.pk == survivor_id), None)
        if survivor is None:
            raise DecisionError("the survivor must be a member of the cluster")
        fold = fold_memories(
            survivor=survivor,
            others=[m for m in members if m.pk != survivor.pk],
            edges=cluster.edges,
            action=HistoryEvent.Action.MERGE,
            actor=f"user:{user.get_username()}",
            reason=f"{survivor.external_id} kept as the survivor of cluster {cluster.pk}",
        )
        Cluster.objects.filter(pk=fold.pk).update(status=ClusterStatus.ACCEPTED, decided_by=user)
        _close(cluster, ClusterStatus.ACCEPTED, user)
    return fold


def exclude_member(*, cluster: Cluster, memory_id: int, user) -> None:
    """Take one member out ("uncheck it"): it is remembered as no duplicate of the others;
    a cluster left with one member closes as dismissed."""
    with transaction.atomic():
        cluster = Cluster.objects.select_for_update().get(pk=cluster.pk)
        _refuse_if_decided(cluster)
        members = _open_members(cluster)
        leaving = next((m for m in members if m.pk == memory_id), None)
        if leaving is None:
            raise DecisionError("that memory is not in the cluster")
        ClusterMember.objects.filter(cluster=cluster, memory=leaving).update(excluded=True)
        _log_cluster_decision(
            cluster,
            HistoryEvent.Action.EXCLUDE,
            user,
            f"{leaving.external_id} taken out of cluster {cluster.pk}",
            memory=leaving,
        )
        rest = [m for m in members if m.pk != leaving.pk]
        _remember_apart(cluster, leaving, rest, user, f"excluded by {user.get_username()}")
        if len(rest) < 2:
            _close(cluster, ClusterStatus.DISMISSED, user)
        else:
            MergeProposal.objects.filter(cluster=cluster, status=ProposalStatus.PENDING).update(
                status=ProposalStatus.DISCARDED
            )


def split_cluster(*, cluster: Cluster, user) -> list[Cluster]:
    """Cut the weakest link: the cluster closes as split, and each part of two or more
    members becomes an open cluster of its own; the cut pair is remembered apart."""
    from memadmin.curation import clustering

    with transaction.atomic():
        cluster = Cluster.objects.select_for_update().get(pk=cluster.pk)
        _refuse_if_decided(cluster)
        members = {m.pk: m for m in _open_members(cluster)}
        if len(cluster.weakest_link) != 2:
            raise DecisionError("this cluster has no weakest link to cut")
        low, high = sorted(cluster.weakest_link)
        kept = [
            e
            for e in cluster.edges
            if sorted((e["a"], e["b"])) != [low, high] and e["a"] in members and e["b"] in members
        ]
        edges = [clustering.Edge(e["a"], e["b"], e["similarity"], e["method"]) for e in kept]
        parts = []
        for part, _ in clustering.components(members, edges):
            part_edges = [e for e in kept if e["a"] in part and e["b"] in part]
            # Not open_cluster(): that would grow this very cluster, still open here.
            parts.append(_new_open_cluster(cluster, [members[pk] for pk in part], part_edges))
        if low in members and high in members:
            _remember_apart(
                cluster, members[low], [members[high]], user, f"split by {user.get_username()}"
            )
        _close(cluster, ClusterStatus.SPLIT, user)
    return parts


def _new_open_cluster(parent: Cluster, memories: list[Memory], edges: list[dict]) -> Cluster:
    created = Cluster.objects.create(
        namespace=parent.namespace,
        status=ClusterStatus.OPEN,
        edges=edges,
        min_similarity=min((e["similarity"] for e in edges), default=0.0),
        weakest_link=_weakest(edges),
        flags=sorted({*parent.flags, f"split from #{parent.pk}"}),
    )
    ClusterMember.objects.bulk_create(ClusterMember(cluster=created, memory=m) for m in memories)
    return created


def pin_memory(*, memory: Memory, pinned: bool, user) -> None:
    """Pin (or unpin) a memory: a pinned memory is protected, never merged automatically."""
    with transaction.atomic():
        memory = Memory.objects.select_for_update().defer("embedding").get(pk=memory.pk)
        before = snapshot(memory)
        memory.pinned = pinned
        memory.save(update_fields=["pinned", "updated_at"])
        _log(
            memory,
            HistoryEvent.Action.PIN,
            actor=f"user:{user.get_username()}",
            user=user,
            before=before,
            reason="pinned" if pinned else "unpinned",
        )
