"""What the cluster pages (the queue, a cluster's page, the batch screen and the bulk
previews) and the decisions on clusters read: a cluster's members, its pending proposal,
its version, what a merge became, where a split's members went.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from django.db.models import Count, Prefetch, Q, QuerySet
from django.db.models.expressions import RawSQL

from memadmin.curation import proposals
from memadmin.curation.detection import guards
from memadmin.curation.detection.scoring.representative import representative
from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.models import (
    Cluster,
    ClusterMember,
    ClusterStatus,
    MergeProposal,
    ProposalStatus,
    Tier,
)
from memadmin.curation.reads.filters import given, memories_with
from memadmin.store.models import Memory, MemoryStatus
from memadmin.store.text import clipped


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


def with_members_and_proposals(clusters: QuerySet[Cluster]) -> QuerySet[Cluster]:
    """Clusters with their members and pending proposal read in two queries for all of
    them (cluster_members and pending_proposal use what was read): a page of many."""
    return clusters.prefetch_related(
        Prefetch("memberships", queryset=members_queryset(), to_attr="read_members"),
        Prefetch(
            "proposals",
            queryset=MergeProposal.objects.filter(status=ProposalStatus.PENDING),
            to_attr="read_pending",
        ),
    )


def cluster_members(cluster: Cluster, *, active_only: bool = False) -> list[Memory]:
    """The members of one cluster (see members_queryset)."""
    if not active_only and hasattr(cluster, "read_members"):
        return [m.memory for m in cluster.read_members]
    return [m.memory for m in members_queryset(active_only=active_only).filter(cluster=cluster)]


def pending_proposal(cluster: Cluster) -> MergeProposal | None:
    if hasattr(cluster, "read_pending"):
        return cluster.read_pending[0] if cluster.read_pending else None
    return cluster.proposals.filter(status=ProposalStatus.PENDING).first()


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
        .defer("explanation")  # a cluster's own page draws it, never a list
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


def exact_open_clusters(
    namespace: str | None = None, *, ids: Sequence[int] | None = None, limit: int | None = None
) -> list[Cluster]:
    """Open clusters whose every edge is an exact duplicate (copies a guard or a protected
    member kept from collapsing automatically): what bulk acceptance takes, after a
    preview that shows each one's flags; oldest first, the first `limit` (of `ids`), with
    their members and pending proposal read (with_members_and_proposals)."""
    clusters = _exact_open(namespace)
    if ids is not None:
        clusters = clusters.filter(pk__in=ids)
    clusters = with_members_and_proposals(clusters.order_by("id")[:limit])
    return list(clusters)


def count_exact_open(namespace: str | None = None) -> int:
    return _exact_open(namespace).count()


def _exact_open(namespace: str | None) -> QuerySet[Cluster]:
    # Every edge exact, in PostgreSQL (no edge of another method); the explanation and
    # evidence a preview does not show are not read.
    clusters = (
        Cluster.objects.select_related("namespace")
        .defer("explanation", "evidence")
        .filter(status=ClusterStatus.OPEN, tier=Tier.PROPOSED)
        .filter(edges__contains=[{"method": "exact"}])
        .alias(other=RawSQL("jsonb_path_exists(edges, '$[*] ? (@.method != \"exact\")')", ()))
        .filter(other=False)
    )
    return clusters.filter(namespace__name=namespace) if namespace else clusters


# The guards a person who sees what differs may pass over for copies of one text.
_SOURCE_GUARDS = ("different source_ref", "different session tags")


def copies_across(members: Sequence[Memory]) -> str:
    """What tells the members apart when they are copies of one text (one category) that
    differ only in source or session: "copies written from chat and from agent: the
    merged memory keeps every copy's provenance"; "" for any other cluster. The
    operator's guard keeps such copies out of every automatic merge; a person who sees
    this decides."""
    if len(members) < 2 or len({m.content_hash for m in members}) != 1:
        return ""
    if len({m.category for m in members}) != 1:
        return ""
    sources = sorted({m.source_ref or "no source" for m in members})
    sessions = {frozenset(guards.session_tags(m)) for m in members}
    said = []
    if len(sources) > 1:
        said.append("written from " + " and from ".join(sources))
    if len(sessions) > 1:
        said.append(f"from {len(sessions)} sessions")
    if not said:
        return ""
    return (
        f"copies of one text {' and '.join(said)}: the merged memory keeps every copy's provenance"
    )


def bulk_flags(cluster: Cluster, *, members=None) -> list[str]:
    """Why a cluster may not go through a bulk action: the flags detection gave it, and a
    member that is protected now (pinned, protected category, importance or confidence)
    or a guard between two members (another source, another session) found now. A
    cluster detection is not sure of (the possible tier) is never accepted in bulk.
    Copies of one text that differ only in source or session (copies_across) pass: the
    preview says so, and the person who sees it decides."""
    members = cluster_members(cluster) if members is None else members
    lifted = _SOURCE_GUARDS if copies_across(members) else ()
    flags = page_flags(cluster, members, lifted=lifted)
    if cluster.tier == Tier.POSSIBLE:
        flags.append(f"possible only (confidence {cluster.confidence:.2f})")
    for position, member in enumerate(members):
        for other in members[position + 1 :]:
            guard = guards.metadata_guard(member, other)
            if guard and not guard.startswith(lifted) and f"guard: {guard}" not in flags:
                flags.append(f"guard: {guard}")
    return flags


def page_flags(cluster: Cluster, members: Sequence[Memory], *, lifted=None) -> list[str]:
    """The flags a page shows of a cluster: detection's, less the source and session
    guards of copies of one text (said as copies_across instead), and "protected" for a
    member that is protected now (pinned since the run, say)."""
    if lifted is None:
        lifted = _SOURCE_GUARDS if copies_across(members) else ()
    flags = [flag for flag in cluster.flags if not any(g in flag for g in lifted)]
    if "protected" not in flags and any(guards.is_protected(m) for m in members):
        flags.append("protected")
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


def offered_text(members: Sequence[Memory], proposal: MergeProposal | None) -> str:
    """The text a page offers for an open cluster: its saved proposal's, else the
    representative member's (what the rule would write)."""
    return proposal.merged_text if proposal else representative(members).content


def offered_warnings(members: Sequence[Memory], proposal: MergeProposal | None) -> list[str]:
    """The lost-fact check of what a page offers for an open cluster: its saved
    proposal's warnings, else the rule's text checked now."""
    return proposals.offered_warnings(members, proposal)


def why_tier(cluster: Cluster, members: Sequence[Memory]) -> str:
    """Why a cluster's tier and its confidence seem to disagree, in words a curator
    reads; "" where they agree. Its confidence is its least sure *joining* pair, while a
    cluster is proposed only when every two members are sure: a possible cluster joined
    by sure pairs holds a doubtful pair that joins nothing, named here by its texts; a
    proposed one under the bar was confirmed by a judge (the LLM, or a person earlier)."""
    bar = Thresholds.from_settings().propose_one
    if cluster.tier == Tier.POSSIBLE and cluster.confidence >= bar:
        texts = {m.pk: m.content for m in members}
        rated = [e for e in cluster.edges if e["a"] in texts and e["b"] in texts]
        least = min(rated, key=lambda e: e.get("confidence", e["similarity"]), default=None)
        sure = least is None or least.get("confidence", least["similarity"]) >= bar
        if sure:
            return (
                f"Possible although it reads {cluster.confidence:.2f}: it was found among "
                "doubtful pairs, and a later reading is surer; it stays possible until a "
                "person decides."
            )
        return (
            f"Possible although the pairs that join it read {cluster.confidence:.2f}: "
            f"\u201c{clipped(texts[least['a']])}\u201d and "
            f"\u201c{clipped(texts[least['b']])}\u201d "
            f"are only possibly one fact ({least.get('confidence', least['similarity']):.2f}), "
            f"and a proposal needs every two members at {bar:.2f} or more."
        )
    if cluster.tier == Tier.PROPOSED and cluster.confidence < bar:
        if any(flag.startswith("opened by hand") for flag in cluster.flags):
            return f"Proposed by a person, by hand; detection reads it at {cluster.confidence:.2f}."
        return (
            f"Proposed under the bar of {bar:.2f}: a judge (the LLM, or a person's earlier "
            "decision) said its pairs are one fact."
        )
    return ""
