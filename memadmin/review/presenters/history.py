"""What the History page shows: the audit log as filtered, each decision's events folded
into one row (people's decisions only, when asked), what each row can undo."""

from __future__ import annotations

from django.core.paginator import Page

from memadmin.curation import decisions
from memadmin.curation.models import ClusterStatus, ConflictStatus, HistoryEvent
from memadmin.curation.reads import history
from memadmin.review.forms import HistoryFilters
from memadmin.store.models import Namespace


def events(filters: HistoryFilters):
    return history.history_events(**filters.arguments())


def history_page(filters: HistoryFilters, page: Page, query) -> dict:
    undone = history.undone_events([event.pk for event in page])
    for event in page:
        event.undone_by_event = undone.get(event.pk)  # shown on its row: undone by whom
    decisions_only = filters.arguments()["decisions_only"]
    return {
        "rows": _folded(page) if decisions_only else [(e, []) for e in page],
        "page": page,
        "filters": filters.shown(),
        "actions": HistoryEvent.Action.values,
        "namespaces": Namespace.objects.values_list("name", flat=True),
        "undoable": {ClusterStatus.AUTO_MERGED, ClusterStatus.ACCEPTED},
        "undoable_decisions": {*decisions.UNDOABLE_ACTIONS, HistoryEvent.Action.FORGET},
        "undone": undone,
        "settlements": _undoable_settlements(page),
        "base": query.urlencode(),
    }


def _folded(events) -> list[tuple[HistoryEvent, list[HistoryEvent]]]:
    """The page's events with one decision's events folded into one row: a merge writes
    an event per member, a settlement one per memory, and what a decision overtook (an
    `overtake` event, written last in its transaction: just above it, newest first)
    folds under it too. Each row is the decision's first event (a merge's own event,
    which carries its undo) and the others under it."""
    rows: list[tuple[HistoryEvent, list[HistoryEvent]]] = []
    overtaken: list[HistoryEvent] = []
    for event in events:
        if event.action == HistoryEvent.Action.OVERTAKE:
            overtaken.append(event)
            continue
        key = _decision_of(event)
        if rows and key is not None and key == _decision_of(rows[-1][0]):
            head, folded = rows[-1]
            if event.action == HistoryEvent.Action.MERGE:
                rows[-1] = (event, [head, *folded])
            else:
                folded.append(event)
            continue
        caused = [o for o in overtaken if o.actor == event.actor]
        rows.extend((o, []) for o in overtaken if o.actor != event.actor)
        overtaken = []
        rows.append((event, caused))
    rows.extend((o, []) for o in overtaken)
    return rows


def _decision_of(event: HistoryEvent) -> tuple | None:
    """What makes events one decision: the same cluster or conflict, actor and action (a
    merge's members are superseded by it). None for an event of no cluster or conflict."""
    if not (event.cluster_id or event.conflict_id):
        return None
    action = "merge" if event.action == HistoryEvent.Action.SUPERSEDE else event.action
    return (action, event.cluster_id, event.conflict_id, event.actor)


def _undoable_settlements(events) -> set[int]:
    """The row that offers to undo each conflict settlement on the page: a settlement
    writes one `resolve` event per memory; one button is enough (the last)."""
    last: dict[int, int] = {}
    for event in events:
        if (
            event.action == HistoryEvent.Action.RESOLVE
            and event.conflict_id
            and event.conflict.status in (ConflictStatus.RESOLVED, ConflictStatus.DISMISSED)
        ):
            last[event.conflict_id] = max(event.pk, last.get(event.conflict_id, 0))
    return set(last.values())
