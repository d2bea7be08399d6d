"""Named read queries over curation's tables (and the memories they point at): review
pages, exports, the agent profile, and what a detection run must know of earlier ones.
Nothing here writes."""

from __future__ import annotations

import hashlib
import itertools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.contrib.postgres.search import SearchQuery, SearchVector
from django.db.models import Count, Prefetch, Q, QuerySet
from django.utils import timezone

from memadmin.curation import counts
from memadmin.curation.detection import guards
from memadmin.curation.detection.representative import representative
from memadmin.curation.models import (
    Cluster,
    ClusterMember,
    ClusterStatus,
    Conflict,
    ConflictStatus,
    DedupRun,
    MergeProposal,
    PairVerdict,
    ProposalStatus,
    Tier,
)
from memadmin.store.models import Memory, MemoryStatus, Namespace
from memadmin.store.queries import any_of, count_per_namespace


def given(conditions: dict) -> dict:
    """The filter conditions whose value was given (a filter left empty is no filter)."""
    return {lookup: value for lookup, value in conditions.items() if value not in (None, "")}


# --- The members of a cluster ----------------------------------------------------------


def members_queryset(*, active_only: bool = False) -> QuerySet[ClusterMember]:
    """A cluster's members as every page and decision sees them: not excluded by a
    curator, oldest first (the order the LLM and the reviewer read them in), without the
    vector. `active_only` leaves out members folded or retired since the cluster opened."""
    members = ClusterMember.objects.filter(excluded=False)
    if active_only:
        members = members.filter(memory__status=MemoryStatus.ACTIVE)
    return (
        members.select_related("memory")
        .defer("memory__embedding", "memory__embedding_multi")
        .order_by("memory__created_at", "memory_id")
    )


def cluster_members(cluster: Cluster, *, active_only: bool = False) -> list[Memory]:
    """The members of one cluster (see members_queryset)."""
    return [m.memory for m in members_queryset(active_only=active_only).filter(cluster=cluster)]


def pending_proposal(cluster: Cluster) -> MergeProposal | None:
    return cluster.proposals.filter(status=ProposalStatus.PENDING).first()


# --- Exports and the agent profile -------------------------------------------------------


def review_export(namespace: str | None) -> dict:
    """Every cluster and conflict in the export_review format (DESIGN.md): clusters with
    their members' external ids, weakest similarity, status and latest proposal text."""
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
            }
            for conflict in conflicts.order_by("id")
        ],
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


# --- What a detection run needs from earlier ones ---------------------------------------

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
    reading's), per namespace, by (hash, hash): each pair's in the versions' order."""
    found: dict[int, dict[tuple[str, str], list[PairVerdict]]] = {pk: {} for pk in namespace_ids}
    rank = {version: place for place, version in enumerate(prompt_versions)}
    verdicts = PairVerdict.objects.filter(
        namespace_id__in=list(namespace_ids),
        decided_by="llm",
        prompt_version__in=list(prompt_versions),
    )
    for verdict in sorted(verdicts, key=lambda v: rank[v.prompt_version]):
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


def clusters_needing_proposals(
    namespace: str | None, *, limit: int | None = None
) -> list[tuple[Cluster, list]]:
    """Open clusters, oldest first, whose members (active, not excluded) have no pending
    proposal written from them; with those members, oldest to newest."""
    clusters = (
        Cluster.objects.filter(status=ClusterStatus.OPEN)
        .prefetch_related(
            Prefetch("memberships", queryset=members_queryset(active_only=True)),
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
        fingerprint = MergeProposal.fingerprint(members)
        if any(p.members_fingerprint == fingerprint for p in cluster.proposals.all()):
            continue
        found.append((cluster, members))
        if limit is not None and len(found) >= limit:
            break
    return found


# --- Review pages ------------------------------------------------------------------------

QUEUE_SORTS = {
    "surest": ("-confidence", "-min_similarity", "id"),
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
    sort: str = "surest",
    tier: str = Tier.PROPOSED,
    words: str = "",
    min_confidence: float | None = None,
):
    """Clusters for the review queue (one tier: proposed, or the doubtful possible ones
    apart), surest first, with members and the pending proposal prefetched: the same
    number of queries for 1 cluster or 1,000."""
    clusters = (
        Cluster.objects.select_related("namespace")
        .prefetch_related(
            Prefetch("memberships", queryset=members_queryset()),
            Prefetch(
                "proposals",
                queryset=MergeProposal.objects.filter(status=ProposalStatus.PENDING).order_by(
                    "-created_at", "-id"
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
    clusters = clusters.order_by(*QUEUE_SORTS.get(sort, QUEUE_SORTS["surest"]))
    conditions = {
        "tier": tier or None,
        "namespace__name": namespace,
        "min_similarity__gte": min_similarity,
        "min_similarity__lte": max_similarity,
        "size": size or None,
        "confidence__gte": min_confidence or None,
    }
    clusters = clusters.filter(**given(conditions))
    if category:
        clusters = clusters.filter(
            pk__in=ClusterMember.objects.filter(memory__category=category).values("cluster")
        )
    if words:  # a member holds them
        clusters = clusters.filter(
            pk__in=ClusterMember.objects.filter(
                excluded=False, memory__in=memories_with(words)
            ).values("cluster")
        )
    if protected is not None:
        has_flag = Q(flags__contains=["protected"])
        clusters = clusters.filter(has_flag if protected else ~has_flag)
    if method:
        # jsonb containment: some edge of the cluster was found by this method.
        clusters = clusters.filter(edges__contains=[{"method": method}])
    return clusters


def exact_open_clusters(namespace: str | None = None) -> list[Cluster]:
    """Open clusters whose every edge is an exact duplicate (copies a guard or a protected
    member kept from collapsing automatically): what bulk acceptance takes, after a
    preview that shows each one's flags."""
    clusters = Cluster.objects.select_related("namespace").filter(
        status=ClusterStatus.OPEN, tier=Tier.PROPOSED, edges__contains=[{"method": "exact"}]
    )
    if namespace:
        clusters = clusters.filter(namespace__name=namespace)
    return [c for c in clusters.order_by("id") if all(e["method"] == "exact" for e in c.edges)]


# The guards an operator may lift for exact copies (settings.BULK_EXACT_ACROSS_SOURCES).
_SOURCE_GUARDS = ("different source_ref", "different session tags")


def bulk_flags(cluster: Cluster, *, exact_copies: bool = False, members=None) -> list[str]:
    """Why a cluster may not go through a bulk action: the flags detection gave it, and a
    member that is protected now (pinned, protected category, importance or confidence)
    or a guard between two members (another source, another session) found now. A
    cluster detection is not sure of (the possible tier) is never accepted in bulk.
    `exact_copies`: the cluster is copies of one text, whose source and session guards
    the operator may lift (settings.BULK_EXACT_ACROSS_SOURCES)."""
    lifted = _SOURCE_GUARDS if exact_copies and settings.BULK_EXACT_ACROSS_SOURCES else ()
    flags = [flag for flag in cluster.flags if not any(g in flag for g in lifted)]
    if cluster.tier == Tier.POSSIBLE:
        flags.append(f"possible only (confidence {cluster.confidence:.2f})")
    members = cluster_members(cluster) if members is None else members
    if "protected" not in flags and any(guards.is_protected(m) for m in members):
        flags.append("protected")
    for position, member in enumerate(members):
        for other in members[position + 1 :]:
            guard = guards.metadata_guard(member, other)
            if guard and not guard.startswith(lifted) and f"guard: {guard}" not in flags:
                flags.append(f"guard: {guard}")
    return flags


_READ = object()  # cluster_version: read the pending proposal


def cluster_version(cluster: Cluster, *, member_ids=None, proposal=_READ) -> str:
    """What a reviewer saw of a cluster, as a short fingerprint: its status, its members
    (excluded ones out) and its pending proposal. A decision sent with another version
    was taken on a page that no longer shows the cluster as it is. A page that read the
    members and the proposal already (prefetched) passes them."""
    if member_ids is None:
        member_ids = ClusterMember.objects.filter(cluster=cluster, excluded=False).values_list(
            "memory_id", flat=True
        )
    members = sorted(member_ids)
    if proposal is _READ:
        proposal = pending_proposal(cluster)
    raw = f"{cluster.status}:{members}:{proposal.pk if proposal else '-'}"
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def merged_memory(cluster: Cluster) -> Memory | None:
    """The memory a merged cluster became (a new merged memory, or the member kept), as
    long as the merge stands; None for any other cluster."""
    if cluster.status not in (ClusterStatus.ACCEPTED, ClusterStatus.AUTO_MERGED):
        return None
    members = list(
        Memory.objects.filter(memberships__cluster=cluster).values_list("pk", "superseded_by_id")
    )
    ids = {pk for pk, _ in members}
    targets = {target for _, target in members if target is not None} - ids
    survivors = ids - {pk for pk, target in members if target is not None}
    chosen = targets or survivors
    if not chosen:
        return None
    return Memory.objects.defer("embedding", "embedding_multi").filter(pk__in=chosen).first()


def next_open_conflict(after: Conflict) -> Conflict | None:
    """The open conflict an admin meets next: the queue's order (newest first), in the
    namespace of the one just settled."""
    return (
        Conflict.objects.filter(status=ConflictStatus.OPEN, namespace_id=after.namespace_id)
        .exclude(pk=after.pk)
        .order_by("-created_at", "-id")
        .first()
    )


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


def memories_with(words: str) -> QuerySet[Memory]:
    """Memories holding these words: PostgreSQL's full text in its 'simple' configuration
    (no stemming: memories come in many languages), each word also as the start of a
    longer one ("stag" finds "staging"), through the memory_content_words index. Chinese,
    Japanese and Korean are written without spaces (a whole run is one token): those
    words are found as written inside a memory."""
    if _CJK.search(words):
        return Memory.objects.filter(content__icontains=words).values("pk")
    tokens = _WORD.findall(words.lower())
    if not tokens:
        return Memory.objects.none().values("pk")
    query = SearchQuery(
        " & ".join(f"{token}:*" for token in tokens), config="simple", search_type="raw"
    )
    return (
        Memory.objects.annotate(words=SearchVector("content", config="simple"))
        .filter(words=query)
        .values("pk")
    )


_CJK = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
# A word of a search as tsquery reads it: letters and digits only (nothing it would parse).
_WORD = re.compile(r"[^\W_]+")
