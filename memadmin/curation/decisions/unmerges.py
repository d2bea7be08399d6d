"""Undoing merges: any one fold (exact collapse, automatic or accepted merge) taken back
exactly, or many at once in a few statements (a bulk action's undo)."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone

from memadmin.curation.decisions import overlaps
from memadmin.curation.decisions.history import (
    DecisionError,
    insert_rows,
    snapshot,
    undo_event,
    update_rows,
)
from memadmin.curation.decisions.verdicts import remember_apart
from memadmin.curation.models import (
    Cluster,
    ClusterStatus,
    HistoryEvent,
    MergeProposal,
    ProposalStatus,
)
from memadmin.store.models import Memory, MemoryStatus
from memadmin.store.text import content_hash

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
    Refuses with DecisionError, changing nothing, when it cannot.
    """
    refused = unmerge_many([cluster.pk], actor=actor, user=user, reason=reason)
    if refused:
        raise DecisionError(refused[cluster.pk])


def unmerge_many(ids: Sequence[int], *, actor: str, user=None, reason: str = "") -> dict[int, str]:
    """Undo the folds of many clusters as `unmerge` undoes one, in a few statements
    whatever their number (a batch of 50 undone cluster by cluster took 2.8 s): each
    cluster that cannot be undone is left alone, and why is returned by its id."""
    with transaction.atomic():
        clusters = list(Cluster.objects.select_for_update().filter(pk__in=ids).order_by("id"))
        refused = {
            c.pk: f"cluster {c.pk} is {c.status}, not a merge"
            for c in clusters
            if c.status not in (ClusterStatus.AUTO_MERGED, ClusterStatus.ACCEPTED)
        }
        refused.update(
            {pk: f"there is no cluster {pk}" for pk in set(ids) - {c.pk for c in clusters}}
        )
        clusters = [c for c in clusters if c.pk not in refused]
        events_of = _fold_events(clusters)
        memories = {
            m.pk: m
            for m in Memory.objects.select_for_update().filter(
                pk__in=[e.memory_id for events in events_of.values() for e in events]
            )
        }
        for cluster in clusters:
            why = _why_not_undone(events_of[cluster.pk], memories)
            if why:
                refused[cluster.pk] = why
        clusters = [c for c in clusters if c.pk not in refused]
        undone = [e for c in clusters for e in events_of[c.pk]]
        undo_events = _restore_survivors(
            [(memories[e.memory_id], e) for e in undone if e.action != _SUPERSEDE],
            actor=actor,
            user=user,
            reason=reason,
        )
        undo_events += _restore_folded(
            [(memories[e.memory_id], e) for e in undone if e.action == _SUPERSEDE],
            actor=actor,
            user=user,
            reason=reason,
        )
        insert_rows(undo_events)
        _reopen_or_close(clusters, events_of, memories, user)
        overlaps.follow([e.memory_id for e in undone], actor=actor, user=user)
    return refused


_SUPERSEDE = HistoryEvent.Action.SUPERSEDE


def _fold_events(clusters: Sequence[Cluster]) -> dict[int, list[HistoryEvent]]:
    """Each cluster's fold events, by cluster id: not undo events, and not those of an
    earlier merge of the same cluster that was undone already (a reopened cluster merged
    again). Only the fold's own: an exclusion or an overtaken member of the same cluster
    is no part of the merge (undoing it as one retired that member)."""
    events_of: dict[int, list[HistoryEvent]] = {c.pk: [] for c in clusters}
    for found in (
        HistoryEvent.objects.filter(
            cluster__in=[c.pk for c in clusters], undoes__isnull=True, action__in=_FOLD_ACTIONS
        )
        .exclude(undone_by__isnull=False)
        .order_by("id")
    ):
        events_of[found.cluster_id].append(found)
    return events_of


def _why_not_undone(events: list[HistoryEvent], memories: dict[int, Memory]) -> str:
    """Why a fold cannot be undone now ("" when it can): one of its memories changed
    after it, or its survivor was folded again (that later merge is undone first)."""
    for undone in events:
        memory = memories[undone.memory_id]
        if undone.action == _SUPERSEDE:
            if (
                memory.status != MemoryStatus.SUPERSEDED
                or memory.superseded_by_id != undone.after["superseded_by_id"]
            ):
                return f"{memory.external_id} changed after this merge; undo the later change first"
        elif memory.status != MemoryStatus.ACTIVE:
            later = memory.superseded_by.external_id if memory.superseded_by_id else "?"
            return (
                f"{memory.external_id} was merged again later (into {later}); undo that merge first"
            )
    return ""


def _reopen_or_close(clusters, events_of, memories, user) -> None:
    """The undone clusters' new state: an automatic merge's stays closed as `unmerged`
    (its pairs remembered apart: never redone); a person's goes back to the queue, to be
    decided again, with the proposal it was merged from pending again (as it was)."""
    now = timezone.now()
    proposals = {}
    for proposal in MergeProposal.objects.filter(
        cluster__in=[c.pk for c in clusters if c.status == ClusterStatus.ACCEPTED]
    ).order_by("id"):
        proposals.setdefault(proposal.cluster_id, []).append(proposal)
    pending_again = []
    for cluster in clusters:
        if cluster.status == ClusterStatus.AUTO_MERGED:
            _remember_undone(cluster, events_of[cluster.pk], memories, user)
            cluster.status, cluster.decided_by, cluster.decided_at = (
                ClusterStatus.UNMERGED,
                user,
                now,
            )
        else:
            cluster.status, cluster.decided_by, cluster.decided_at = ClusterStatus.OPEN, None, None
            its = proposals.get(cluster.pk, [])
            taken = [p for p in its if p.status in (ProposalStatus.ACCEPTED, ProposalStatus.EDITED)]
            if taken and not any(p.status == ProposalStatus.PENDING for p in its):
                taken[0].status, taken[0].reviewer, taken[0].decided_at = (
                    ProposalStatus.PENDING,
                    None,
                    None,
                )
                pending_again.append(taken[0])
        cluster.updated_at = now
    update_rows(pending_again, ["status", "reviewer", "decided_at"])
    update_rows(clusters, ["status", "decided_by", "decided_at", "updated_at"])


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


def _restore_folded(
    folded: list[tuple[Memory, HistoryEvent]], *, actor, user, reason
) -> list[HistoryEvent]:
    """The folded memories as they were before the fold, in one write; their `unmerge`
    events returned, unsaved (a merge of many copies wrote a row each)."""
    now, events = timezone.now(), []
    for memory, undone in folded:
        before = snapshot(memory)
        memory.status = undone.before["status"]
        memory.superseded_by_id = undone.before["superseded_by_id"]
        memory.updated_at = now
        said = reason or "merge undone"
        events.append(undo_event(memory, before, undone, actor=actor, user=user, reason=said))
    update_rows([memory for memory, _ in folded], ["status", "superseded_by", "updated_at"])
    return events


def _restore_survivors(
    survivors: list[tuple[Memory, HistoryEvent]], *, actor, user, reason
) -> list[HistoryEvent]:
    """The survivors without what their folds gave them; their `unmerge` events returned,
    unsaved. A memory a merge created is retired (never deleted): all of them in one write."""
    now, events, retired = timezone.now(), [], []
    for memory, undone in survivors:
        before = snapshot(memory)
        if undone.before is None:
            memory.status, memory.updated_at = MemoryStatus.DELETED, now
            retired.append(memory)
            said = reason or "merge undone: the merged memory is retired"
        else:
            _take_back_fold(memory, undone)
            memory.save()
            said = reason or "merge undone"
        events.append(undo_event(memory, before, undone, actor=actor, user=user, reason=said))
    update_rows(retired, ["status", "updated_at"])
    return events


def _take_back_fold(memory: Memory, undone: HistoryEvent) -> None:
    """What a fold gave a survivor that already existed, taken back, unless a later change
    replaced it (not saved)."""
    given, taken = undone.after, undone.before
    before_content = memory.content
    for name in ("content", "category", "importance", "confidence", "access_count"):
        # Only undo what this fold set and nothing has changed since.
        if getattr(memory, name) == given[name]:
            setattr(memory, name, taken[name])
    if memory.content != before_content:
        memory.content_hash = content_hash(memory.content)
    for name in ("tags", "provenance"):
        added = [item for item in given[name] if item not in taken[name]]
        setattr(memory, name, [item for item in getattr(memory, name) if item not in added])
