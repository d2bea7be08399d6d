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
from collections import Counter, defaultdict
from dataclasses import dataclass

from django.db.models import Count, F, OuterRef, Q, Subquery

from memadmin.curation.models import (
    Cluster,
    ClusterMember,
    ClusterStatus,
    Conflict,
    ConflictResolution,
    ConflictStatus,
    JudgeAudit,
    LabelledMemory,
    PairLabel,
    Tier,
)
from memadmin.curation.reads import audited
from memadmin.store.models import Memory, MemoryStatus, Namespace

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
    """{"clusters" | "conflicts": {tier: {"precision", "interval", "pairs", "by",
    "recall", "recall_interval", "recall_pairs", "recall_by"}}, "judge": ...}: each figure
    None (and its interval empty) where no labelled or audited pair bears on it.
    `namespace`: one namespace's, else the store's.

    Each figure is the people's (their labels) or the judge's (each namespace's audits
    since its newest whole pass, _standing_audits, corrected for the judge's error:
    curation.llm.audit), whichever rests on more pairs ("by" says which); "judge" is the
    judge's measured error rate ({"error", "interval", "pairs"}, None without an
    audit)."""
    people = _by_people(namespace)
    judge = by_judge(namespace)
    figures: dict = {}
    for kind in ("clusters", "conflicts"):
        figures[kind] = {}
        for tier, theirs in people[kind].items():
            audited = judge[kind][tier] if judge else None
            figures[kind][tier] = {
                **_more_pairs(theirs, audited, ("precision", "interval", "pairs"), "by"),
                **_more_pairs(
                    theirs, audited, ("recall", "recall_interval", "recall_pairs"), "recall_by"
                ),
            }
    figures["judge"] = judge["judge"] if judge else None
    return figures


def _more_pairs(people: dict, judge: dict | None, names: tuple[str, str, str], by: str) -> dict:
    """The figure `names` (value, interval, pairs) of the source that rests on more pairs
    (the people's where as many)."""
    value, _, pairs = names
    if judge is not None and judge[value] is not None and judge[pairs] > people[pairs]:
        return {name: judge[name] for name in names} | {by: "judge"}
    return {name: people[name] for name in names} | {
        by: "people" if people[value] is not None else ""
    }


def by_judge(namespace: Namespace | None = None) -> dict | None:
    """What the standing audits of each namespace (of `namespace` only, when given)
    measured (reads.audited.estimate), or None where no pass was audited."""
    found = _standing_audits(namespace)
    if not _any_pair(found):
        return None  # no pair was audited: band sizes alone measure nothing
    strata = [audited.Stratum.from_json(s) for listed, *_ in found for s in listed]
    readings = sum(r for _, r, _, _ in found)
    disagreed = sum(d for _, _, d, _ in found)
    return audited.estimate(strata, readings, disagreed)


def _by_people(namespace: Namespace | None) -> dict:
    """The figures of measured() from the pairs people and samples labelled alone."""
    labels, sampled, queued = _labels(namespace)
    found = _claims(labels, namespace)
    weights = _queue_weights(queued, found, namespace)
    figures = {}
    for kind, right in (("clusters", ONE), ("conflicts", CONFLICT)):
        claims, figures[kind] = found[kind], {}
        for tier in (Tier.PROPOSED, Tier.POSSIBLE):
            judged = [
                labels[p] == right
                for p, said in claims.items()
                if said.tier == tier and p in labels
            ]
            figures[kind][str(tier)] = {
                "precision": _share(judged),
                "interval": wilson(sum(judged), len(judged)),
                "pairs": len(judged),
            }
            # Recall from the files' samples as they are, or from the audit queue's with
            # each band weighed by its size: whichever holds more positives.
            recalls = []
            for pairs, weight in ((sampled - queued, None), (queued, weights)):
                positives = [p for p in pairs if labels[p] == right]
                hit = [p in claims and claims[p].tier in _AT_LEAST[tier] for p in positives]
                shares = [1.0] * len(hit) if weight is None else [weight[p] for p in positives]
                recalls.append((len(hit), _weighted(hit, shares)))
            count, (recall, interval) = max(recalls, key=lambda found: found[0])
            figures[kind][str(tier)] |= {
                "recall": recall,
                "recall_interval": interval,
                "recall_pairs": count,
            }
    return figures


def _queue_weights(queued: set[Pair], found: dict, namespace) -> dict[Pair, float]:
    """Each pair the audit queue labelled, weighed by its band: how many pairs the band
    holds now for each labelled pair in it. The queue draws a band at random, each
    alike (reads.audit), so a small band's pairs are over-represented there and the
    near pairs nothing was proposed for, the largest band, under-represented."""
    band_of = {}
    for pair in queued:
        band_of[pair] = next(
            ((kind, str(claims[pair].tier)) for kind, claims in found.items() if pair in claims),
            ("near", ""),
        )
    sizes = _band_sizes(namespace)
    labelled = Counter(band_of.values())
    return {pair: sizes.get(band, 0) / labelled[band] or 1.0 for pair, band in band_of.items()}


def _band_sizes(namespace) -> dict[tuple[str, str], int]:
    """The pairs of each band the audit queue draws from, counted as it draws them:
    pairs inside the clusters of a tier, conflicts of a tier, and one near pair for each
    active memory."""
    clusters = Cluster.objects.all()
    conflicts = Conflict.objects.exclude(status=ConflictStatus.COPY)
    memories = Memory.objects.filter(status=MemoryStatus.ACTIVE)
    if namespace is not None:
        clusters, conflicts = (
            clusters.filter(namespace=namespace),
            conflicts.filter(namespace=namespace),
        )
        memories = memories.filter(namespace=namespace)
    sizes: Counter = Counter()
    sized = clusters.annotate(size=Count("memberships")).values_list("tier", "size")
    for tier, size in sized:
        sizes[("clusters", str(tier))] += size * (size - 1) // 2
    for tier, count in conflicts.values_list("tier").annotate(count=Count("pk")):
        sizes[("conflicts", str(tier))] += count
    sizes[("near", "")] = memories.count()
    return sizes


def _weighted(hits: list[bool], weights: list[float]) -> tuple[float | None, list[float]]:
    """A weighted share and its Wilson interval at the sample's effective size (Kish's:
    a few heavy weights count as few pairs)."""
    if not hits:
        return None, []
    total = sum(weights)
    share = sum(w for hit, w in zip(hits, weights, strict=True) if hit) / total
    effective = total * total / sum(w * w for w in weights)
    low, high = _wilson_share(share, effective)
    return round(share, 3), [low, high]


def reliability(
    namespace: Namespace | None = None, judge_error: float | None = None
) -> dict[str, list[dict]]:
    """Per kind, per bin of what detection said of the labelled pairs it proposed (BINS):
    the mean confidence it said, the share the labels found right, and how many pairs (a
    bin without any left out). A model that says what it measures lies on the diagonal.
    Where the judge's standing audits (curation.llm.audit) hold more such pairs than the
    labels, their answers, corrected for the judge's error, are what was measured.
    `judge_error`: the error measured() gave the judge, if the caller has it (an estimate
    is the costly part; without it, it is estimated again)."""
    people = _reliability_by_people(namespace)
    audits = _standing_audits(namespace)
    if not _any_pair(audits):
        return people
    error = judge_error if judge_error is not None else by_judge(namespace)["judge"]["error"]
    pairs = [(row[2], row[4], row[5]) for _, _, _, rows in audits for row in rows]
    judge = audited.reliability(pairs, error, BINS)
    return {
        kind: judge[kind]
        if sum(p["pairs"] for p in judge[kind]) > sum(p["pairs"] for p in people[kind])
        else people[kind]
        for kind in people
    }


def _standing_audits(namespace: Namespace | None) -> list[tuple]:
    """(strata, readings, disagreed, pairs) of the audits that measure what each namespace
    holds now: its newest audit of a whole pass and those of the incremental passes since
    (each its increment's bands: side by side, strata of one population), or every audit
    of a namespace no whole pass audited. An incremental pass alone would have its few
    new pairs stand for the whole namespace."""
    newest_whole = (
        JudgeAudit.objects.filter(namespace=OuterRef("namespace"), whole=True)
        .order_by("-created_at")
        .values("created_at")[:1]
    )
    audits = JudgeAudit.objects.annotate(since=Subquery(newest_whole)).filter(
        Q(since__isnull=True) | Q(created_at__gte=F("since"))
    )
    if namespace is not None:
        audits = audits.filter(namespace=namespace)
    return list(audits.values_list("strata", "readings", "disagreed", "pairs"))


def _any_pair(audits: list[tuple]) -> bool:
    """Whether any of these audits (_standing_audits) asked a pair: band sizes alone
    measure nothing."""
    return any(pairs for *_, pairs in audits)


def _reliability_by_people(namespace: Namespace | None) -> dict[str, list[dict]]:
    labels, _, _ = _labels(namespace)
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


def anything_measured(namespace: Namespace | None = None) -> bool:
    """Whether a labelled pair or an audit of the judge's gives any figure."""
    return _any_pair(_standing_audits(namespace)) or bool(labelled_pairs(namespace))


def wilson(successes: int, trials: int, z: float = Z_90) -> list[float]:
    """The Wilson score interval of a share (empty without trials): unlike share ± z·se,
    it stays within 0-1 and holds for the small counts a store's labels give."""
    if not trials:
        return []
    return list(_wilson_share(successes / trials, trials, z))


def _wilson_share(share: float, trials: float, z: float = Z_90) -> tuple[float, float]:
    centre = (share + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials))
    half /= 1 + z * z / trials
    return round(max(0.0, centre - half), 3), round(min(1.0, centre + half), 3)


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


def _labels(namespace) -> tuple[dict[Pair, str], set[Pair], set[Pair]]:
    """Every labelled pair's label, the pairs a sample or the audit queue labelled (their
    label holds), and of those the audit queue's."""
    labels = _decided(namespace)
    sample = PairLabel.objects.all()
    if namespace is not None:
        sample = sample.filter(namespace=namespace)
    sampled, queued = set(), set()
    for a, b, label, source in sample.values_list("memory_a_id", "memory_b_id", "label", "source"):
        if label == PairLabel.Label.UNSURE:
            continue  # a person could not tell: it says nothing
        labels[(a, b)] = label
        sampled.add((a, b))
        if source == PairLabel.AUDIT_QUEUE:
            queued.add((a, b))
    return labels, sampled, queued


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
