"""Named queries over the history: the audit log as the History page filters it, which
events were undone and by whom, a cluster's last decision, and what happened to a cluster
or a conflict since a reviewer's page showed it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from django.db.models import Max, QuerySet
from django.utils import timezone

from memadmin.curation.models import Cluster, Conflict, HistoryEvent, MergeProposal
from memadmin.curation.reads.filters import given

# How each decision reads in a sentence ("carla excluded c at 10:42").
VERBS = {
    HistoryEvent.Action.EXCLUDE: "excluded",
    HistoryEvent.Action.DISMISS: "dismissed the cluster",
    HistoryEvent.Action.SPLIT: "split the cluster",
    HistoryEvent.Action.MERGE: "merged",
    HistoryEvent.Action.SUPERSEDE: "merged",
    HistoryEvent.Action.COLLAPSE: "collapsed",
    HistoryEvent.Action.UNMERGE: "undid the merge of",
    HistoryEvent.Action.UNDO: "undid a decision on",
    HistoryEvent.Action.OPEN: "opened the cluster with",
    HistoryEvent.Action.RESOLVE: "settled the conflict on",
}


def last_event_id(*, cluster: Cluster | None = None, conflict: Conflict | None = None) -> int:
    """The newest history event about a cluster or a conflict (0: none): the page carries
    it, so that a refusal can list exactly what happened after it was drawn."""
    lookup = {"cluster": cluster} if cluster is not None else {"conflict": conflict}
    return HistoryEvent.objects.filter(**lookup).aggregate(newest=Max("id"))["newest"] or 0


def what_changed(
    *,
    since_event: int,
    cluster: Cluster | None = None,
    conflict: Conflict | None = None,
    proposal_seen: int | None = None,
) -> list[str]:
    """What happened to a cluster or conflict after event `since_event`, as sentences
    naming who did it and when ("carla excluded c at 10:42"), one per person, decision and
    minute; and, for a cluster, a proposal written since `proposal_seen` was shown."""
    lookup = {"cluster": cluster} if cluster is not None else {"conflict": conflict}
    events = (
        HistoryEvent.objects.filter(id__gt=since_event, **lookup)
        .select_related("memory")
        .only("action", "actor", "created_at", "reason", "memory__external_id")
        .order_by("id")
    )
    grouped: dict[tuple[str, str, str], list[str]] = {}
    overtaken: list[str] = []
    into: dict[tuple[str, str], str] = {}  # (who, when): the memory a merge made or kept
    for event in events:
        if event.action == HistoryEvent.Action.OVERTAKE:
            # Another decision's doing, already said in full ("kit-001 was merged into
            # merged-8-3 by carla at ...").
            overtaken += [] if event.reason in overtaken else [event.reason]
            continue
        when = timezone.localtime(event.created_at).strftime("%H:%M")
        who = event.actor.split(":", 1)[-1]
        if event.action == HistoryEvent.Action.MERGE and event.memory is not None:
            # "carla merged b, c into merged-6-3", not the merged memory among its members.
            into[(who, when)] = event.memory.external_id
            grouped.setdefault((who, VERBS[event.action], when), [])
            continue
        names = grouped.setdefault((who, VERBS.get(event.action, event.action), when), [])
        if event.memory is not None and event.memory.external_id not in names:
            names.append(event.memory.external_id)
    said = [
        " ".join(
            filter(None, (who, verb, ", ".join(names), _into(into, who, verb, when), f"at {when}"))
        )
        for (who, verb, when), names in grouped.items()
        if names or verb != VERBS[HistoryEvent.Action.MERGE]
    ] + overtaken
    if cluster is not None:
        newest = (
            MergeProposal.objects.filter(cluster=cluster).order_by("-id").only("created_at").first()
        )
        if newest is not None and proposal_seen is not None and newest.pk > proposal_seen:
            when = timezone.localtime(newest.created_at).strftime("%H:%M")
            said.append(f"a new proposal was written at {when}")
    return said


def _into(into: dict, who: str, verb: str, when: str) -> str:
    made = into.get((who, when)) if verb == VERBS[HistoryEvent.Action.MERGE] else None
    return f"into {made}" if made else ""


def history_events(
    *,
    namespace: str = "",
    action: str = "",
    actor: str = "",
    since: date | None = None,
    until: date | None = None,
    decisions_only: bool = False,
) -> QuerySet[HistoryEvent]:
    """The audit log, newest first, filtered; `decisions_only`: people's decisions only,
    with what each overtook (not a memory's arrival or upkeep: imports, updates, agents'
    writes, vectors, decay; nor a command's runs)."""
    conditions = {
        "namespace__name": namespace,
        "action": action,
        # A whole name: "carla" is user:carla, never user:carla2 (an actor is "kind:name").
        "actor__iregex": rf"^([a-z_]+:)?{re.escape(actor)}$" if actor else "",
        "created_at__date__gte": since,
        "created_at__date__lte": until,
    }
    found = (
        HistoryEvent.objects.select_related("namespace", "memory", "cluster", "conflict", "user")
        .defer("memory__embedding", "memory__embedding_multi")
        .filter(**given(conditions))
        .order_by("-created_at", "-id")
    )
    if decisions_only:
        # People's decisions (and what they overtook, folded under them on the page).
        found = found.exclude(action__in=NOT_DECISIONS).filter(user__isnull=False)
    return found


# What the history's "decisions only" view leaves out.
NOT_DECISIONS = (
    HistoryEvent.Action.IMPORT,
    HistoryEvent.Action.UPDATE,
    HistoryEvent.Action.WRITE,
    HistoryEvent.Action.EMBED,
    HistoryEvent.Action.DECAY,
)


def undone_events(event_ids: Sequence[int]) -> dict[int, HistoryEvent]:
    """Which of these history events an `undo` or `unmerge` event points at, each with
    the event that undid it (who, when)."""
    found = HistoryEvent.objects.filter(undoes_id__in=event_ids).only(
        "undoes_id", "actor", "created_at"
    )
    return {event.undoes_id: event for event in found.order_by("id")}


def last_cluster_decision(cluster: Cluster, action: str) -> HistoryEvent | None:
    """The event of the cluster's latest `action` (a dismissal, a split) not undone yet."""
    return (
        HistoryEvent.objects.filter(cluster=cluster, action=action, undone_by__isnull=True)
        .order_by("-id")
        .first()
    )
