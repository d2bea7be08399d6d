"""Merges and their undoing: folding memories into a survivor (exact collapses, automatic
merges, "keep this one"), accepting a proposal's merged text, and unmerge, which undoes
any one of them exactly."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from memadmin.curation.decisions import overlaps
from memadmin.curation.decisions.clusters import close, weakest
from memadmin.curation.decisions.history import (
    DecisionError,
    StaleDecision,
    actor_of,
    event,
    insert_rows,
    lock_active,
    lock_open_cluster,
    log_undo,
    merged_text,
    snapshot,
    undo_event,
    unsaved,
    unused_external_id,
    update_rows,
)
from memadmin.curation.decisions.memories import embed_text
from memadmin.curation.decisions.verdicts import remember_apart
from memadmin.curation.models import (
    Cluster,
    ClusterMember,
    ClusterStatus,
    HistoryEvent,
    MergeProposal,
    ProposalStatus,
)
from memadmin.curation.reads.clusters import cluster_members
from memadmin.store.models import Memory, MemoryStatus
from memadmin.store.queries import locked_memories
from memadmin.store.text import content_hash
from memadmin.store.validation import capped_sum

logger = logging.getLogger("memadmin.curation")

# What a fold changes on the survivor.
FOLDED_FIELDS = ["tags", "provenance", "importance", "confidence", "access_count"]


@dataclass
class Fold:
    """One fold to make: `others` into `survivor` (see fold_memories)."""

    survivor: Memory
    others: Sequence[Memory]
    edges: list[dict]
    action: str  # collapse | merge
    reason: str
    into: Cluster | None = None  # a reviewed cluster a curator folded (else a new one)


def fold_memories(
    *,
    survivor: Memory,
    others: Sequence[Memory],
    edges: list[dict],
    action: str,
    actor: str,
    reason: str,
    run_id: int | None = None,
    into: Cluster | None = None,
) -> Cluster:
    """Fold `others` into `survivor` (an exact collapse or an automatic merge): the
    survivor keeps its text and gains the others' tags, provenance and sessions, the
    maximum importance and confidence; the others become superseded by it.

    Side effects, in one transaction: updates the survivor and supersedes the others
    (each with a history event holding before and after), and records an `auto_merged`
    Cluster whose events an unmerge reads. Refuses (DecisionError, nothing changed) when
    any memory is no longer active.
    """
    fold = Fold(survivor, others, edges, action, reason, into)
    (cluster,), refused = fold_many([fold], actor=actor, run_id=run_id)
    if refused:
        raise DecisionError(refused[0][1])
    return cluster


def fold_many(
    folds: Sequence[Fold], *, actor: str, run_id: int | None = None
) -> tuple[list[Cluster], list[tuple[Fold, str]]]:
    """Make many folds at once, in order, as fold_memories would one by one, with
    set-based statements: one lock of every memory involved, then bulk updates and bulk
    inserts (a batch run folds thousands: a transaction and a few queries for each took
    most of its time). A fold whose memories are no longer active (or were folded by an
    earlier fold of the batch) is left out, with the reason; the others are made all
    together or not at all.

    Returns the clusters recording the folds made, and the (fold, reason) left out."""
    now = timezone.now()
    with transaction.atomic():
        ids = {m.pk for fold in folds for m in (fold.survivor, *fold.others)}
        locked = locked_memories(ids)
        made, refused, events, superseded = [], [], [], []
        survivors: dict[int, Memory] = {}
        befores: dict[int, dict] = {}
        new_clusters: list[tuple[Cluster, list[Memory]]] = []
        for fold in folds:
            involved = [fold.survivor.pk, *(m.pk for m in fold.others)]
            gone = sorted(
                locked[pk].external_id if pk in locked else "missing rows"
                for pk in involved
                if pk not in locked or locked[pk].status != MemoryStatus.ACTIVE
            )
            if gone:
                refused.append((fold, f"no longer active: {', '.join(gone)}"))
                continue
            survivor, others = locked[fold.survivor.pk], [locked[m.pk] for m in fold.others]
            cluster = fold.into
            if cluster is None:
                cluster = _auto_merged_cluster(survivor, fold, now)
                new_clusters.append((cluster, [survivor, *others]))
            befores.setdefault(survivor.pk, {f: getattr(survivor, f) for f in FOLDED_FIELDS})
            events.extend(_fold_one(survivor, others, fold, cluster, actor))
            survivors[survivor.pk] = survivor
            superseded.extend(others)
            made.append(cluster)
        # updated_at stays on survivors: what the run itself changed is no news for the
        # next incremental run (else a survivor would be compared again and chain merges).
        # A survivor that gains nothing (same tags, no new provenance...) is not rewritten.
        update_rows([m for m in survivors.values() if _gained(m, befores[m.pk])], FOLDED_FIELDS)
        for other in superseded:
            other.updated_at = now
        update_rows(superseded, ["status", "superseded_by", "updated_at"])
        insert_rows([cluster for cluster, _ in new_clusters])
        insert_rows(
            [
                unsaved(ClusterMember, cluster=cluster, memory=m)
                for cluster, members in new_clusters
                for m in members
            ]
        )
        insert_rows(events)
        overlaps.follow(
            [m.pk for m in superseded],
            actor=actor,
            deciding=[fold.into.pk for fold in folds if fold.into is not None],
        )
    left_out = {id(fold) for fold, _ in refused}
    # One line per fold at DEBUG only: a batch run makes tens of thousands (the INFO
    # summary per namespace is find_duplicates'), and their arguments cost if built.
    for fold in folds if logger.isEnabledFor(logging.DEBUG) else ():
        if id(fold) not in left_out:
            logger.debug(
                "DEDUP_MERGE namespace=%s action=%s survivor=%s folded=%s run=%s",
                fold.survivor.namespace_id,
                fold.action,
                fold.survivor.external_id,
                ",".join(m.external_id for m in fold.others),
                run_id,
            )
    return made, refused


def _gained(survivor: Memory, before: dict) -> bool:
    return any(getattr(survivor, name) != value for name, value in before.items())


def _auto_merged_cluster(survivor: Memory, fold: Fold, now) -> Cluster:
    """The (unsaved) cluster that records an automatic fold, for unmerge to read."""
    return unsaved(
        Cluster,
        namespace_id=survivor.namespace_id,
        status=ClusterStatus.AUTO_MERGED,
        edges=fold.edges,
        min_similarity=min((e["similarity"] for e in fold.edges), default=1.0),
        weakest_link=weakest(fold.edges),
        flags=[fold.action],
        decided_at=now,
    )


def _fold_one(
    survivor: Memory, others: list[Memory], fold: Fold, cluster: Cluster, actor: str
) -> list[HistoryEvent]:
    """One fold on the locked memories, in memory (the caller writes them): the survivor
    gains the others' tags, provenance, maximum importance and confidence, and summed
    access counts; the others are superseded by it. Returns its history events."""
    before = snapshot(survivor)
    for other in others:
        survivor.tags = survivor.tags + [t for t in other.tags if t not in survivor.tags]
        survivor.provenance = survivor.provenance + [
            entry for entry in other.provenance if entry not in survivor.provenance
        ]
        survivor.importance = max(survivor.importance, other.importance)
        survivor.confidence = max(survivor.confidence, other.confidence)
        survivor.access_count = capped_sum([survivor.access_count, other.access_count])
    events = [
        event(
            survivor,
            fold.action,
            actor=actor,
            before=before,
            reason=fold.reason,
            related_memory_ids=[m.pk for m in others],
            cluster=cluster,
        )
    ]
    for other in others:
        other_before = snapshot(other)
        other.status, other.superseded_by_id = MemoryStatus.SUPERSEDED, survivor.pk
        events.append(
            event(
                other,
                HistoryEvent.Action.SUPERSEDE,
                actor=actor,
                before=other_before,
                reason=fold.reason,
                related_memory_ids=[survivor.pk],
                cluster=cluster,
            )
        )
    return events


def keep_survivor(*, cluster: Cluster, survivor_id: int, user) -> Cluster:
    """Keep one member as it is; the others fold into it (superseded, their tags and
    provenance carried over) without any merged text. Undoable like any merge.
    Side effects: the fold (see fold_memories, recorded as its own accepted cluster), and
    the reviewed cluster closes as accepted."""
    with transaction.atomic():
        cluster = lock_open_cluster(cluster)
        members = cluster_members(cluster)
        survivor = next((m for m in members if m.pk == survivor_id), None)
        if survivor is None:
            raise DecisionError("the survivor must be a member of the cluster")
        # The fold is recorded on the reviewed cluster itself: history, the undo button
        # and the cluster's page all name this one cluster.
        fold_memories(
            survivor=survivor,
            others=[m for m in members if m.pk != survivor.pk],
            edges=cluster.edges,
            action=HistoryEvent.Action.MERGE,
            actor=actor_of(user),
            reason=f"{survivor.external_id} kept as the survivor of cluster {cluster.pk}",
            into=cluster,
        )
        close(cluster, ClusterStatus.ACCEPTED, user)
    return cluster


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
    actor = actor or actor_of(user)
    with transaction.atomic():
        cluster = lock_open_cluster(Cluster(pk=proposal.cluster_id))
        proposal = MergeProposal.objects.select_for_update().get(pk=proposal.pk)
        # The members' ids only: their rows are read once, locked, just below.
        member_ids = list(
            ClusterMember.objects.filter(cluster=cluster, excluded=False).values_list(
                "memory_id", flat=True
            )
        )
        members = (
            sorted(lock_active(member_ids).values(), key=lambda m: (m.created_at, m.pk))
            if member_ids
            else []
        )
        if len(members) < 2 or MergeProposal.fingerprint(members) != proposal.members_fingerprint:
            raise StaleDecision("the members changed since this proposal was written; refresh it")
        text_of_merge = merged_text(text if text is not None else proposal.merged_text)
        now = timezone.now()
        merged = _merged_memory(cluster, proposal, members, text_of_merge, now)
        embed_text(merged, among=members)
        merged.save()
        edited = text is not None and text_of_merge != proposal.merged_text.strip()
        reason = "merge accepted" + (" with the curator's text" if edited else "")
        events = [
            event(
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
            member.updated_at = now
            events.append(
                event(
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
        update_rows(members, ["status", "superseded_by", "updated_at"])
        insert_rows(events)
        proposal.status = ProposalStatus.EDITED if edited else ProposalStatus.ACCEPTED
        proposal.reviewer, proposal.decided_at = user, now
        proposal.save(update_fields=["status", "reviewer", "decided_at"])
        cluster.status, cluster.decided_by, cluster.decided_at = ClusterStatus.ACCEPTED, user, now
        cluster.save(update_fields=["status", "decided_by", "decided_at", "updated_at"])
        overlaps.follow(member_ids, actor=actor, user=user)
    return merged


def _merged_memory(cluster, proposal, members, text: str, now) -> Memory:
    """The memory a merge makes (not saved): the merged text, the newest member's
    metadata, the highest importance and confidence, the tags and provenance of all."""
    newest = members[-1]
    return Memory(
        namespace=cluster.namespace,
        external_id=unused_external_id(cluster.namespace_id, f"merged-{cluster.pk}-{proposal.pk}"),
        content=text,
        content_hash=content_hash(text),
        category=newest.category,
        source_ref=newest.source_ref,
        session_id=newest.session_id,
        metadata=newest.metadata,
        created_at=now,
        valid_from=newest.valid_from,
        valid_until=newest.valid_until,
        importance=max(m.importance for m in members),
        confidence=max(m.confidence for m in members),
        access_count=capped_sum(m.access_count for m in members),
        pinned=any(m.pinned for m in members),
        tags=list(dict.fromkeys(tag for m in members for tag in m.tags)),
        provenance=[entry for m in members for entry in m.provenance],
    )


_FOLD_ACTIONS = (
    HistoryEvent.Action.MERGE,
    HistoryEvent.Action.COLLAPSE,
    HistoryEvent.Action.SUPERSEDE,
)


def unmerge(*, cluster: Cluster, actor: str, user=None, reason: str = "") -> None:
    """Undo one fold (exact collapse, automatic or accepted merge): the folded memories
    become active again exactly as they were, and the survivor loses what the fold gave
    it (tags, provenance, importance, confidence, access count) unless later changes
    replaced those values. Works whatever merges came after, as long as none of this
    fold's memories was folded again since (then that later merge must be undone first).

    Side effects, in one transaction: restores memories, writes an `unmerge` event per
    memory pointing at the event it undoes; an automatic merge's cluster becomes
    `unmerged` (and its pairs are remembered apart), a person's reopens for review.
    """
    with transaction.atomic():
        cluster = Cluster.objects.select_for_update().get(pk=cluster.pk)
        if cluster.status not in (ClusterStatus.AUTO_MERGED, ClusterStatus.ACCEPTED):
            raise DecisionError(f"cluster {cluster.pk} is {cluster.status}, not a merge")
        events = list(
            # This merge's events: not undo events, and not those of an earlier merge of
            # the same cluster that was undone already (a reopened cluster merged again).
            # Only the fold's own events: an exclusion or an overtaken member of the same
            # cluster is no part of the merge (undoing it as one retired that member).
            HistoryEvent.objects.filter(
                cluster=cluster, undoes__isnull=True, action__in=_FOLD_ACTIONS
            )
            .exclude(undone_by__isnull=False)
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
        for undone in superseded:
            memory = memories[undone.memory_id]
            if (
                memory.status != MemoryStatus.SUPERSEDED
                or memory.superseded_by_id != undone.after["superseded_by_id"]
            ):
                raise DecisionError(
                    f"{memory.external_id} changed after this merge; undo the later change first"
                )
        for undone in events:
            if undone.action == HistoryEvent.Action.SUPERSEDE:
                continue
            memory = memories[undone.memory_id]
            if memory.status != MemoryStatus.ACTIVE:
                later = memory.superseded_by.external_id if memory.superseded_by else "?"
                raise DecisionError(
                    f"{memory.external_id} was merged again later (into {later}); "
                    "undo that merge first"
                )
            _restore_survivor(memory, undone, actor=actor, user=user, reason=reason)
        _restore_folded(
            [(memories[undone.memory_id], undone) for undone in superseded],
            actor=actor,
            user=user,
            reason=reason,
        )
        if cluster.status == ClusterStatus.AUTO_MERGED:
            # Undone automatic work is remembered and stays closed.
            _remember_undone(cluster, events, memories, user)
            cluster.status = ClusterStatus.UNMERGED
            cluster.decided_by = user
            cluster.decided_at = timezone.now()
        else:
            # A person's merge undone: the cluster goes back to the queue, to decide again,
            # with the proposal it was merged from pending again (as it was).
            cluster.status, cluster.decided_by, cluster.decided_at = ClusterStatus.OPEN, None, None
            taken = cluster.proposals.filter(
                status__in=[ProposalStatus.ACCEPTED, ProposalStatus.EDITED]
            ).first()
            if taken and not cluster.proposals.filter(status=ProposalStatus.PENDING).exists():
                taken.status, taken.reviewer, taken.decided_at = ProposalStatus.PENDING, None, None
                taken.save(update_fields=["status", "reviewer", "decided_at"])
        cluster.save(update_fields=["status", "decided_by", "decided_at", "updated_at"])
        overlaps.follow(memories, actor=actor, user=user)


def _remember_undone(cluster: Cluster, events, memories, user) -> None:
    """An automatic fold someone undid is never redone: each (survivor, folded) pair is
    remembered as not a duplicate, also when the two texts are the same (an exact
    collapse); the next run leaves them apart."""
    survivor = next(
        memories[e.memory_id] for e in events if e.action != HistoryEvent.Action.SUPERSEDE
    )
    folded = [memories[e.memory_id] for e in events if e.action == HistoryEvent.Action.SUPERSEDE]
    remember_apart(
        cluster.namespace,
        survivor,
        folded,
        user,
        f"automatic merge #{cluster.pk} undone",
        same_text=True,
    )


def _restore_folded(folded: list[tuple[Memory, HistoryEvent]], *, actor, user, reason) -> None:
    """The folded memories as they were before the fold, in one write, and their
    `unmerge` events in one insert (a merge of many copies wrote a row each)."""
    now, events = timezone.now(), []
    for memory, undone in folded:
        before = snapshot(memory)
        memory.status = undone.before["status"]
        memory.superseded_by_id = undone.before["superseded_by_id"]
        memory.updated_at = now
        said = reason or "merge undone"
        events.append(undo_event(memory, before, undone, actor=actor, user=user, reason=said))
    update_rows([memory for memory, _ in folded], ["status", "superseded_by", "updated_at"])
    insert_rows(events)


def _restore_survivor(memory: Memory, undone: HistoryEvent, *, actor, user, reason) -> None:
    before = snapshot(memory)
    given, taken = undone.after, undone.before
    if taken is None:
        # The merge created this memory: undoing it retires the memory (never deleted).
        memory.status = MemoryStatus.DELETED
        memory.save(update_fields=["status", "updated_at"])
        reason = reason or "merge undone: the merged memory is retired"
        log_undo(memory, before, undone, actor=actor, user=user, reason=reason)
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
    log_undo(memory, before, undone, actor=actor, user=user, reason=reason or "merge undone")
