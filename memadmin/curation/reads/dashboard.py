"""What the dashboard reads: every namespace with its counts, the last runs, and the open
clusters by weakest link and by size.
"""

from __future__ import annotations

import itertools
from collections import Counter
from datetime import timedelta

from django.db.models import Count, QuerySet
from django.utils import timezone

from memadmin.curation.models import (
    Cluster,
    ClusterMember,
    ClusterStatus,
    Conflict,
    ConflictStatus,
    DedupRun,
)
from memadmin.curation.reads import counts
from memadmin.store.models import Memory, MemoryStatus, Namespace
from memadmin.store.queries import count_per_namespace


def namespace_summaries() -> QuerySet[Namespace]:
    """Every namespace with its counts, in one query (for the dashboard)."""
    week_ago = timezone.now() - timedelta(days=7)
    return Namespace.objects.annotate(
        active=count_per_namespace(Memory, status=MemoryStatus.ACTIVE),
        superseded=count_per_namespace(Memory, status=MemoryStatus.SUPERSEDED),
        open_clusters=count_per_namespace(Cluster, status=ClusterStatus.OPEN),
        open_conflicts=count_per_namespace(Conflict, status=ConflictStatus.OPEN),
        auto_merges_week=counts.automatic_merges_per_namespace(since=week_ago),
    ).order_by("name")


def recent_runs(limit: int = 10) -> QuerySet[DedupRun]:
    return DedupRun.objects.select_related("namespace").order_by("-started_at")[:limit]


# Bins of the weakest-link histogram (the last one closes at 1.0 inclusive).
SIMILARITY_BINS = [0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01]


def open_cluster_histogram() -> list[tuple[str, int]]:
    """Open clusters by weakest link, in SIMILARITY_BINS."""
    similarities = Cluster.objects.filter(status=ClusterStatus.OPEN).values_list(
        "min_similarity", flat=True
    )
    return [
        (f"{low:.1f}", sum(low <= s < high for s in similarities))
        for low, high in itertools.pairwise(SIMILARITY_BINS)
    ]


def open_cluster_sizes() -> Counter:
    """How many open clusters have each size."""
    return Counter(
        ClusterMember.objects.filter(cluster__status=ClusterStatus.OPEN, excluded=False)
        .values("cluster")
        .annotate(size=Count("id"))
        .values_list("size", flat=True)
    )
