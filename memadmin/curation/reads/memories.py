"""What the memory pages read: the memory browser's search, everything a memory is part of,
and the memories a merge or a settlement folded into one.
"""

from __future__ import annotations

from django.db.models import Case, Q, QuerySet, When

from memadmin.curation.models import Cluster, ClusterStatus, Conflict, ConflictStatus
from memadmin.curation.reads.filters import given, memories_with
from memadmin.store.models import Memory, Namespace


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
