"""Named read queries over curation's tables."""

from __future__ import annotations

from django.db.models import Count, Prefetch, Q

from memadmin.curation.models import (
    Cluster,
    ClusterMember,
    ClusterStatus,
    Conflict,
    MergeProposal,
    ProposalStatus,
)


def review_export(namespace: str | None) -> dict:
    """Every cluster and conflict in the export_review format (DESIGN.md): clusters with
    their members' external ids, weakest similarity, status and latest proposal text."""
    clusters = Cluster.objects.select_related("namespace").prefetch_related(
        Prefetch(
            "memberships",
            queryset=ClusterMember.objects.filter(excluded=False)
            .select_related("memory")
            .order_by("memory__created_at", "memory_id"),
        ),
        Prefetch("proposals", queryset=MergeProposal.objects.order_by("-created_at", "-id")),
    )
    conflicts = Conflict.objects.select_related("namespace", "memory_a", "memory_b")
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
            }
            for conflict in conflicts.order_by("id")
        ],
    }


def clusters_needing_proposals(namespace: str | None, *, limit: int) -> list[tuple[Cluster, list]]:
    """Open clusters, oldest first, whose members (active, not excluded) have no pending
    proposal written from them; with those members, oldest to newest."""
    from memadmin.curation.decisions import members_fingerprint
    from memadmin.store.models import MemoryStatus

    clusters = (
        Cluster.objects.filter(status=ClusterStatus.OPEN)
        .prefetch_related(
            Prefetch(
                "memberships",
                queryset=ClusterMember.objects.filter(
                    excluded=False, memory__status=MemoryStatus.ACTIVE
                )
                .select_related("memory")
                .order_by("memory__created_at", "memory_id"),
            ),
            Prefetch(
                "proposals",
                queryset=MergeProposal.objects.filter(status=ProposalStatus.PENDING),
            ),
        )
        .order_by("created_at", "id")
    )
    if namespace:
        clusters = clusters.filter(namespace__name=namespace)
    found = []
    for cluster in clusters.iterator(chunk_size=500):
        members = [m.memory for m in cluster.memberships.all()]
        if len(members) < 2:
            continue
        fingerprint = members_fingerprint(members)
        if any(p.members_fingerprint == fingerprint for p in cluster.proposals.all()):
            continue
        found.append((cluster, members))
        if len(found) >= limit:
            break
    return found


QUEUE_SORTS = {
    "closest": ("-min_similarity", "id"),
    "weakest": ("min_similarity", "id"),
    "newest": ("-created_at", "-id"),
    "largest": ("-size", "-min_similarity", "id"),
}


def cluster_queue(
    *,
    namespace: str | None = None,
    status: str = ClusterStatus.OPEN,
    min_similarity: float | None = None,
    max_similarity: float | None = None,
    size: int | None = None,
    category: str = "",
    protected: bool | None = None,
    method: str = "",
    sort: str = "closest",
):
    """Clusters for the review queue, closest first, with members and the pending
    proposal prefetched: the same number of queries for 1 cluster or 1,000."""
    members = (
        ClusterMember.objects.filter(excluded=False)
        .select_related("memory")
        .defer("memory__embedding")
        .order_by("memory__created_at", "memory_id")
    )
    clusters = (
        Cluster.objects.select_related("namespace")
        .prefetch_related(
            Prefetch("memberships", queryset=members),
            Prefetch(
                "proposals",
                queryset=MergeProposal.objects.filter(status=ProposalStatus.PENDING).order_by(
                    "-created_at"
                ),
                to_attr="pending",
            ),
        )
        .filter(status=status)
    )
    if size or sort == "largest":
        # Counting members aggregates over every matching cluster: only when asked for.
        clusters = clusters.annotate(
            size=Count("memberships", filter=Q(memberships__excluded=False))
        )
    clusters = clusters.order_by(*QUEUE_SORTS.get(sort, QUEUE_SORTS["closest"]))
    if namespace:
        clusters = clusters.filter(namespace__name=namespace)
    if min_similarity is not None:
        clusters = clusters.filter(min_similarity__gte=min_similarity)
    if max_similarity is not None:
        clusters = clusters.filter(min_similarity__lte=max_similarity)
    if size:
        clusters = clusters.filter(size=size)
    if category:
        clusters = clusters.filter(
            pk__in=ClusterMember.objects.filter(memory__category=category).values("cluster")
        )
    if protected is not None:
        has_flag = Q(flags__contains=["protected"])
        clusters = clusters.filter(has_flag if protected else ~has_flag)
    if method:
        # jsonb containment: some edge of the cluster was found by this method.
        clusters = clusters.filter(edges__contains=[{"method": method}])
    return clusters


def exact_open_clusters(namespace: str | None = None):
    """Open clusters whose every edge is an exact duplicate (copies a guard or a protected
    member kept from collapsing automatically): what bulk acceptance takes."""
    clusters = Cluster.objects.filter(
        status=ClusterStatus.OPEN, edges__contains=[{"method": "exact"}]
    )
    if namespace:
        clusters = clusters.filter(namespace__name=namespace)
    return [c for c in clusters if all(e["method"] == "exact" for e in c.edges)]
