"""What the review pages look up about conflicts and memories: the conflict queue
(searched, sorted, grouped by topic), the memory browser's words, everything a memory is
part of, and where a split cluster's members went."""

from __future__ import annotations

from django.db.models import Case, Q, QuerySet, When

from memadmin.curation.models import Cluster, ClusterStatus, Conflict, ConflictStatus, Tier
from memadmin.curation.queries import cluster_members, given, memories_with
from memadmin.store.models import Memory, Namespace

CONFLICT_SORTS = {
    "surest": ("-confidence", "-created_at", "-id"),
    "newest": ("-created_at", "-id"),
    "oldest": ("created_at", "id"),
}


def conflict_queue(
    *,
    status: str,
    namespace: str = "",
    kind: str = "",
    tier: str = Tier.PROPOSED,
    words: str = "",
    sort: str = "surest",
    by_topic: bool = False,
) -> QuerySet[Conflict]:
    """Conflicts of one status (and kind) and tier (proposed, or the doubtful possible
    ones apart), surest first then newest (or as `sort` says), with both sides and who
    settled them; `words` in either side; `by_topic`: what they disagree about first,
    so that one subject's conflicts come together."""
    order = CONFLICT_SORTS.get(sort, CONFLICT_SORTS["surest"])
    found = (
        Conflict.objects.filter(status=status, **given({"kind": kind, "tier": tier}))
        .select_related("namespace", "memory_a", "memory_b", "resolver")
        .defer(
            "memory_a__embedding",
            "memory_b__embedding",
            "memory_a__embedding_multi",
            "memory_b__embedding_multi",
        )
        .order_by(*(("topic",) if by_topic else ()), *order)
    )
    if namespace:
        found = found.filter(namespace__name=namespace)
    if words:
        matching = memories_with(words)
        found = found.filter(Q(memory_a__in=matching) | Q(memory_b__in=matching))
    return found


def memory_search(
    *, namespace: Namespace | None, status: str = "", category: str = "", words: str = ""
) -> QuerySet[Memory]:
    """Memories by words and filters, newest first (the memory browser's text mode)."""
    found = (
        Memory.objects.select_related("namespace")
        .defer("embedding", "embedding_multi")
        .filter(**given({"namespace": namespace, "status": status, "category": category}))
        .order_by("-created_at", "-id")
    )
    if words:
        found = found.filter(pk__in=memories_with(words))
    return found


def work_of(memory: Memory) -> tuple[list[Cluster], list[Conflict]]:
    """Every cluster a memory is (or was) a member of, and every conflict it is a side
    of, open ones first, then newest: what its page lists."""
    clusters = list(
        Cluster.objects.filter(memberships__memory=memory)
        .distinct()
        .order_by(Case(When(status=ClusterStatus.OPEN, then=0), default=1), "-id")
    )
    conflicts = list(
        Conflict.objects.filter(Q(memory_a=memory) | Q(memory_b=memory))
        .select_related("memory_a", "memory_b")
        .defer("memory_a__embedding", "memory_b__embedding")
        .defer("memory_a__embedding_multi", "memory_b__embedding_multi")
        .order_by(Case(When(status=ConflictStatus.OPEN, then=0), default=1), "-id")
    )
    return clusters, conflicts


def originals_of(memory: Memory) -> QuerySet[Memory]:
    """The memories a merge or a settlement folded into this one."""
    return (
        Memory.objects.filter(superseded_by=memory)
        .defer("embedding", "embedding_multi")
        .order_by("created_at", "id")
    )


def split_parts(cluster: Cluster) -> tuple[list[tuple[Cluster, list[Memory]]], list[Memory]]:
    """A split cluster's parts, each with its members, and the members left on their
    own (back in the pool): where each member went."""
    if cluster.status != ClusterStatus.SPLIT:
        return [], []
    parts = [
        (part, cluster_members(part))
        for part in Cluster.objects.filter(
            namespace_id=cluster.namespace_id, flags__contains=[f"split from #{cluster.pk}"]
        ).order_by("id")
    ]
    placed = {m.pk for _, members in parts for m in members}
    alone = [m for m in cluster_members(cluster) if m.pk not in placed]
    return parts, alone
