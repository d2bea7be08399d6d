"""Applying one namespace's plan (curation.planning) through curation.decisions: exact
collapses and automatic merges within the run's cap of operations, then the clusters for
review and the conflicts, each proposed once. A dry run writes nothing and lists what it
would do."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from memadmin.curation import decisions, queries
from memadmin.curation.planning import Plan
from memadmin.store.models import Memory, Namespace

if TYPE_CHECKING:
    from memadmin.curation.models import DedupRun
    from memadmin.curation.runs import NamespaceReport, Options

logger = logging.getLogger("memadmin.curation")


def plan_edges(group_edges, memories: list[Memory]) -> list[dict]:
    """A plan's edges (positions) as a cluster stores them (memory ids)."""
    return [
        {
            "a": memories[e.a].pk,
            "b": memories[e.b].pk,
            "similarity": round(float(e.similarity), 4),
            "method": e.method,
        }
        for e in group_edges
    ]


def apply_plan(
    plan: Plan,
    memories: list[Memory],
    namespace: Namespace,
    options: Options,
    report: NamespaceReport,
    run: DedupRun | None,
) -> None:
    """Apply `plan` (see the module's docstring); counts go on `report`."""
    ops_left = options.max_ops
    folds = []
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
            folds.append(
                decisions.Fold(
                    survivor=survivor,
                    others=others,
                    edges=plan_edges(group.edges, memories),
                    action="collapse" if kind == "collapse" else "merge",
                    reason="exact duplicate" if kind == "collapse" else "near-identical",
                )
            )
    refused = []
    if folds and not options.dry_run:
        # One set-based write for the whole namespace (decisions.fold_many).
        _, refused = decisions.fold_many(folds, actor=options.actor, run_id=run.pk if run else None)
    for fold, reason in refused:
        report.failed += 1
        logger.warning(
            "DEDUP_FAIL %s: %s", _described(fold.action, fold.survivor, fold.others), reason
        )
    left_out = {id(fold) for fold, _ in refused}
    for fold in folds:
        if id(fold) in left_out:
            continue
        if fold.action == "collapse":
            report.exact_collapsed += len(fold.others)
        else:
            report.auto_merged += len(fold.others)
    if folds and not options.dry_run:
        logger.info(
            "DEDUP_MERGE namespace=%s collapsed=%d merged=%d failed=%d run=%s",
            namespace.name,
            report.exact_collapsed,
            report.auto_merged,
            report.failed,
            run.pk if run else None,
        )
    _apply_reviews(plan, memories, namespace, options, report)


def _described(kind: str, survivor: Memory, others: list[Memory]) -> str:
    return f"{kind} {', '.join(m.external_id for m in others)} into {survivor.external_id}"


def _apply_reviews(plan, memories, namespace, options, report) -> None:
    existing_sets = queries.existing_member_sets(namespace)
    proposed = []
    for cluster in plan.clusters:
        members = [memories[p] for p in cluster.members]
        ids = frozenset(m.pk for m in members)
        if any(ids <= known for known in existing_sets.get(members[0].pk, ())):
            continue  # already proposed (open or decided): never proposed twice
        if options.dry_run:
            report.actions.append(
                f"cluster {', '.join(m.external_id for m in members)}"
                + (f" [{', '.join(cluster.flags)}]" if cluster.flags else "")
            )
            report.clusters_opened += 1
            continue
        proposed.append(
            decisions.ProposedCluster(members, plan_edges(cluster.edges, memories), cluster.flags)
        )
    if proposed:
        for _, created in decisions.open_clusters(namespace=namespace, proposed=proposed):
            if created:
                report.clusters_opened += 1
            else:
                report.clusters_grown += 1
    known_conflicts = queries.existing_conflict_pairs(namespace)
    for candidate in plan.conflicts:
        older, newer = memories[candidate.older], memories[candidate.newer]
        if frozenset((older.pk, newer.pk)) in known_conflicts:
            continue
        judgement = candidate.judgement
        if options.dry_run:
            report.actions.append(
                f"conflict {older.external_id} / {newer.external_id} ({judgement.conflict_kind}: "
                f"{'; '.join(judgement.reasons)})"
            )
            report.conflicts_opened += 1
            continue
        _, created = decisions.open_conflict(
            older=older, newer=newer, **judgement.conflict_fields()
        )
        report.conflicts_opened += int(created)
