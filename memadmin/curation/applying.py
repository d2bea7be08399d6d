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
    for kind, groups in (("collapse", plan.collapses), ("merge", plan.auto_merges)):
        for group in groups:
            survivor = memories[group.representative]
            others = [memories[p] for p in group.others]
            if len(others) > ops_left:
                report.deferred += len(others)
                continue
            description = (
                f"{kind} {', '.join(m.external_id for m in others)} into {survivor.external_id}"
            )
            if options.dry_run:
                report.actions.append(description)
            else:
                try:
                    decisions.fold_memories(
                        survivor=survivor,
                        others=others,
                        edges=plan_edges(group.edges, memories),
                        action="collapse" if kind == "collapse" else "merge",
                        actor=options.actor,
                        reason="exact duplicate" if kind == "collapse" else "near-identical",
                        run_id=run.pk if run else None,
                    )
                except decisions.DecisionError as error:
                    report.failed += 1
                    logger.warning("DEDUP_FAIL %s: %s", description, error)
                    continue
            ops_left -= len(others)
            if kind == "collapse":
                report.exact_collapsed += len(others)
            else:
                report.auto_merged += len(others)
    _apply_reviews(plan, memories, namespace, options, report)


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
