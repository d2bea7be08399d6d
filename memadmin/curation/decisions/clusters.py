"""Clusters for review: opening and growing them (detection), their merge proposals, and
the curator's decisions that change no memory: dismiss, exclude a member, split."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy
from django.db import transaction
from django.utils import timezone

from memadmin.curation.decisions.history import (
    DecisionError,
    actor_of,
    insert_rows,
    lock_active,
    lock_open_cluster,
    log_cluster_decision,
    unsaved,
)
from memadmin.curation.decisions.verdicts import forget_verdict, remember_apart
from memadmin.curation.models import (
    Cluster,
    ClusterMember,
    ClusterStatus,
    HistoryEvent,
    MergeProposal,
    PairVerdict,
    ProposalStatus,
    Tier,
)
from memadmin.curation.reads.clusters import cluster_members
from memadmin.store.models import Memory, Namespace
from memadmin.store.queries import any_of


def weakest(edges: list[dict]) -> list[int]:
    """The two members of the lowest similarity: where a split would cut."""
    if not edges:
        return []
    lowest = min(edges, key=lambda e: e["similarity"])
    return [lowest["a"], lowest["b"]]


@dataclass
class ProposedCluster:
    """Memories a detection pass proposes for review, with every pair's similarity."""

    memories: Sequence[Memory]
    edges: list[dict]
    flags: list[str]
    tier: str = Tier.PROPOSED
    confidence: float = 1.0
    evidence: list[str] = field(default_factory=list)
    explanation: dict = field(default_factory=dict)  # of its weakest joining pair


def open_cluster(
    *,
    namespace: Namespace,
    memories: Sequence[Memory],
    edges: list[dict],
    flags: list[str],
    tier: str = Tier.PROPOSED,
    confidence: float = 1.0,
    evidence: Sequence[str] = (),
    explanation: dict | None = None,
) -> tuple[Cluster, bool]:
    """Open a cluster for review (in the tier detection gave it, with its confidence and
    evidence), or grow the open cluster that already holds one of `memories` (a new
    memory joins it rather than opening a duplicate cluster).

    Side effects: creates or updates a Cluster and its ClusterMember rows. Returns the
    cluster and whether it is new.
    """
    proposed = ProposedCluster(
        memories, edges, flags, tier, confidence, list(evidence), explanation or {}
    )
    ((cluster, created),) = open_clusters(proposed=[proposed], namespace_ids=[namespace.pk])
    return cluster, created


def open_clusters(
    *, proposed: Sequence[ProposedCluster], namespace_ids: Sequence[int]
) -> list[tuple[Cluster, bool]]:
    """open_cluster for a batch run's proposals at once (of one namespace or several,
    each proposal's memories in one of `namespace_ids`): one query finds the open
    clusters that already hold any of their memories, and the new clusters and their
    members are inserted in bulk (one at a time, 1,839 clusters took 7 s).

    Side effects, in one transaction: creates or grows Cluster and ClusterMember rows.
    Returns (cluster, created) per proposal, in order.
    """
    with transaction.atomic():
        open_cluster_of = dict(
            ClusterMember.objects.filter(
                cluster__namespace_id__in=list(namespace_ids),
                cluster__status=ClusterStatus.OPEN,
                memory__in=any_of(m.pk for p in proposed for m in p.memories),
            ).values_list("memory_id", "cluster_id")
        )
        fresh = [p for p in proposed if not any(m.pk in open_cluster_of for m in p.memories)]
        created = [_unsaved_cluster(p.memories[0].namespace_id, p) for p in fresh]
        insert_rows(created)
        insert_rows(
            [
                unsaved(ClusterMember, cluster=cluster, memory=m)
                for cluster, p in zip(created, fresh, strict=True)
                for m in p.memories
            ]
        )
        new_cluster = {id(p): cluster for p, cluster in zip(fresh, created, strict=True)}
        results = []
        for p in proposed:
            if id(p) in new_cluster:
                results.append((new_cluster[id(p)], True))
                continue
            held = next(open_cluster_of[m.pk] for m in p.memories if m.pk in open_cluster_of)
            results.append((_grow_cluster(held, p), False))
    return results


def _unsaved_cluster(namespace_id: int, proposed: ProposedCluster) -> Cluster:
    return unsaved(
        Cluster,
        namespace_id=namespace_id,
        status=ClusterStatus.OPEN,
        edges=sorted(proposed.edges, key=lambda e: (e["a"], e["b"])),
        min_similarity=min((e["similarity"] for e in proposed.edges), default=0.0),
        weakest_link=weakest(proposed.edges),
        flags=sorted(set(proposed.flags)),
        tier=proposed.tier,
        confidence=round(float(proposed.confidence), 4),
        evidence=list(proposed.evidence),
        explanation=proposed.explanation,
    )


def _new_cluster(namespace: Namespace, proposed: ProposedCluster) -> Cluster:
    cluster = _unsaved_cluster(namespace.pk, proposed)
    cluster.save()
    ClusterMember.objects.bulk_create(
        ClusterMember(cluster=cluster, memory=m) for m in proposed.memories
    )
    return cluster


def _grow_cluster(cluster_id: int, proposed: ProposedCluster) -> Cluster:
    # Lock the row itself (FOR UPDATE cannot go with the join that found it).
    cluster = Cluster.objects.select_for_update().get(pk=cluster_id)
    known = set(cluster.memberships.values_list("memory_id", flat=True))
    if known == {m.pk for m in proposed.memories} and proposed.tier == Tier.PROPOSED:
        # The same memories proposed with more to go on (an LLM's readings a later run
        # asked): the newer judgement stands in for the possible one.
        cluster.edges = sorted(proposed.edges, key=lambda e: (e["a"], e["b"]))
        cluster.min_similarity = min((e["similarity"] for e in cluster.edges), default=0.0)
        cluster.weakest_link = weakest(cluster.edges)
        cluster.flags = sorted(set(cluster.flags) | set(proposed.flags))
        cluster.tier, cluster.confidence = Tier.PROPOSED, round(float(proposed.confidence), 4)
        cluster.evidence = list(proposed.evidence)
        cluster.explanation = proposed.explanation
        cluster.save()
        return cluster
    ClusterMember.objects.bulk_create(
        ClusterMember(cluster=cluster, memory=m) for m in proposed.memories if m.pk not in known
    )
    merged_edges = {(e["a"], e["b"]): e for e in cluster.edges}
    merged_edges.update({(e["a"], e["b"]): e for e in proposed.edges})
    cluster.edges = sorted(merged_edges.values(), key=lambda e: (e["a"], e["b"]))
    cluster.min_similarity = min((e["similarity"] for e in cluster.edges), default=0.0)
    cluster.weakest_link = weakest(cluster.edges)
    cluster.flags = sorted(set(cluster.flags) | set(proposed.flags))
    # A cluster is as sure as its least sure part.
    if proposed.confidence < cluster.confidence:  # its least sure part explains it
        cluster.explanation = proposed.explanation
    cluster.confidence = round(min(cluster.confidence, float(proposed.confidence)), 4)
    if proposed.tier == Tier.POSSIBLE:
        cluster.tier = Tier.POSSIBLE
    cluster.evidence = list(dict.fromkeys([*cluster.evidence, *proposed.evidence]))
    cluster.save()
    return cluster


# The most memories a curator puts in one cluster by hand.
MAX_HAND_PICKED = 50


def open_cluster_by_hand(*, memory_ids: Sequence[int], user) -> Cluster:
    """A curator found duplicates the engine missed: the chosen memories (active, of one
    namespace) become an open cluster that goes through the same review as any other.
    Its links are the members' cosine similarities (method `manual`), flagged "opened by
    hand". Memories already in an open cluster join it instead when they are all in the
    same one; refused when they are spread over several (decide those first).

    Side effects, in one transaction: a Cluster and its members (or the grown one), one
    `open` event. Returns the cluster."""
    ids = sorted(set(memory_ids))
    if len(ids) < 2:
        raise DecisionError("choose at least two memories to put in a cluster")
    if len(ids) > MAX_HAND_PICKED:
        raise DecisionError(f"choose at most {MAX_HAND_PICKED} memories for one cluster")
    with transaction.atomic():
        memories = lock_active(ids)
        namespaces = {m.namespace_id for m in memories.values()}
        if len(namespaces) != 1:
            raise DecisionError("the memories must all be of one namespace")
        held = sorted(
            set(
                ClusterMember.objects.filter(
                    cluster__status=ClusterStatus.OPEN, memory__in=ids, excluded=False
                ).values_list("cluster_id", flat=True)
            )
        )
        if len(held) > 1:
            raise DecisionError(
                "these memories are in different open clusters ("
                + ", ".join(f"#{pk}" for pk in held)
                + "): decide those first"
            )
        chosen = [memories[pk] for pk in ids]
        vectors = dict(
            Memory.objects.filter(pk__in=ids, embedding__isnull=False).values_list(
                "pk", "embedding"
            )
        )
        edges = [
            {"a": a.pk, "b": b.pk, "similarity": _cosine(vectors, a.pk, b.pk), "method": "manual"}
            for position, a in enumerate(chosen)
            for b in chosen[position + 1 :]
        ]
        proposed = ProposedCluster(chosen, edges, [f"opened by hand by {user.get_username()}"])
        if held:
            cluster = _grow_cluster(held[0], proposed)
            # The curator's choice brings back a member excluded from it before.
            cluster.memberships.filter(memory__in=ids).update(excluded=False)
        else:
            cluster = _new_cluster(chosen[0].namespace, proposed)
        log_cluster_decision(
            cluster,
            HistoryEvent.Action.OPEN,
            user,
            f"opened by hand from {', '.join(m.external_id for m in chosen)}",
        )
    return cluster


def _cosine(vectors: dict, a: int, b: int) -> float:
    """The cosine of two memories' vectors, 0 when one has none (never embedded)."""
    if a not in vectors or b not in vectors:
        return 0.0
    left, right = numpy.asarray(vectors[a]), numpy.asarray(vectors[b])
    norms = float(numpy.linalg.norm(left) * numpy.linalg.norm(right))
    return round(float(left @ right) / norms, 4) if norms else 0.0


def record_proposal(*, cluster: Cluster, members: Sequence[Memory], draft) -> MergeProposal:
    """Store a merge proposal for an open cluster; earlier pending proposals of the
    cluster are discarded (they were written from other members or another model).
    Side effects: creates one MergeProposal, updates the older pending ones."""
    with transaction.atomic():
        cluster = Cluster.objects.select_for_update().get(pk=cluster.pk)
        if cluster.status != ClusterStatus.OPEN:
            raise DecisionError(f"cluster {cluster.pk} is {cluster.status}, not open")
        MergeProposal.objects.filter(cluster=cluster, status=ProposalStatus.PENDING).update(
            status=ProposalStatus.DISCARDED
        )
        return MergeProposal.objects.create(
            cluster=cluster,
            merged_text=draft.text,
            author=draft.author,
            llm_model=draft.model,
            prompt_version=draft.prompt_version,
            rationale=draft.rationale,
            dropped_facts=draft.dropped_facts,
            warnings=draft.warnings,
            input_tokens=draft.input_tokens,
            output_tokens=draft.output_tokens,
            latency_ms=draft.latency_ms,
            members_fingerprint=MergeProposal.fingerprint(members),
            status=ProposalStatus.DISCARDED if draft.discarded else ProposalStatus.PENDING,
        )


def close(cluster: Cluster, status: str, user) -> None:
    """Mark a locked open cluster decided; its pending proposals are discarded."""
    MergeProposal.objects.filter(cluster=cluster, status=ProposalStatus.PENDING).update(
        status=ProposalStatus.DISCARDED
    )
    cluster.status, cluster.decided_by, cluster.decided_at = status, user, timezone.now()
    cluster.save(update_fields=["status", "decided_by", "decided_at", "updated_at"])


def dismiss_cluster(*, cluster: Cluster, user, reason: str = "") -> None:
    """A curator says the members are not duplicates: the cluster closes, and every pair
    of its members is remembered (PairVerdict `not_duplicate`, by content hash), so the
    same pairs are never proposed again. No memory changes. Refuses with StaleDecision
    when someone decided first."""
    with transaction.atomic():
        cluster = lock_open_cluster(cluster)
        members = cluster_members(cluster)
        why = reason or f"dismissed by {user.get_username()}"
        for position, member in enumerate(members):
            remember_apart(cluster.namespace, member, members[position + 1 :], user, why)
        MergeProposal.objects.filter(cluster=cluster, status=ProposalStatus.PENDING).update(
            status=ProposalStatus.DISMISSED, reviewer=user, decided_at=timezone.now()
        )
        cluster.status = ClusterStatus.DISMISSED
        cluster.decided_by, cluster.decided_at = user, timezone.now()
        cluster.save(update_fields=["status", "decided_by", "decided_at", "updated_at"])
        log_cluster_decision(cluster, HistoryEvent.Action.DISMISS, user, reason or "not duplicates")


def exclude_member(*, cluster: Cluster, memory_id: int, user) -> None:
    """Take one member out ("uncheck it"): it is remembered as no duplicate of the others.
    Refused for a cluster of two: that is a dismissal, which the curator says as such."""
    with transaction.atomic():
        cluster = lock_open_cluster(cluster)
        members = cluster_members(cluster)
        leaving = next((m for m in members if m.pk == memory_id), None)
        if leaving is None:
            raise DecisionError("that memory is not in the cluster")
        if len(members) < 3:
            raise DecisionError(
                "excluding one of two members would leave no cluster: dismiss it instead "
                "(not duplicates), or keep one member"
            )
        ClusterMember.objects.filter(cluster=cluster, memory=leaving).update(excluded=True)
        log_cluster_decision(
            cluster,
            HistoryEvent.Action.EXCLUDE,
            user,
            f"{leaving.external_id} taken out of cluster {cluster.pk}",
            memory=leaving,
        )
        rest = [m for m in members if m.pk != leaving.pk]
        remember_apart(cluster.namespace, leaving, rest, user, f"excluded by {user.get_username()}")
        MergeProposal.objects.filter(cluster=cluster, status=ProposalStatus.PENDING).update(
            status=ProposalStatus.DISCARDED
        )


def split_cluster(*, cluster: Cluster, user) -> list[Cluster]:
    """Cut the cluster in two where the pair model says: the two parts that keep the
    probability of one fact highest within each part, and lowest across (`model_split`).
    The cluster closes as split; each part of two or more becomes an open cluster of its
    own (a lone member goes back to the pool); the pairs across the parts are remembered
    apart. Refused for two members (dismiss or exclude instead)."""
    with transaction.atomic():
        cluster = lock_open_cluster(cluster)
        members = {m.pk: m for m in cluster_members(cluster)}
        if len(members) < 3:
            raise DecisionError("a cluster of two cannot be split: dismiss it, or keep one member")
        edges = [e for e in cluster.edges if e["a"] in members and e["b"] in members]
        groups = model_split(sorted(members), edges)
        group_of = {pk: index for index, group in enumerate(groups) for pk in group}
        parts = []
        for group in groups:
            if len(group) < 2:
                continue
            part_edges = [e for e in edges if e["a"] in group and e["b"] in group]
            # Not open_cluster(): that would grow this very cluster, still open here.
            parts.append(_new_open_cluster(cluster, [members[pk] for pk in group], part_edges))
        for first, second in itertools.combinations(sorted(members), 2):
            if group_of[first] != group_of[second]:
                remember_apart(
                    cluster.namespace,
                    members[first],
                    [members[second]],
                    user,
                    f"split by {user.get_username()}",
                )
        log_cluster_decision(
            cluster,
            HistoryEvent.Action.SPLIT,
            user,
            "split where the pair model parts it into "
            + (", ".join(f"#{part.pk}" for part in parts) or "single members"),
        )
        close(cluster, ClusterStatus.SPLIT, user)
    return parts


# Up to this many members every way to part a cluster in two is weighed (2^(n-1) - 1);
# beyond, the best part found by moving one member at a time from the weakest cut.
WHOLE_SEARCH = 14
# A probability of one fact kept away from 0 and 1, so a log of it is finite.
_SURE = 1e-6


def model_split(members: list[int], edges: list[dict]) -> list[list[int]]:
    """The two parts of `members` (ids) that make the cluster's pairs likeliest: each
    pair within a part one fact, each pair across two facts, by its P(one fact) (an
    edge's `confidence`; its similarity where a hand-made edge has none; 1/2, saying
    nothing, for a pair with no edge). The larger part first."""
    weight = {}
    for edge in edges:
        p = edge.get("confidence", edge["similarity"])
        p = min(1.0 - _SURE, max(_SURE, float(p)))
        weight[frozenset((edge["a"], edge["b"]))] = math.log(p) - math.log(1.0 - p)

    def score(part: frozenset) -> float:
        # Within a part log p, across log (1 - p): up to a constant, the within pairs'
        # log-odds.
        return sum(
            weight.get(frozenset(pair), 0.0)
            for group in (part, frozenset(members) - part)
            for pair in itertools.combinations(sorted(group), 2)
        )

    first, rest = members[0], members[1:]
    if len(members) <= WHOLE_SEARCH:
        candidates = (
            frozenset([first, *chosen])
            for size in range(len(rest))
            for chosen in itertools.combinations(rest, size)
        )
        best = max(candidates, key=score)
    else:
        best = _moved_one_at_a_time(members, score)
    parts = [sorted(best), sorted(set(members) - best)]
    return sorted(parts, key=lambda part: (-len(part), part))


def _moved_one_at_a_time(members: list[int], score) -> frozenset:
    """From the part of the first member alone, move one member at a time across while
    the split gets likelier."""
    best = frozenset(members[:1])
    improved = True
    while improved:
        improved = False
        for member in members:
            moved = best ^ {member}
            if moved and moved != frozenset(members) and score(moved) > score(best):
                best, improved = moved, True
    return best


def _new_open_cluster(parent: Cluster, memories: list[Memory], edges: list[dict]) -> Cluster:
    flags = [*parent.flags, f"split from #{parent.pk}"]
    return _new_cluster(parent.namespace, ProposedCluster(memories, edges, flags))


# The cluster decisions that change no memory, and can be taken back one by one.
UNDOABLE = (HistoryEvent.Action.DISMISS, HistoryEvent.Action.EXCLUDE, HistoryEvent.Action.SPLIT)


def undo_cluster_decision(*, decision: HistoryEvent, user) -> Cluster:
    """Take back one dismissal, exclusion or split, whatever came after it elsewhere:
    the cluster is as it was before it (reopened; the member back in; the parts closed
    and the whole reopened), and the "not duplicate" verdicts that decision wrote are
    forgotten. Refused, saying what to undo first, when the cluster was decided again
    since. Side effects: the cluster rows, the verdicts, one `undo` event pointing at
    the decision."""
    with transaction.atomic():
        decision = HistoryEvent.objects.select_for_update().get(pk=decision.pk)
        if decision.action not in UNDOABLE or decision.cluster_id is None:
            raise DecisionError("only a dismissal, an exclusion or a split can be undone here")
        if HistoryEvent.objects.filter(undoes=decision).exists():
            raise DecisionError("this decision was undone already")
        cluster = Cluster.objects.select_for_update().get(pk=decision.cluster_id)
        who = decision.user.get_username() if decision.user else ""
        members = {m.pk: m for m in Memory.objects.filter(pk__in=decision.related_memory_ids)}
        if decision.action == HistoryEvent.Action.EXCLUDE:
            if cluster.status != ClusterStatus.OPEN:
                raise DecisionError(
                    f"cluster {cluster.pk} was {cluster.status} since: undo that first"
                )
            ClusterMember.objects.filter(cluster=cluster, memory_id=decision.memory_id).update(
                excluded=False
            )
            back = members.pop(decision.memory_id, None)
            _forget_verdicts(
                cluster, [back] if back else [], list(members.values()), f"excluded by {who}"
            )
        else:
            expected = (
                ClusterStatus.DISMISSED
                if decision.action == HistoryEvent.Action.DISMISS
                else ClusterStatus.SPLIT
            )
            if cluster.status != expected:
                raise DecisionError(f"cluster {cluster.pk} is {cluster.status} now, not {expected}")
            if decision.action == HistoryEvent.Action.SPLIT:
                _close_parts(cluster)
                _forget_verdicts(
                    cluster, list(members.values()), list(members.values()), f"split by {who}"
                )
            else:
                _forget_verdicts(
                    cluster, list(members.values()), list(members.values()), f"dismissed by {who}"
                )
                MergeProposal.objects.filter(
                    cluster=cluster, status=ProposalStatus.DISMISSED
                ).update(status=ProposalStatus.PENDING, reviewer=None, decided_at=None)
            cluster.status, cluster.decided_by, cluster.decided_at = ClusterStatus.OPEN, None, None
            cluster.save(update_fields=["status", "decided_by", "decided_at", "updated_at"])
        HistoryEvent.objects.create(
            namespace_id=cluster.namespace_id,
            memory_id=decision.memory_id,
            action=HistoryEvent.Action.UNDO,
            actor=actor_of(user),
            user=user,
            reason=f"{decision.action} of cluster {cluster.pk} undone",
            cluster=cluster,
            related_memory_ids=decision.related_memory_ids,
            undoes=decision,
        )
    return cluster


def _close_parts(parent: Cluster) -> None:
    """A split's parts, when the split is undone: refused if someone decided one since."""
    parts = list(
        Cluster.objects.select_for_update().filter(flags__contains=[f"split from #{parent.pk}"])
    )
    decided = [f"#{part.pk} ({part.status})" for part in parts if part.status != ClusterStatus.OPEN]
    if decided:
        raise DecisionError(
            f"a part of this split was decided since: undo {', '.join(decided)} first"
        )
    for part in parts:
        # Closed without a verdict: its pairs were never judged apart.
        part.status, part.flags = ClusterStatus.SPLIT, [*part.flags, "split undone"]
        part.save(update_fields=["status", "flags", "updated_at"])
        MergeProposal.objects.filter(cluster=part, status=ProposalStatus.PENDING).update(
            status=ProposalStatus.DISCARDED
        )


def _forget_verdicts(cluster: Cluster, ones, others, reason: str) -> None:
    """Delete the "not duplicate" verdicts a decision wrote between `ones` and `others`
    (a person's, with that decision's reason): the pairs may be proposed again."""
    pairs = {
        tuple(sorted((a.content_hash, b.content_hash)))
        for a in ones
        for b in others
        if a.pk != b.pk
    }
    for pair in pairs:
        forget_verdict(
            namespace_id=cluster.namespace_id,
            hashes=pair,
            verdict=PairVerdict.Verdict.NOT_DUPLICATE,
            reason=reason,
        )
