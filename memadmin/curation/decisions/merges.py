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
    lock_open_cluster,
    merged_text,
    refuse_if_decided,
    snapshot,
    unsaved,
    unused_external_id,
    update_rows,
)
from memadmin.curation.decisions.memories import embed_text
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
    merged, refused = accept_many([(proposal, text)], user=user, actor=actor)
    if refused:
        raise refused[proposal.cluster_id]
    return merged[proposal.cluster_id]


@dataclass
class _Accepted:
    """One merge of accept_many, checked and about to be written."""

    cluster: Cluster
    proposal: MergeProposal
    members: list[Memory]
    text: str
    edited: bool


def accept_many(
    chosen: Sequence[tuple[MergeProposal, str | None]], *, user, actor: str | None = None
) -> tuple[dict[int, Memory], dict[int, DecisionError]]:
    """Accept each proposal as accept_proposal accepts one (with the curator's text where
    one is given), in a few statements whatever their number: 500 clusters of exact
    copies accepted one by one took 18 s. Returns the merged memories and, for each
    cluster left alone (decided already, members changed or taken by an earlier merge of
    the same call, a text that cannot be stored), why: both by cluster id."""
    if not chosen:
        return {}, {}
    actor = actor or actor_of(user)
    with transaction.atomic():
        checked, refused = _checked_merges(chosen)
        now = timezone.now()
        external_ids = _unused_ids(checked)
        merged = {
            one.cluster.pk: _merged_memory(one, external_ids[one.cluster.pk], now)
            for one in checked
        }
        for one in checked:
            embed_text(merged[one.cluster.pk], among=one.members)
        Memory.objects.bulk_create(merged.values())
        events, superseded = [], []
        for one in checked:
            events += _merge_events(one, merged[one.cluster.pk], now, actor=actor, user=user)
            superseded += one.members
        update_rows(superseded, ["status", "superseded_by", "updated_at"])
        insert_rows(events)
        for one in checked:
            one.proposal.status = ProposalStatus.EDITED if one.edited else ProposalStatus.ACCEPTED
            one.proposal.reviewer, one.proposal.decided_at = user, now
            one.cluster.status, one.cluster.decided_by = ClusterStatus.ACCEPTED, user
            one.cluster.decided_at = one.cluster.updated_at = now
        update_rows([one.proposal for one in checked], ["status", "reviewer", "decided_at"])
        update_rows(
            [one.cluster for one in checked], ["status", "decided_by", "decided_at", "updated_at"]
        )
        overlaps.follow([m.pk for m in superseded], actor=actor, user=user)
    return merged, refused


def _checked_merges(
    chosen: Sequence[tuple[MergeProposal, str | None]],
) -> tuple[list[_Accepted], dict[int, DecisionError]]:
    """The merges that can be made, their clusters, proposals and members locked (read in
    one query each), and why each other one cannot, by cluster id."""
    cluster_ids = [proposal.cluster_id for proposal, _ in chosen]
    clusters = Cluster.objects.select_for_update(of=("self",)).select_related("namespace")
    clusters = {c.pk: c for c in clusters.filter(pk__in=cluster_ids)}
    proposals = MergeProposal.objects.select_for_update()
    proposals = {p.pk: p for p in proposals.filter(pk__in=[p.pk for p, _ in chosen])}
    member_ids: dict[int, list[int]] = {pk: [] for pk in cluster_ids}
    for cluster_id, memory_id in ClusterMember.objects.filter(
        cluster__in=cluster_ids, excluded=False
    ).values_list("cluster_id", "memory_id"):
        member_ids[cluster_id].append(memory_id)
    locked = locked_memories([pk for ids in member_ids.values() for pk in ids])
    checked, refused, taken = [], {}, set()
    for proposal, text in chosen:
        try:
            if proposal.cluster_id not in clusters or proposal.pk not in proposals:
                raise StaleDecision("there is no such cluster with this proposal")
            one = _check_one(
                clusters[proposal.cluster_id],
                proposals[proposal.pk],
                [locked.get(pk) for pk in member_ids[proposal.cluster_id]],
                text,
                taken,
            )
        except DecisionError as problem:
            refused[proposal.cluster_id] = problem
            continue
        taken.update(m.pk for m in one.members)
        checked.append(one)
    _read_vectors_of_copies(checked)
    return checked, refused


def _check_one(cluster, proposal, members, text: str | None, taken: set[int]) -> _Accepted:
    """One merge as accept_many will make it, or why it cannot be made (DecisionError):
    decided already, a member missing or no longer active (or `taken` by an earlier merge
    of the same call, as it would be for a decision made after that one), the members
    changed since the proposal, or a text that cannot be stored."""
    refuse_if_decided(cluster)
    inactive = sorted(
        m.external_id for m in members if m and (m.status != MemoryStatus.ACTIVE or m.pk in taken)
    )
    if inactive or None in members:
        raise DecisionError(f"no longer active: {', '.join(inactive) or 'missing rows'}")
    members = sorted(members, key=lambda m: (m.created_at, m.pk))
    if len(members) < 2 or MergeProposal.fingerprint(members) != proposal.members_fingerprint:
        raise StaleDecision("the members changed since this proposal was written; refresh it")
    stored = merged_text(text if text is not None else proposal.merged_text)
    edited = text is not None and stored != proposal.merged_text.strip()
    return _Accepted(cluster, proposal, members, stored, edited)


def _read_vectors_of_copies(checked: list[_Accepted]) -> None:
    """The vectors of members whose text is the merged text, read in one query: the merged
    memory takes them (embed_text) rather than encoding its text again."""
    copies = {
        m.pk: m for one in checked for m in one.members if m.content_hash == content_hash(one.text)
    }
    for pk, *vectors in Memory.objects.filter(pk__in=list(copies)).values_list(
        "pk", "embedding", "embedding_multi"
    ):
        copies[pk].embedding, copies[pk].embedding_multi = vectors


def _unused_ids(checked: list[_Accepted]) -> dict[int, str]:
    """Each merge's new external id, `merged-<cluster>-<proposal>`, or the first of
    `-2`...`-20` after it that no memory holds (a merge undone keeps its retired memory and
    id), looked up in one query; unused_external_id for the rare one past those."""
    wanted = {one.cluster.pk: f"merged-{one.cluster.pk}-{one.proposal.pk}" for one in checked}
    candidates = {
        pk: [base, *(f"{base}-{number}" for number in range(2, 21))] for pk, base in wanted.items()
    }
    held = set(
        Memory.objects.filter(
            namespace_id__in={one.cluster.namespace_id for one in checked},
            external_id__in=[name for names in candidates.values() for name in names],
        ).values_list("namespace_id", "external_id")
    )
    for one in checked:
        namespace_id, names = one.cluster.namespace_id, candidates[one.cluster.pk]
        free = next((name for name in names if (namespace_id, name) not in held), None)
        wanted[one.cluster.pk] = free or unused_external_id(namespace_id, names[0])
    return wanted


def _merge_events(one: _Accepted, merged: Memory, now, *, actor, user) -> list[HistoryEvent]:
    """A merge's events, unsaved: `merge` for the new memory, `supersede` for each member
    (the members are changed here, written by the caller)."""
    proposal = one.proposal
    reason = "merge accepted" + (" with the curator's text" if one.edited else "")
    events = [
        event(
            merged,
            HistoryEvent.Action.MERGE,
            actor=actor,
            user=user,
            reason=reason,
            llm_model=proposal.llm_model,
            prompt_version=proposal.prompt_version,
            related_memory_ids=[m.pk for m in one.members],
            cluster=one.cluster,
        )
    ]
    for member in one.members:
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
                cluster=one.cluster,
            )
        )
    return events


def _merged_memory(one: _Accepted, external_id: str, now) -> Memory:
    """The memory a merge makes (not saved): the merged text, the newest member's
    metadata, the highest importance and confidence, the tags and provenance of all."""
    members, newest = one.members, one.members[-1]
    return Memory(
        namespace=one.cluster.namespace,
        external_id=external_id,
        content=one.text,
        content_hash=content_hash(one.text),
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
