"""A namespace's automatic folds written set-based (decisions.fold_many) leave exactly
what folding them one at a time (decisions.fold_memories, the path before) leaves: the
same memories, clusters, conflicts and history, on the dev set."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from django.db import transaction
from django.utils import timezone

from memadmin.curation import decisions
from memadmin.curation.decisions.clusters import weakest
from memadmin.curation.decisions.history import event, lock_active, snapshot
from memadmin.curation.decisions.merges import FOLDED_FIELDS
from memadmin.curation.models import Cluster, ClusterMember, ClusterStatus, HistoryEvent
from memadmin.store.models import Memory, MemoryStatus
from memadmin.store.validation import capped_sum
from tests.factories import run_state

pytestmark = pytest.mark.django_db


# The fold as it was written before fold_many, kept here as the reference.
def fold_as_before(
    *,
    survivor: Memory,
    others: Sequence[Memory],
    edges: list[dict],
    action: str,
    actor: str,
    reason: str,
    run_id: int | None = None,
    into: Cluster | None = None,
) -> Cluster:
    """Fold `others` into `survivor` (an exact collapse or an automatic merge): the
    survivor keeps its text and gains the others' tags, provenance and sessions, the
    maximum importance and confidence; the others become superseded by it.

    Side effects, in one transaction: updates the survivor and supersedes the others
    (each with a history event holding before and after), and records an `auto_merged`
    Cluster whose events an unmerge reads. Refuses (DecisionError, nothing changed) when
    any memory is no longer active.
    """
    now = timezone.now()
    with transaction.atomic():
        locked = lock_active([survivor.pk, *(m.pk for m in others)])
        survivor, others = locked[survivor.pk], [locked[m.pk] for m in others]
        before = snapshot(survivor)
        for other in others:
            survivor.tags = survivor.tags + [t for t in other.tags if t not in survivor.tags]
            survivor.provenance = survivor.provenance + [
                entry for entry in other.provenance if entry not in survivor.provenance
            ]
            survivor.importance = max(survivor.importance, other.importance)
            survivor.confidence = max(survivor.confidence, other.confidence)
            survivor.access_count = capped_sum([survivor.access_count, other.access_count])
        # updated_at stays: what the run itself changed is no news for the next
        # incremental run (else a survivor would be compared again and chain merges).
        survivor.save(update_fields=FOLDED_FIELDS)
        if into is not None:
            cluster = into  # a reviewed cluster a curator folded: its caller closes it
        else:
            cluster = Cluster.objects.create(
                namespace_id=survivor.namespace_id,
                status=ClusterStatus.AUTO_MERGED,
                edges=edges,
                min_similarity=min((e["similarity"] for e in edges), default=1.0),
                weakest_link=weakest(edges),
                flags=[action],
                decided_at=now,
            )
            ClusterMember.objects.bulk_create(
                ClusterMember(cluster=cluster, memory=m) for m in [survivor, *others]
            )
        befores = {other.pk: snapshot(other) for other in others}
        Memory.objects.filter(pk__in=befores).update(
            status=MemoryStatus.SUPERSEDED, superseded_by=survivor, updated_at=now
        )
        events = [
            event(
                survivor,
                action,
                actor=actor,
                before=before,
                reason=reason,
                related_memory_ids=[m.pk for m in others],
                cluster=cluster,
            )
        ]
        for other in others:
            other.status, other.superseded_by_id = MemoryStatus.SUPERSEDED, survivor.pk
            events.append(
                event(
                    other,
                    HistoryEvent.Action.SUPERSEDE,
                    actor=actor,
                    before=befores[other.pk],
                    reason=reason,
                    related_memory_ids=[survivor.pk],
                    cluster=cluster,
                )
            )
        HistoryEvent.objects.bulk_create(events)
    return cluster


def one_at_a_time(folds, *, actor, run_id=None):
    """The path before: one fold (its own transaction) per fold."""
    made, refused = [], []
    for fold in folds:
        try:
            made.append(
                fold_as_before(
                    survivor=fold.survivor,
                    others=fold.others,
                    edges=fold.edges,
                    action=fold.action,
                    actor=actor,
                    reason=fold.reason,
                    run_id=run_id,
                )
            )
        except decisions.DecisionError as problem:
            refused.append((fold, str(problem)))
    return made, refused


def test_bulk_folds_leave_what_folds_one_at_a_time_leave(
    run_command, dev_memories_path, monkeypatch
):
    with transaction.atomic():
        monkeypatch.setattr(decisions, "fold_many", one_at_a_time)
        assert run_command("import_memories", str(dev_memories_path)).error is None
        assert run_command("find_duplicates", "--no-llm").error is None
        before = run_state()
        transaction.set_rollback(True)
    monkeypatch.undo()

    assert run_command("import_memories", str(dev_memories_path)).error is None
    assert run_command("find_duplicates", "--no-llm").error is None
    after = run_state()

    folded = [h for h in after["history"] if h[1] in ("collapse", "merge")]
    assert len(folded) > 5  # the dev set has folds to compare
    assert after == before


def test_a_fold_whose_memory_was_retired_meanwhile_is_left_out_alone():
    from tests.factories import line, store, unit

    a, b, c, d = store(
        line("a", "Prefers tea.", unit(1)),
        line("b", "prefers tea", unit(1)),
        line("c", "Lives in Porto.", unit(2)),
        line("d", "lives in porto", unit(2)),
    )
    Memory.objects.filter(pk=d.pk).update(status="deleted")
    folds = [
        decisions.Fold(
            a,
            [b],
            [{"a": a.pk, "b": b.pk, "similarity": 1.0, "method": "exact"}],
            "collapse",
            "exact duplicate",
        ),
        decisions.Fold(
            c,
            [d],
            [{"a": c.pk, "b": d.pk, "similarity": 1.0, "method": "exact"}],
            "collapse",
            "exact duplicate",
        ),
    ]

    made, refused = decisions.fold_many(folds, actor="test")

    assert len(made) == 1 and [(f.survivor.external_id, r) for f, r in refused] == [
        ("c", "no longer active: d")
    ]
    assert Memory.objects.get(pk=b.pk).status == "superseded"
    assert Memory.objects.get(pk=c.pk).status == "active"
    assert not HistoryEvent.objects.filter(memory__in=[c.pk, d.pk], action="collapse").exists()
