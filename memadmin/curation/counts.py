"""Counts with one definition each, shared by the dashboard, the queues and the commands:
what a decision is, what an automatic merge is."""

from __future__ import annotations

from collections import Counter
from datetime import date

from django.db.models import Case, F, IntegerField, OuterRef, Subquery, Sum, When
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, Coalesce, Trunc, TruncDate
from django.utils import timezone

from memadmin.curation.models import DedupRun, HistoryEvent

DECISION_ACTIONS = {
    HistoryEvent.Action.MERGE,  # an accepted merge, or a member kept
    HistoryEvent.Action.DISMISS,
    HistoryEvent.Action.EXCLUDE,
    HistoryEvent.Action.SPLIT,
    HistoryEvent.Action.OPEN,
    HistoryEvent.Action.RESOLVE,  # a conflict settled
}
UNDO_ACTIONS = {HistoryEvent.Action.UNMERGE, HistoryEvent.Action.UNDO}


def decided_today(about: str, user) -> tuple[int, int]:
    """(all, this user's) decisions today on clusters (`about` "cluster") or conflicts,
    by decisions_per_day's definition: a queue's "N decided today (you: K)"."""
    today = timezone.localdate()
    everyone = decisions_per_day(today, about=about)["decisions"][today]
    mine = decisions_per_day(today, about=about, user=user)["decisions"][today]
    return everyone, mine


def decisions_per_day(since: date, *, about: str = "", user=None) -> dict[str, Counter]:
    """People's decisions per day since `since`: every merge, member kept, dismissal,
    exclusion, split, cluster opened by hand and settlement, as the history holds them
    (whatever became of them since), and the undos apart. One decision writes an event
    per memory it changes: the events of one person on one cluster or conflict (else one
    memory) within one second are one decision, told apart in the database."""
    decisions = (
        HistoryEvent.objects.filter(
            created_at__date__gte=since,
            user__isnull=False,
            action__in=DECISION_ACTIONS | UNDO_ACTIONS,
            **({f"{about}__isnull": False} if about else {}),
            **({"user": user} if user is not None else {}),
        )
        .annotate(
            day=TruncDate("created_at"),
            second=Trunc("created_at", "second"),
            undo=Case(When(action__in=UNDO_ACTIONS, then=1), default=0),
            # A memory tells decisions apart only where no cluster or conflict does.
            alone=Case(
                When(cluster__isnull=True, conflict__isnull=True, then=F("memory_id")),
                default=None,
            ),
        )
        .values_list("day", "undo", "user_id", "cluster_id", "conflict_id", "alone", "second")
        .order_by()  # the model's ordering would take part in DISTINCT
        .distinct()
    )
    found = {"decisions": Counter(), "undos": Counter()}
    for day, undo, *_ in decisions:
        found["undos" if undo else "decisions"][day] += 1
    return found


def automatic_merges_per_namespace(*, since):
    """Automatic merges (what find_duplicates prints as "auto-merged"): the
    near-duplicates runs merged with no person since `since`, exact collapses apart,
    counted when made (undone since or not). A subquery per namespace."""
    made = (
        DedupRun.objects.filter(namespace=OuterRef("pk"), dry_run=False, started_at__gte=since)
        .annotate(merged=Cast(KeyTextTransform("auto_merged", "counts"), IntegerField()))
        .values("namespace")
        .annotate(total=Sum("merged"))
        .values("total")
    )
    return Coalesce(Subquery(made), 0)
