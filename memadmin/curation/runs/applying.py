"""Applying namespaces' plans (curation.planning) through curation.decisions: exact
collapses and automatic merges within each namespace's cap of operations, then the
clusters for review and the conflicts, each proposed once.

In two steps, so that a batch of namespaces is written with a few set-based statements:
`collect` turns one namespace's plan into what it would write (a dry run stops there and
lists it), `write` writes the collected decisions of a batch in one transaction."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.db import transaction

from memadmin.curation import decisions
from memadmin.curation.models import Tier
from memadmin.curation.runs.planning import Plan
from memadmin.store.models import Memory

if TYPE_CHECKING:
    from memadmin.curation.runs.options import NamespaceReport, Options

logger = logging.getLogger("memadmin.curation")


def plan_edges(group_edges, memories: list[Memory]) -> list[dict]:
    """A plan's edges (positions) as a cluster stores them (memory ids), with each pair's
    P(one fact) where the calibrated model gave one."""
    return [
        {
            "a": memories[e.a].pk,
            "b": memories[e.b].pk,
            "similarity": round(float(e.similarity), 4),
            "method": e.method,
        }
        | ({"confidence": round(float(e.confidence), 4)} if e.confidence is not None else {})
        for e in group_edges
    ]


@dataclass
class Known:
    """What a batch's namespaces were proposed before: clusters' member sets (open or
    decided, under each member) and conflict pairs. Nothing is proposed twice."""

    member_sets: dict[int, list[frozenset[int]]]
    conflict_pairs: set[frozenset[int]]
    # Open possible clusters' member sets and conflicts' pairs: a run that proposes the
    # same again (an LLM's readings decided it since) raises them to proposed.
    possible_sets: set[frozenset[int]] = field(default_factory=set)
    possible_conflicts: set[frozenset[int]] = field(default_factory=set)


@dataclass
class Writes:
    """One namespace's decisions, collected and not yet written."""

    folds: list[decisions.Fold] = field(default_factory=list)
    clusters: list[decisions.ProposedCluster] = field(default_factory=list)
    conflicts: list[tuple[Memory, Memory, dict]] = field(default_factory=list)
    # The judge's audit of the pass (curation.llm.audit.Audit), answered by the time the
    # batch is written.
    audit: object | None = None

    def __bool__(self) -> bool:
        return bool(self.folds or self.clusters or self.conflicts or self.audit)


def collect(
    plan: Plan, memories: list[Memory], options: Options, report: NamespaceReport, known: Known
) -> Writes:
    """What `plan` writes: the folds within --max-ops (the rest counted as deferred), the
    clusters and conflicts not proposed before. A dry run writes nothing: the actions are
    listed and counted on `report` instead, and the Writes come back empty."""
    writes = Writes()
    ops_left = options.max_ops
    for kind, groups in (("collapse", plan.collapses), ("merge", plan.auto_merges)):
        for group in groups:
            survivor = memories[group.representative]
            others = [memories[p] for p in group.others]
            if len(others) > ops_left:
                report.deferred += len(others)
                continue
            ops_left -= len(others)
            if options.dry_run:
                report.actions.append(_described(kind, survivor, others))
                _count_fold(report, kind, len(others))
                continue
            writes.folds.append(
                decisions.Fold(
                    survivor=survivor,
                    others=others,
                    edges=plan_edges(group.edges, memories),
                    action=kind,
                    reason="exact duplicate" if kind == "collapse" else "near-identical",
                )
            )
    for cluster in plan.clusters:
        members = [memories[p] for p in cluster.members]
        ids = frozenset(m.pk for m in members)
        promoted = cluster.tier == Tier.PROPOSED and ids in known.possible_sets
        if not promoted and any(
            ids <= earlier for earlier in known.member_sets.get(members[0].pk, ())
        ):
            continue  # already proposed (open or decided): never proposed twice
        if options.dry_run:
            report.actions.append(
                f"{cluster.tier} cluster {', '.join(m.external_id for m in members)} "
                f"(confidence {cluster.confidence:.2f})"
                + (f" [{', '.join(cluster.flags)}]" if cluster.flags else "")
            )
            report.count_cluster(cluster.tier)
            continue
        writes.clusters.append(
            decisions.ProposedCluster(
                members,
                plan_edges(cluster.edges, memories),
                cluster.flags,
                tier=cluster.tier,
                confidence=cluster.confidence,
                evidence=cluster.evidence,
                explanation=cluster.explanation,
            )
        )
    for candidate in plan.conflicts:
        older, newer = memories[candidate.older], memories[candidate.newer]
        judgement = candidate.judgement
        pair = frozenset((older.pk, newer.pk))
        promoted = judgement.tier == Tier.PROPOSED and pair in known.possible_conflicts
        if pair in known.conflict_pairs and not promoted:
            continue
        if options.dry_run:
            report.actions.append(
                f"{judgement.tier} conflict {older.external_id} / {newer.external_id} "
                f"({judgement.conflict_kind}, confidence {judgement.confidence:.2f}: "
                f"{'; '.join(judgement.reasons)})"
            )
            report.count_conflict(judgement.tier)
            continue
        writes.conflicts.append(
            (older, newer, {**judgement.conflict_fields(), "explanation": candidate.explanation})
        )
    if plan.audit is not None and not options.dry_run:
        writes.audit = plan.audit
    return writes


def _audit_rows(audit) -> dict:
    """An audit (curation.llm.audit.Audit, in positions) as decisions.record_audit keeps
    it, in memory ids."""
    strata, memories = audit.strata, audit.memories
    return {
        "namespace_id": memories[0].namespace_id,
        "strata": [stratum.as_json() for stratum in strata],
        "readings": audit.readings,
        "disagreed": audit.disagreed,
        "whole": audit.whole,
        "pairs": [
            [
                memories[p.older].pk,
                memories[p.newer].pk,
                strata[p.stratum].kind,
                strata[p.stratum].tier,
                p.said,
                p.confidence,
            ]
            for p in audit.pairs
        ],
    }


def write(batch: Sequence[tuple[NamespaceReport, Writes]], *, actor: str) -> None:
    """Write the collected decisions of a batch of namespaces, all in one transaction
    (decisions.fold_many, open_clusters, open_conflicts: set-based statements), then
    count them on each namespace's report. A fold whose memories changed since they were
    read is left out alone (counted as failed, logged DEDUP_FAIL); any other error
    writes nothing of the batch and propagates (the caller retries the namespaces one by
    one, so that one namespace's failure leaves the others done)."""
    folds = [(report, fold) for report, writes in batch for fold in writes.folds]
    clusters = [(report, cluster) for report, writes in batch for cluster in writes.clusters]
    conflicts = [(report, found) for report, writes in batch for found in writes.conflicts]
    namespace_ids = {m.namespace_id for _, c in clusters for m in c.memories[:1]}
    refused, opened, conflicts_opened = [], [], []
    with transaction.atomic():
        if folds:
            _, refused = decisions.fold_many([fold for _, fold in folds], actor=actor)
        if clusters:
            opened = decisions.open_clusters(
                proposed=[cluster for _, cluster in clusters], namespace_ids=sorted(namespace_ids)
            )
        if conflicts:
            conflicts_opened = decisions.open_conflicts([found for _, found in conflicts])
        for _, writes in batch:
            if writes.audit is not None:
                decisions.record_audit(**_audit_rows(writes.audit))
    left_out = {id(fold): reason for fold, reason in refused}
    for report, fold in folds:
        if id(fold) in left_out:
            report.failed += 1
            logger.warning(
                "DEDUP_FAIL %s: %s",
                _described(fold.action, fold.survivor, fold.others),
                left_out[id(fold)],
            )
        else:
            _count_fold(report, fold.action, len(fold.others))
    for (report, proposed), (_, created) in zip(clusters, opened, strict=True):
        if created:
            report.count_cluster(proposed.tier)
        else:
            report.clusters_grown += 1
    for (report, (_, _, fields)), created in zip(conflicts, conflicts_opened, strict=True):
        if created:
            report.count_conflict(fields["tier"])


def _count_fold(report: NamespaceReport, kind: str, folded: int) -> None:
    if kind == "collapse":
        report.exact_collapsed += folded
    else:
        report.auto_merged += folded


def _described(kind: str, survivor: Memory, others: list[Memory]) -> str:
    return f"{kind} {', '.join(m.external_id for m in others)} into {survivor.external_id}"
