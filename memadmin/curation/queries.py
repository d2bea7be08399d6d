"""Named read queries over curation's tables."""

from __future__ import annotations

from django.db.models import Prefetch

from memadmin.curation.models import Cluster, ClusterMember, Conflict, MergeProposal


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
