"""The audit queue's next pair: drawn at random from every band of what detection said
(clusters and conflicts of each tier, and near candidates it proposed nothing for), so
that the store's measured error rate (reads.measured) rests on more than what people
chose to decide. A pair labelled once is not offered again."""

from __future__ import annotations

import random
from dataclasses import dataclass

from memadmin.curation.models import Cluster, ClusterMember, Conflict, ConflictStatus, PairLabel
from memadmin.store.models import Memory, MemoryStatus
from memadmin.store.queries import nearest_memories

# The bands, as the page names them.
BANDS = (
    ("cluster", "proposed", "proposed as one fact"),
    ("cluster", "possible", "possibly one fact"),
    ("conflict", "proposed", "proposed as a conflict"),
    ("conflict", "possible", "possibly a conflict"),
    ("near", "", "near each other, nothing proposed"),
)
# Draws tried per band before the next band is tried.
TRIES = 8


@dataclass(frozen=True)
class AuditPair:
    a: Memory
    b: Memory
    band: str  # what detection said, in words
    confidence: float | None  # how sure it was (none for a near pair it said nothing of)


def next_pair(rng: random.Random | None = None) -> AuditPair | None:
    """A pair nobody labelled yet, from a band chosen at random (then the others in turn);
    None when every band is labelled through (or the store is empty)."""
    rng = rng or random.Random()
    bands = list(BANDS)
    rng.shuffle(bands)
    for kind, tier, words in bands:
        for _ in range(TRIES):
            found = _draw(kind, tier, rng)
            if found is None:
                break  # the band is empty
            a, b, confidence = found
            if a.pk != b.pk and not _labelled(a.pk, b.pk):
                return AuditPair(a, b, words, confidence)
    return None


def _draw(kind: str, tier: str, rng: random.Random):
    if kind == "cluster":
        return _from_cluster(tier, rng)
    if kind == "conflict":
        return _from_conflict(tier, rng)
    return _near(rng)


def _random_row(rows, rng: random.Random):
    """One row of a query at random, by offset (ordering by random() reads them all)."""
    count = rows.count()
    return rows.order_by("pk")[rng.randrange(count)] if count else None


def _from_cluster(tier: str, rng: random.Random):
    cluster = _random_row(Cluster.objects.filter(tier=tier), rng)
    if cluster is None:
        return None
    ids = list(ClusterMember.objects.filter(cluster=cluster).values_list("memory_id", flat=True))
    if len(ids) < 2:
        return None
    first, second = rng.sample(ids, 2)
    memories = Memory.objects.defer("embedding", "embedding_multi").in_bulk([first, second])
    return memories[first], memories[second], cluster.confidence


def _from_conflict(tier: str, rng: random.Random):
    conflicts = Conflict.objects.filter(tier=tier).exclude(status=ConflictStatus.COPY)
    conflict = _random_row(conflicts.select_related("memory_a", "memory_b"), rng)
    if conflict is None:
        return None
    return conflict.memory_a, conflict.memory_b, conflict.confidence


def _near(rng: random.Random):
    """An active memory and its nearest active neighbour that no cluster or conflict holds
    with it."""
    memory = _random_row(Memory.objects.filter(status=MemoryStatus.ACTIVE), rng)
    if memory is None or memory.embedding is None:
        return None
    near = nearest_memories(memory.namespace, memory.embedding, k=5, exclude_ids=[memory.pk])
    for neighbour in near:
        if not _claimed(memory.pk, neighbour.memory.pk):
            return memory, neighbour.memory, None
    return None


def _claimed(a: int, b: int) -> bool:
    together = ClusterMember.objects.filter(memory_id=a).values("cluster_id")
    return (
        ClusterMember.objects.filter(memory_id=b, cluster_id__in=together).exists()
        or Conflict.objects.filter(memory_a_id__in=(a, b), memory_b_id__in=(a, b)).exists()
    )


def _labelled(a: int, b: int) -> bool:
    low, high = sorted((a, b))
    return PairLabel.objects.filter(memory_a_id=low, memory_b_id=high).exists()
