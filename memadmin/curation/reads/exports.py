"""What leaves memadmin: the export_review format, an agent's profile read, and what
detection found in a namespace (evaluate_detection's input).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Prefetch

from memadmin.curation.detection.scoring.representative import representative
from memadmin.curation.models import (
    Cluster,
    ClusterMember,
    ClusterStatus,
    Conflict,
    ConflictStatus,
    MergeProposal,
    Tier,
)
from memadmin.curation.reads.clusters import members_queryset
from memadmin.curation.reads.measured import measured
from memadmin.store.models import Memory, MemoryStatus, Namespace


def review_export(namespace: str | None) -> dict:
    """Every cluster and conflict in the export_review format (DESIGN.md): clusters with
    their members' external ids, weakest similarity, status and latest proposal text;
    each with its tier, confidence and how the pair model weighed it."""
    clusters = Cluster.objects.select_related("namespace").prefetch_related(
        Prefetch("memberships", queryset=members_queryset()),
        Prefetch("proposals", queryset=MergeProposal.objects.order_by("-created_at", "-id")),
    )
    conflicts = Conflict.objects.select_related("namespace", "memory_a", "memory_b").defer(
        "memory_a__embedding",
        "memory_b__embedding",
        "memory_a__embedding_multi",
        "memory_b__embedding_multi",
    )
    if namespace:
        clusters = clusters.filter(namespace__name=namespace)
        conflicts = conflicts.filter(namespace__name=namespace)
    return {
        "clusters": [
            {
                "id": cluster.pk,
                "namespace": cluster.namespace.name,
                "members": [m.memory.external_id for m in cluster.memberships.all()],
                "min_similarity": cluster.min_similarity,
                "status": cluster.status,
                "proposal": next((p.merged_text for p in cluster.proposals.all()), None),
                "tier": cluster.tier,
                "confidence": cluster.confidence,
                "evidence": cluster.evidence,
                # How the pair model weighed its weakest joining pair (the page's waterfall).
                "explanation": cluster.explanation,
            }
            for cluster in clusters.order_by("id")
        ],
        "conflicts": [
            {
                "id": conflict.pk,
                "namespace": conflict.namespace.name,
                "a": conflict.memory_a.external_id,
                "b": conflict.memory_b.external_id,
                "kind": conflict.kind,
                "status": conflict.status,
                "tier": conflict.tier,
                "confidence": conflict.confidence,
                # A copy (status "copy") is the same two texts as this open conflict.
                "copy_of": conflict.copy_of_id,
                "reason": conflict.reason,
                "explanation": conflict.explanation,
            }
            for conflict in conflicts.order_by("id")
        ],
        # The error rate measured against the store's labelled pairs (reads.measured).
        "measured": measured(Namespace.objects.get(name=namespace) if namespace else None),
    }


def profile(namespace: Namespace) -> tuple[list[Memory], list[Conflict]]:
    """(active memories, open conflicts) for an agent's profile read. Of the members of
    an open cluster detection proposed (duplicates awaiting review) only the
    representative is listed; a possible one (doubtful) hides nothing."""
    memories = list(
        Memory.objects.filter(namespace=namespace, status=MemoryStatus.ACTIVE)
        .defer("embedding", "embedding_multi")
        .order_by("created_at", "id")
    )
    by_id = {m.pk: m for m in memories}
    clusters: dict[int, list[Memory]] = {}
    for cluster_id, memory_id in ClusterMember.objects.filter(
        cluster__namespace=namespace,
        cluster__status=ClusterStatus.OPEN,
        cluster__tier=Tier.PROPOSED,
        excluded=False,
    ).values_list("cluster_id", "memory_id"):
        if memory_id in by_id:
            clusters.setdefault(cluster_id, []).append(by_id[memory_id])
    hidden = set()
    for members in clusters.values():
        # Oldest first, as every caller of representative() passes them.
        keep = representative(sorted(members, key=lambda m: (m.created_at, m.pk)))
        hidden.update(m.pk for m in members if m is not keep)
    conflicts = list(
        Conflict.objects.filter(namespace=namespace, status=ConflictStatus.OPEN)
        .select_related("memory_a", "memory_b")
        .defer(
            "memory_a__embedding",
            "memory_b__embedding",
            "memory_a__embedding_multi",
            "memory_b__embedding_multi",
        )
        .order_by("created_at", "id")
    )
    return [m for m in memories if m.pk not in hidden], conflicts


@dataclass
class DetectionOutput:
    """What detection found in one namespace, in external ids (evaluation's input)."""

    namespace: str
    ids: list[str]  # every memory of the namespace, whatever its status
    texts: dict[str, str]
    clusters: list[list[str]]  # every cluster it proposed or merged (a split's parts)
    automatic: list[list[str]]  # those merged without a person (undone ones included)
    conflicts: list[tuple[str, str]]  # every conflict it proposed
    # What it found only possible (the doubtful tier, ranked apart): not proposed.
    possible_clusters: list[list[str]] = field(default_factory=list)
    possible_conflicts: list[tuple[str, str]] = field(default_factory=list)


def detection_output(namespace: Namespace) -> DetectionOutput:
    """The clusters and conflicts detection produced in `namespace`, whatever people did
    with them since (an accepted, dismissed or undone cluster was still found); a split
    cluster counts as its parts."""
    memories = Memory.objects.filter(namespace=namespace).values_list(
        "pk", "external_id", "content"
    )
    external = {pk: external_id for pk, external_id, _ in memories}
    texts = {external_id: content for _, external_id, content in memories}
    members: dict[int, list[str]] = {}
    for cluster_id, memory_id in ClusterMember.objects.filter(
        cluster__namespace=namespace
    ).values_list("cluster_id", "memory_id"):
        members.setdefault(cluster_id, []).append(external[memory_id])
    clusters, automatic, possible_clusters = [], [], []
    # Only an automatic merge ends "unmerged" (a person's reopens when undone).
    merged_by_machine = (ClusterStatus.AUTO_MERGED, ClusterStatus.UNMERGED)
    for cluster_id, status, tier in Cluster.objects.filter(namespace=namespace).values_list(
        "pk", "status", "tier"
    ):
        if status == ClusterStatus.SPLIT or cluster_id not in members:
            continue
        if tier == Tier.POSSIBLE:
            possible_clusters.append(members[cluster_id])
            continue
        clusters.append(members[cluster_id])
        if status in merged_by_machine:
            automatic.append(members[cluster_id])
    conflicts, possible_conflicts = [], []
    for a, b, tier in Conflict.objects.filter(namespace=namespace).values_list(
        "memory_a_id", "memory_b_id", "tier"
    ):
        (possible_conflicts if tier == Tier.POSSIBLE else conflicts).append(
            (external[a], external[b])
        )
    return DetectionOutput(
        namespace.name,
        list(external.values()),
        texts,
        clusters,
        automatic,
        conflicts,
        possible_clusters,
        possible_conflicts,
    )
