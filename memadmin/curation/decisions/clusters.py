"""Clusters for review: opening and growing them (detection), their merge proposals, and
the curator's decisions that change no memory: dismiss, exclude a member, split."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from memadmin.curation import clustering
from memadmin.curation.decisions.history import (
    DecisionError,
    lock_open_cluster,
    log_cluster_decision,
)
from memadmin.curation.decisions.verdicts import remember_apart
from memadmin.curation.models import (
    Cluster,
    ClusterMember,
    ClusterStatus,
    HistoryEvent,
    MergeProposal,
    ProposalStatus,
)
from memadmin.curation.queries import cluster_members
from memadmin.store.models import Memory, Namespace


def weakest(edges: list[dict]) -> list[int]:
    """The two members of the lowest similarity: where a split would cut."""
    if not edges:
        return []
    lowest = min(edges, key=lambda e: e["similarity"])
    return [lowest["a"], lowest["b"]]


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
                weakest_link=weakest(p.edges),
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
    cluster.weakest_link = weakest(cluster.edges)
    cluster.flags = sorted(set(cluster.flags) | set(proposed.flags))
    cluster.save()
    return cluster


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
            members_fingerprint=MergeProposal.fingerprint(members),
            status=ProposalStatus.DISCARDED if draft.discarded else ProposalStatus.PENDING,
        )


def close(cluster: Cluster, status: str, user) -> None:
    """Mark a locked open cluster decided; its pending proposals are discarded."""
    MergeProposal.objects.filter(cluster=cluster, status=ProposalStatus.PENDING).update(
        status=ProposalStatus.DISCARDED
    )
    cluster.status, cluster.decided_by, cluster.decided_at = status, user, timezone.now()
    cluster.save(update_fields=["status", "decided_by", "decided_at", "updated_at"])


def dismiss_cluster(*, cluster: Cluster, user, reason: str = "") -> None:
    """A curator says the members are not duplicates: the cluster closes, and every pair
    of its members is remembered (PairVerdict `not_duplicate`, by content hash), so the
    same pairs are never proposed again. No memory changes. Refuses with StaleDecision
    when someone decided first."""
    with transaction.atomic():
        cluster = lock_open_cluster(cluster)
        members = cluster_members(cluster)
        why = reason or f"dismissed by {user.get_username()}"
        for position, member in enumerate(members):
            remember_apart(cluster.namespace, member, members[position + 1 :], user, why)
        MergeProposal.objects.filter(cluster=cluster, status=ProposalStatus.PENDING).update(
            status=ProposalStatus.DISMISSED, reviewer=user, decided_at=timezone.now()
        )
        cluster.status = ClusterStatus.DISMISSED
        cluster.decided_by, cluster.decided_at = user, timezone.now()
        cluster.save(update_fields=["status", "decided_by", "decided_at", "updated_at"])
        log_cluster_decision(cluster, HistoryEvent.Action.DISMISS, user, reason or "not duplicates")


def exclude_member(*, cluster: Cluster, memory_id: int, user) -> None:
    """Take one member out ("uncheck it"): it is remembered as no duplicate of the others;
    a cluster left with one member closes as dismissed."""
    with transaction.atomic():
        cluster = lock_open_cluster(cluster)
        members = cluster_members(cluster)
        leaving = next((m for m in members if m.pk == memory_id), None)
        if leaving is None:
            raise DecisionError("that memory is not in the cluster")
        ClusterMember.objects.filter(cluster=cluster, memory=leaving).update(excluded=True)
        log_cluster_decision(
            cluster,
            HistoryEvent.Action.EXCLUDE,
            user,
            f"{leaving.external_id} taken out of cluster {cluster.pk}",
            memory=leaving,
        )
        rest = [m for m in members if m.pk != leaving.pk]
        remember_apart(cluster.namespace, leaving, rest, user, f"excluded by {user.get_username()}")
        if len(rest) < 2:
            close(cluster, ClusterStatus.DISMISSED, user)
        else:
            MergeProposal.objects.filter(cluster=cluster, status=ProposalStatus.PENDING).update(
                status=ProposalStatus.DISCARDED
            )


def split_cluster(*, cluster: Cluster, user) -> list[Cluster]:
    """Cut the weakest link: the cluster closes as split, and each part of two or more
    members becomes an open cluster of its own; the cut pair is remembered apart."""
    with transaction.atomic():
        cluster = lock_open_cluster(cluster)
        members = {m.pk: m for m in cluster_members(cluster)}
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
            remember_apart(
                cluster.namespace,
                members[low],
                [members[high]],
                user,
                f"split by {user.get_username()}",
            )
        close(cluster, ClusterStatus.SPLIT, user)
    return parts


def _new_open_cluster(parent: Cluster, memories: list[Memory], edges: list[dict]) -> Cluster:
    created = Cluster.objects.create(
        namespace=parent.namespace,
        status=ClusterStatus.OPEN,
        edges=edges,
        min_similarity=min((e["similarity"] for e in edges), default=0.0),
        weakest_link=weakest(edges),
        flags=sorted({*parent.flags, f"split from #{parent.pk}"}),
    )
    ClusterMember.objects.bulk_create(ClusterMember(cluster=created, memory=m) for m in memories)
    return created
