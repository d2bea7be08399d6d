"""The store's own error rate, measured: the precision and recall of what detection
proposed, per kind (clusters: one fact; conflicts) and tier, against the pairs people
labelled, with a 90 % interval.

The labels are of two kinds. A person's decision labels the pairs it decided: an
accepted cluster's members are one fact, a dismissed cluster's (and a member a curator
took out, with the others) two facts; a settled conflict a conflict, one dismissed or
found "both valid" two facts. They are read from the decided clusters and conflicts
themselves, so an undo takes them back. A labelled sample (`import_labels`) labels the
pairs it lists, whatever detection made of them, and where it and a decision disagree
the sample's label holds. Precision rests on every labelled pair detection proposed;
recall only on the sample's: decisions label only what detection proposed, and would
make any recall look perfect."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from dataclasses import dataclass

from memadmin.curation.models import (
    Cluster,
    ClusterMember,
    ClusterStatus,
    Conflict,
    ConflictResolution,
    ConflictStatus,
    LabelledMemory,
    PairLabel,
    Tier,
)
from memadmin.store.models import Namespace

ONE, CONFLICT, TWO = (PairLabel.Label.ONE_FACT, PairLabel.Label.CONFLICT, PairLabel.Label.TWO_FACTS)
# The normal quantile of a two-sided 90 % interval.
Z_90 = 1.6449
# A tier and the tiers at least as sure: what "found at this tier" counts for recall.
_AT_LEAST = {Tier.PROPOSED: {Tier.PROPOSED}, Tier.POSSIBLE: {Tier.PROPOSED, Tier.POSSIBLE}}

Pair = tuple[int, int]  # two memory ids, the smaller first
# The bins of what detection said (a cluster's or conflict's confidence) the reliability
# chart compares with what the labels measured.
BINS = (0.2, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@dataclass(frozen=True)
class Claim:
    """What detection said of a pair: the tier and the confidence of the surest cluster
    or conflict that holds it."""

    tier: str
    confidence: float

    def surer(self, other: Claim | None) -> Claim:
        if other is None:
            return self
        return max(self, other, key=lambda c: (c.tier == Tier.PROPOSED, c.confidence))


def measured(namespace: Namespace | None = None) -> dict:
    """{"clusters" | "conflicts": {tier: {"precision", "interval", "pairs", "recall",
    "recall_interval", "recall_pairs"}}}: each figure None (and its interval empty) where
    no labelled pair bears on it. `namespace`: one namespace's, else the store's."""
    labels, sampled = _labels(namespace)
    found = _claims(labels, namespace)
    figures = {}
    for kind, right in (("clusters", ONE), ("conflicts", CONFLICT)):
        claims, figures[kind] = found[kind], {}
        for tier in (Tier.PROPOSED, Tier.POSSIBLE):
            judged = [
                labels[p] == right
                for p, said in claims.items()
                if said.tier == tier and p in labels
            ]
            positives = [p for p in sampled if labels[p] == right]
            hit = [p in claims and claims[p].tier in _AT_LEAST[tier] for p in positives]
            figures[kind][str(tier)] = {
                "precision": _share(judged),
                "interval": wilson(sum(judged), len(judged)),
                "pairs": len(judged),
                "recall": _share(hit),
                "recall_interval": wilson(sum(hit), len(hit)),
                "recall_pairs": len(hit),
            }
    return figures


def reliability(namespace: Namespace | None = None) -> dict[str, list[dict]]:
    """Per kind, per bin of what detection said of the labelled pairs it proposed (BINS):
    the mean confidence it said, the share the labels found right, and how many pairs (a
    bin without any left out). A model that says what it measures lies on the diagonal."""
    labels, _ = _labels(namespace)
    found = _claims(labels, namespace)
    points = {}
    for kind, right in (("clusters", ONE), ("conflicts", CONFLICT)):
        binned = defaultdict(list)
        for pair, claim in found[kind].items():
            if pair in labels:
                low = max((edge for edge in BINS[:-1] if claim.confidence >= edge), default=0.0)
                binned[low].append((claim.confidence, labels[pair] == right))
        points[kind] = [
            {
                "low": low,
                "high": BINS[BINS.index(low) + 1] if low in BINS else BINS[0],
                "said": round(sum(c for c, _ in found_in) / len(found_in), 3),
                "measured": round(sum(r for _, r in found_in) / len(found_in), 3),
                "pairs": len(found_in),
            }
            for low, found_in in sorted(binned.items())
        ]
    return points


def labelled_pairs(namespace: Namespace | None = None) -> int:
    """How many pairs the store's people and samples labelled."""
    return len(_labels(namespace)[0])


def wilson(successes: int, trials: int, z: float = Z_90) -> list[float]:
    """The Wilson score interval of a share (empty without trials): unlike share ± z·se,
    it stays within 0-1 and holds for the small counts a store's labels give."""
    if not trials:
        return []
    share = successes / trials
    centre = (share + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials))
    half /= 1 + z * z / trials
    return [round(max(0.0, centre - half), 3), round(min(1.0, centre + half), 3)]


def _share(hits: list[bool]) -> float | None:
    return round(sum(hits) / len(hits), 3) if hits else None


def _claims(labels: dict[Pair, str], namespace) -> dict[str, dict[Pair, Claim]]:
    """What detection said of the labelled memories' pairs, by kind. A pair two memories
    of one complete sample hold and no label names is two facts (added to `labels`)."""
    covered = LabelledMemory.objects.all()
    if namespace is not None:
        covered = covered.filter(memory__namespace=namespace)
    sample_of = dict(covered.values_list("memory_id", "source"))
    ids = {i for pair in labels for i in pair} | set(sample_of)
    found = {"clusters": _clustered(ids, namespace), "conflicts": _in_conflicts(ids, namespace)}
    for claims in found.values():
        for a, b in claims:
            if (a, b) not in labels and sample_of.get(a, a) == sample_of.get(b, b):
                labels[(a, b)] = TWO
    return found


def _labels(namespace) -> tuple[dict[Pair, str], set[Pair]]:
    """Every labelled pair's label, and the pairs a sample labelled (their label holds)."""
    labels = _decided(namespace)
    sample = PairLabel.objects.all()
    if namespace is not None:
        sample = sample.filter(namespace=namespace)
    sampled = set()
    for a, b, label in sample.values_list("memory_a_id", "memory_b_id", "label"):
        if label == PairLabel.Label.UNSURE:
            continue  # a person could not tell: it says nothing
        labels[(a, b)] = label
        sampled.add((a, b))
    return labels, sampled


def _decided(namespace) -> dict[Pair, str]:
    """The pairs people's decisions labelled, read from what they decided."""
    labels: dict[Pair, str] = {}
    clusters = Cluster.objects.filter(
        decided_by__isnull=False, status__in=[ClusterStatus.ACCEPTED, ClusterStatus.DISMISSED]
    )
    if namespace is not None:
        clusters = clusters.filter(namespace=namespace)
    members = defaultdict(list)
    for cluster_id, status, memory_id, excluded, taken in ClusterMember.objects.filter(
        cluster__in=clusters
    ).values_list("cluster_id", "cluster__status", "memory_id", "excluded", "taken_note"):
        if taken:
            continue  # another decision took it: nobody judged it here
        members[(cluster_id, status)].append((memory_id, excluded))
    for (_, status), found in members.items():
        kept = [i for i, excluded in found if not excluded]
        said = ONE if status == ClusterStatus.ACCEPTED else TWO
        for pair in itertools.combinations(sorted(kept), 2):
            labels[pair] = said
        for out, other in itertools.product([i for i, e in found if e], kept):
            labels[_pair(out, other)] = TWO  # a curator took it out: not that fact
    conflicts = Conflict.objects.filter(
        resolver__isnull=False, status__in=[ConflictStatus.RESOLVED, ConflictStatus.DISMISSED]
    )
    if namespace is not None:
        conflicts = conflicts.filter(namespace=namespace)
    for a, b, status, resolution in conflicts.values_list(
        "memory_a_id", "memory_b_id", "status", "resolution"
    ):
        apart = status == ConflictStatus.DISMISSED or resolution == ConflictResolution.BOTH_VALID
        labels[_pair(a, b)] = TWO if apart else CONFLICT
    return labels


def _clustered(ids: set[int], namespace) -> dict[Pair, Claim]:
    """What the surest cluster that put two of `ids` together said of them."""
    members = ClusterMember.objects.filter(memory_id__in=list(ids))
    if namespace is not None:
        members = members.filter(cluster__namespace=namespace)
    by_cluster = defaultdict(list)
    said = {}
    for cluster_id, tier, confidence, memory_id in members.values_list(
        "cluster_id", "cluster__tier", "cluster__confidence", "memory_id"
    ):
        by_cluster[cluster_id].append(memory_id)
        said[cluster_id] = Claim(tier, confidence)
    claims: dict[Pair, Claim] = {}
    for cluster_id, found in by_cluster.items():
        for pair in itertools.combinations(sorted(found), 2):
            claims[pair] = said[cluster_id].surer(claims.get(pair))
    return claims


def _in_conflicts(ids: set[int], namespace) -> dict[Pair, Claim]:
    """What the surest conflict between two of `ids` said of them."""
    conflicts = Conflict.objects.filter(memory_a_id__in=list(ids), memory_b_id__in=list(ids))
    if namespace is not None:
        conflicts = conflicts.filter(namespace=namespace)
    claims: dict[Pair, Claim] = {}
    for a, b, tier, confidence in conflicts.values_list(
        "memory_a_id", "memory_b_id", "tier", "confidence"
    ):
        claims[_pair(a, b)] = Claim(tier, confidence).surer(claims.get(_pair(a, b)))
    return claims


def _pair(a: int, b: int) -> Pair:
    return (a, b) if a < b else (b, a)
