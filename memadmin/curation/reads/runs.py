"""What a detection run reads of earlier ones: the pairs people judged apart, the LLM's
cached verdicts, what automatic folds absorbed, the clusters and conflicts already known.
"""

from __future__ import annotations

from collections.abc import Sequence

from memadmin.curation.models import (
    Cluster,
    ClusterMember,
    ClusterStatus,
    Conflict,
    ConflictStatus,
    PairVerdict,
    Tier,
)
from memadmin.store.models import Memory, MemoryStatus
from memadmin.store.queries import any_of

# Verdicts that mean "never propose this pair again".
FINAL_VERDICTS = (
    PairVerdict.Verdict.NOT_DUPLICATE,
    PairVerdict.Verdict.BOTH_VALID,
    PairVerdict.Verdict.RELATED_DISTINCT,
    PairVerdict.Verdict.UNRELATED,
)


def human_judged_pairs(namespace_ids: Sequence[int]) -> dict[int, set[tuple[str, str]]]:
    """(hash, hash) pairs a person judged apart, per namespace: never proposed again."""
    found: dict[int, set[tuple[str, str]]] = {pk: set() for pk in namespace_ids}
    for namespace_id, low, high in PairVerdict.objects.filter(
        namespace_id__in=list(namespace_ids), decided_by="human", verdict__in=FINAL_VERDICTS
    ).values_list("namespace_id", "hash_low", "hash_high"):
        found[namespace_id].add((low, high))
    return found


def cached_llm_verdicts(
    namespace_ids: Sequence[int], prompt_versions: Sequence[str]
) -> dict[int, dict[tuple[str, str], list[PairVerdict]]]:
    """The LLM's earlier verdicts of these prompt versions (a first reading's, a second
    reading's), per namespace, by (hash, hash): each pair's in the order they were given."""
    found: dict[int, dict[tuple[str, str], list[PairVerdict]]] = {pk: {} for pk in namespace_ids}
    verdicts = PairVerdict.objects.filter(
        namespace_id__in=list(namespace_ids),
        decided_by="llm",
        prompt_version__in=list(prompt_versions),
    ).order_by("pk")
    for verdict in verdicts:
        found[verdict.namespace_id].setdefault((verdict.hash_low, verdict.hash_high), [])
        found[verdict.namespace_id][(verdict.hash_low, verdict.hash_high)].append(verdict)
    return found


def absorbed_by(
    namespace_ids: Sequence[int], survivor_ids: Sequence[int]
) -> dict[int, list[Memory]]:
    """The memories each of these survivors absorbed in earlier automatic folds
    (collapses, merges, write-time replacements), with their vectors, oldest first (one
    query for a batch): the all-pairs condition of a later fold takes them into account,
    so merges never chain across runs."""
    if not survivor_ids:
        return {}
    folded = ClusterMember.objects.filter(
        cluster__namespace_id__in=list(namespace_ids),
        cluster__status=ClusterStatus.AUTO_MERGED,
    ).values("memory_id")
    absorbed: dict[int, list[Memory]] = {}
    for memory in Memory.objects.filter(
        namespace_id__in=list(namespace_ids),
        status=MemoryStatus.SUPERSEDED,
        superseded_by_id__in=any_of(survivor_ids),
        pk__in=folded,
    ).order_by("created_at", "id"):
        absorbed.setdefault(memory.superseded_by_id, []).append(memory)
    return absorbed


def existing_member_sets(namespace_ids: Sequence[int]) -> dict[int, list[frozenset[int]]]:
    """The member sets of these namespaces' clusters (open or decided), under each member:
    a proposal is already known when a set under its first member holds all of it."""
    members: dict[int, set[int]] = {}
    rows = (
        Cluster.objects.filter(namespace_id__in=list(namespace_ids))
        .exclude(status__in=[ClusterStatus.SPLIT, ClusterStatus.UNMERGED])
        .values_list("id", "memberships__memory_id")
    )
    for cluster_id, memory_id in rows:
        members.setdefault(cluster_id, set()).add(memory_id)
    by_member: dict[int, list[frozenset[int]]] = {}
    for ids in map(frozenset, members.values()):
        for memory_id in ids:
            by_member.setdefault(memory_id, []).append(ids)
    return by_member


def open_clusters(namespace_ids: Sequence[int]) -> dict[int, list[frozenset[int]]]:
    """The member sets (memory ids) of these namespaces' open clusters, per namespace: a
    new memory's conflict with one member is the others' too (curation.runs.planning)."""
    members: dict[int, tuple[int, set[int]]] = {}
    rows = Cluster.objects.filter(
        namespace_id__in=list(namespace_ids), status=ClusterStatus.OPEN
    ).values_list("id", "namespace_id", "memberships__memory_id")
    for cluster_id, namespace_id, memory_id in rows:
        members.setdefault(cluster_id, (namespace_id, set()))[1].add(memory_id)
    found: dict[int, list[frozenset[int]]] = {pk: [] for pk in namespace_ids}
    for namespace_id, ids in members.values():
        found[namespace_id].append(frozenset(ids))
    return found


def existing_conflict_pairs(namespace_ids: Sequence[int]) -> set[frozenset[int]]:
    """The memory pairs of these namespaces' conflicts (open or decided)."""
    return {
        frozenset(pair)
        for pair in Conflict.objects.filter(namespace_id__in=list(namespace_ids)).values_list(
            "memory_a_id", "memory_b_id"
        )
    }


def open_possible(namespace_ids: Sequence[int]) -> tuple[set, set]:
    """The member sets of these namespaces' open clusters in the possible tier, and the
    memory pairs of their open possible conflicts: what a later run may make proposals
    when it knows more of them (an LLM's second reading it could not ask before)."""
    ids = list(namespace_ids)
    members: dict[int, set[int]] = {}
    for cluster_id, memory_id in Cluster.objects.filter(
        namespace_id__in=ids, status=ClusterStatus.OPEN, tier=Tier.POSSIBLE
    ).values_list("id", "memberships__memory_id"):
        members.setdefault(cluster_id, set()).add(memory_id)
    conflicts = Conflict.objects.filter(
        namespace_id__in=ids, status=ConflictStatus.OPEN, tier=Tier.POSSIBLE
    ).values_list("memory_a_id", "memory_b_id")
    return set(map(frozenset, members.values())), set(map(frozenset, conflicts))
