"""Counts with one definition each, shared by the dashboard, the queues and the commands:
what a decision is, what an automatic merge is."""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime, time, timedelta

from django.db import connection
from django.db.models import Case, Count, F, Q, Value, When
from django.db.models.functions import Coalesce, TruncDate
from django.utils import timezone

from memadmin.curation.models import Cluster, ClusterStatus, Conflict, DedupRun, HistoryEvent
from memadmin.store.queries import count_per_namespace

DECISION_ACTIONS = {
    HistoryEvent.Action.MERGE,  # an accepted merge, or a member kept
    HistoryEvent.Action.DISMISS,
    HistoryEvent.Action.EXCLUDE,
    HistoryEvent.Action.SPLIT,
    HistoryEvent.Action.OPEN,
    HistoryEvent.Action.RESOLVE,  # a conflict settled
}
UNDO_ACTIONS = {HistoryEvent.Action.UNMERGE, HistoryEvent.Action.UNDO}


# One decision writes an event per memory it changes, each stamped when it is written: a
# decision is one person's events on one cluster or conflict (else on one memory: _ALONE),
# each less than a second after the one before. Told apart by that gap, not by the
# second each falls in: a decision whose events straddle a second's turn (a loaded
# machine, a few milliseconds apart) is still one.
_ALONE = Case(When(cluster__isnull=True, conflict__isnull=True, then=F("memory_id")), default=None)
_DECISION_OF = ("user_id", "cluster_id", "conflict_id", "alone", "undo")
# The first event of each decision from the start a count takes (a parameter), from a
# query of events giving created_at and _DECISION_OF's columns (as "{}") since a second
# before it (_decision_starts): PARTITION BY takes NULLs as equal, as DISTINCT did.
_DECISION_STARTS = (
    "SELECT * FROM (SELECT e.*, created_at - LAG(created_at) OVER ("
    f"PARTITION BY {', '.join(_DECISION_OF)} ORDER BY created_at) AS gap FROM ({{}}) AS e) "
    "AS g WHERE (gap IS NULL OR gap >= INTERVAL '1 second') AND created_at >= %s"
)
# The events read before the day a count starts: a decision whose events straddle that
# midnight began the day before, and its events after midnight are not a decision of their
# own (the window sees the one before them).
_LEAD_IN = timedelta(seconds=1)


def _decision_starts(events, start: datetime) -> tuple[str, list]:
    """The SQL and parameters of the first event of each decision at `start` or later,
    from `events` (a values_list over HistoryEvent, read from _LEAD_IN before `start`)."""
    sql, params = events.filter(created_at__gte=start - _LEAD_IN).query.sql_with_params()
    return _DECISION_STARTS.format(sql), [*params, start]


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
    per memory it changes, each stamped when written: see _DECISION_STARTS."""
    decisions = (
        HistoryEvent.objects.filter(
            user__isnull=False,
            action__in=DECISION_ACTIONS | UNDO_ACTIONS,
            **({f"{about}__isnull": False} if about else {}),
            **({"user": user} if user is not None else {}),
        )
        .annotate(
            day=TruncDate("created_at"),
            undo=Case(When(action__in=UNDO_ACTIONS, then=1), default=0),
            alone=_ALONE,
        )
        .values_list("day", "undo", "created_at", *_DECISION_OF)
        .order_by()
    )
    # Counted in the database: a busy day's thousands of decisions are not sent over.
    sql, params = _decision_starts(decisions, _start_of(since))
    found = {"decisions": Counter(), "undos": Counter()}
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT day, undo, COUNT(*) FROM ({sql}) AS d GROUP BY 1, 2", params)
        for day, undo, count in cursor.fetchall():
            found["undos" if undo else "decisions"][day] += count
    return found


# What "merged automatically" counts, one definition for the queue's status filter, the
# dashboard and its series: the clusters a run merged with no person (exact copies
# collapsed and near-identical texts merged alike), undone since or not (only an
# automatic merge ends "unmerged": a person's reopens when undone).
MERGED_AUTOMATICALLY = (ClusterStatus.AUTO_MERGED, ClusterStatus.UNMERGED)


def automatic_merges_per_namespace(*, since):
    """Merged automatically (MERGED_AUTOMATICALLY) since `since`, per namespace. A
    subquery per namespace."""
    return count_per_namespace(Cluster, status__in=MERGED_AUTOMATICALLY, created_at__gte=since)


# The dashboard's picture of each namespace over the last days, one series a row.
SERIES = (
    ("open_clusters", "open clusters (end of day)", "No open clusters in these days."),
    ("open_conflicts", "open conflicts (end of day)", "No open conflicts in these days."),
    ("automatic_merges", "merged automatically", "Nothing merged automatically in these days."),
    ("decisions", "decisions", "No decisions in these days."),
    (
        "dismiss_rate",
        "clusters dismissed, % of those decided",
        "No cluster decided in these days.",
    ),
    ("deferred", "work left for the next run", "No run left work for the next."),
)


def namespace_series(days: list[date]) -> dict[int, dict[str, list[int]]]:
    """Per namespace id, each of SERIES per day of `days` (consecutive, oldest first):
    what was open at each day's end (from when each cluster and conflict was made and
    closed), automatic merges and people's decisions that day (decisions_per_day's
    definition), the share of cluster decisions that were dismissals (a precision
    signal: a high rate says detection proposes what people reject; with
    "clusters_decided", what it is a share of), and what the day's last run left for the
    next one."""
    first = days[0]
    position = {day: index for index, day in enumerate(days)}
    found: dict[int, dict[str, list[int]]] = {}

    def add(namespace_id: int, series: str, day: date, value: int) -> None:
        keys = [key for key, *_ in SERIES] + ["clusters_decided"]
        row = found.setdefault(namespace_id, {key: [0] * len(days) for key in keys})
        if day in position:
            row[series][position[day]] = value

    for series, model in (("open_clusters", Cluster), ("open_conflicts", Conflict)):
        for (namespace_id, day), count in _open_at_end_of_day(model, days).items():
            add(namespace_id, series, day, count)
    runs = (
        DedupRun.objects.filter(dry_run=False, started_at__date__gte=first)
        .annotate(day=TruncDate("started_at"))
        .order_by("namespace_id", "day", "started_at")
        .values_list("namespace_id", "day", "counts")
    )
    for namespace_id, day, run_counts in runs:
        add(namespace_id, "deferred", day, int((run_counts or {}).get("deferred", 0) or 0))
    merged = (
        Cluster.objects.filter(status__in=MERGED_AUTOMATICALLY, created_at__date__gte=first)
        .annotate(day=TruncDate("created_at"))
        .values_list("namespace_id", "day")
        .annotate(count=Count("pk"))
        .order_by()
    )
    for namespace_id, day, count in merged:
        add(namespace_id, "automatic_merges", day, count)
    decided: Counter = Counter()
    dismissed: Counter = Counter()
    on_clusters: Counter = Counter()
    for namespace_id, day, action, cluster_id, *_ in _decisions_by_namespace(first):
        decided[(namespace_id, day)] += 1
        if cluster_id is not None:
            on_clusters[(namespace_id, day)] += 1
            dismissed[(namespace_id, day)] += action == HistoryEvent.Action.DISMISS
    for key, count in decided.items():
        add(key[0], "decisions", key[1], count)
    for key, count in on_clusters.items():
        add(key[0], "clusters_decided", key[1], count)  # what the rate is a share of
        add(key[0], "dismiss_rate", key[1], round(100 * dismissed[key] / count))
    return found


def _open_at_end_of_day(model, days: list[date]) -> dict[tuple[int, date], int]:
    """{(namespace id, day): how many were open when the day ended}: made by then, less
    closed by then, from one pass that counts each day's made and closed (an automatic
    merge's cluster was never open)."""
    first = days[0]
    found = model.objects.exclude(status=ClusterStatus.AUTO_MERGED).annotate(
        closed=Case(
            When(
                ~Q(status="open"),
                then=F("resolved_at")
                if model is Conflict
                else Coalesce("decided_at", "updated_at"),
            ),
            default=None,
        )
    )
    change: Counter = Counter()  # (namespace, day or None for before the days): +made -closed
    for namespace_id, day, count in (
        found.annotate(day=TruncDate("created_at"))
        .values_list("namespace_id", "day")
        .annotate(count=Count("pk"))
        .order_by()
    ):
        change[(namespace_id, day if day >= first else None)] += count
    for namespace_id, day, count in (
        found.filter(closed__isnull=False)
        .annotate(day=TruncDate("closed"))
        .values_list("namespace_id", "day")
        .annotate(count=Count("pk"))
        .order_by()
    ):
        change[(namespace_id, day if day >= first else None)] -= count
    open_now: dict[tuple[int, date], int] = {}
    for namespace_id in {namespace_id for namespace_id, _ in change}:
        running = change[(namespace_id, None)]
        for day in days:
            running += change[(namespace_id, day)]
            if running:
                open_now[(namespace_id, day)] = running
    return open_now


def _decisions_by_namespace(since: date):
    """(namespace id, day, action, cluster id) per decision, told apart as
    decisions_per_day tells them."""
    events = (
        HistoryEvent.objects.filter(user__isnull=False, action__in=DECISION_ACTIONS)
        .annotate(day=TruncDate("created_at"), undo=Value(0), alone=_ALONE)
        .values_list("namespace_id", "day", "action", "created_at", *_DECISION_OF)
        .order_by()
    )
    sql, params = _decision_starts(events, _start_of(since))
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT namespace_id, day, action, cluster_id FROM ({sql}) AS d", params)
        return cursor.fetchall()


def _start_of(day: date) -> datetime:
    """The start of `day` in the site's time zone: a range the created_at index reads (a
    date cast of every event's time is not)."""
    return timezone.make_aware(datetime.combine(day, time.min))
