"""The audit log, and undoing one merge from it."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memadmin.curation import decisions
from memadmin.curation.decisions.history import actor_of
from memadmin.curation.models import Cluster, ClusterStatus, ConflictStatus, HistoryEvent
from memadmin.curation.reads import history as history_queries
from memadmin.review.roles import CURATOR, VIEWER
from memadmin.review.views.answers import (
    LIST_PAGE_SIZE,
    UnsafeNext,
    filter_value,
    page_of,
    query_without_page,
    role_required,
    safe_next,
    selected_ids,
)
from memadmin.store import validation
from memadmin.store.models import Namespace


@role_required(VIEWER)
def history(request: HttpRequest) -> HttpResponse:
    filters = {
        key: request.GET.get(key, "")
        for key in ("namespace", "action", "actor", "since", "until", "decisions")
    }
    events = history_queries.history_events(
        decisions_only=filters["decisions"] == "yes",
        namespace=filters["namespace"],
        action=filters["action"],
        actor=filters["actor"],
        since=filter_value(request, "since", validation.day),
        until=filter_value(request, "until", validation.day),
    )
    page = page_of(request, events, LIST_PAGE_SIZE)
    undone = history_queries.undone_events([event.pk for event in page])
    for event in page:
        event.undone_by_event = undone.get(event.pk)  # shown on its row: undone by whom
    context = {
        "rows": _folded(page) if filters["decisions"] == "yes" else [(e, []) for e in page],
        "page": page,
        "filters": filters,
        "actions": HistoryEvent.Action.values,
        "namespaces": Namespace.objects.values_list("name", flat=True),
        "undoable": {ClusterStatus.AUTO_MERGED, ClusterStatus.ACCEPTED},
        "undoable_decisions": {*decisions.UNDOABLE_ACTIONS, HistoryEvent.Action.FORGET},
        "undone": undone,
        "settlements": _undoable_settlements(page),
        "base": query_without_page(request).urlencode(),
    }
    return render(request, "review/history.html" + ("#events" if request.htmx else ""), context)


def _folded(events) -> list[tuple[HistoryEvent, list[HistoryEvent]]]:
    """The page's events with one decision's events folded into one row: a merge writes
    an event per member, a settlement one per memory. Each row is the decision's first
    event (a merge's own event, which carries its undo) and the others under it."""
    rows: list[tuple[HistoryEvent, list[HistoryEvent]]] = []
    for event in events:
        key = _decision_of(event)
        if rows and key is not None and key == _decision_of(rows[-1][0]):
            head, folded = rows[-1]
            if event.action == HistoryEvent.Action.MERGE:
                rows[-1] = (event, [head, *folded])
            else:
                folded.append(event)
            continue
        rows.append((event, []))
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


@require_POST
@role_required(CURATOR)
def unmerge(request: HttpRequest, cluster_id: int) -> HttpResponse:
    """Undo one merge: its originals come back exactly; the page explains a refusal."""
    found = get_object_or_404(Cluster, pk=cluster_id)
    try:
        back = safe_next(request, reverse("history"))
    except UnsafeNext as problem:
        return render(request, "400.html", {"message": str(problem)}, status=400)
    try:
        decisions.unmerge(cluster=found, actor=actor_of(request.user), user=request.user)
    except decisions.DecisionError as problem:
        messages.error(request, f"Cannot undo merge #{found.pk}: {problem}")
    else:
        messages.success(request, f"Merge #{found.pk} undone: its memories are back.")
    return redirect(back)


@require_POST
@role_required(CURATOR)
def unmerge_many(request: HttpRequest) -> HttpResponse:
    """Undo what a bulk action took (the toast after it): each merge unmerged, each
    dismissal taken back, cluster by cluster; a refusal named by cluster, the others
    undone all the same."""
    try:
        back = safe_next(request, reverse("history"))
    except UnsafeNext as problem:
        return render(request, "400.html", {"message": str(problem)}, status=400)
    ids = selected_ids(request.GET.get("clusters", "").split(","))
    undone, refused = [], []
    for cluster in Cluster.objects.filter(pk__in=ids).order_by("id"):
        try:
            if cluster.status == ClusterStatus.DISMISSED:
                dismissal = history_queries.last_cluster_decision(cluster, "dismiss")
                if dismissal is None:
                    raise decisions.DecisionError("its dismissal is not in the history")
                decisions.undo_cluster_decision(decision=dismissal, user=request.user)
            else:
                decisions.unmerge(cluster=cluster, actor=actor_of(request.user), user=request.user)
            undone.append(f"#{cluster.pk}")
        except decisions.DecisionError as problem:
            refused.append(f"Cannot undo #{cluster.pk}: {problem}")
    if undone:
        messages.success(request, f"{', '.join(undone)} undone: as they were before.")
    for line in refused:
        messages.error(request, line)
    return redirect(back)


@require_POST
@role_required(CURATOR)
def undo(request: HttpRequest, event_id: int) -> HttpResponse:
    """Take back one dismissal, exclusion or split, or an agent's forget (the event that
    recorded it)."""
    found = get_object_or_404(HistoryEvent, pk=event_id)
    try:
        back = safe_next(request, reverse("history"))
    except UnsafeNext as problem:
        return render(request, "400.html", {"message": str(problem)}, status=400)
    try:
        if found.action == HistoryEvent.Action.FORGET:
            memory = decisions.undo_forget(forgotten=found, user=request.user)
            said = f"The forget of {memory.external_id} was undone: it is active again."
        else:
            cluster = decisions.undo_cluster_decision(decision=found, user=request.user)
            said = f"The {found.action} of cluster #{cluster.pk} was undone: it is open again."
    except decisions.DecisionError as problem:
        messages.error(request, f"Cannot undo this {found.action}: {problem}")
    else:
        messages.success(request, said)
    return redirect(back)
