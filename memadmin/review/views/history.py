"""The audit log, and undoing one merge (or what a bulk action did, or one decision)
from it."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memadmin.curation import decisions, reviews
from memadmin.curation.decisions.history import actor_of
from memadmin.curation.models import Cluster, HistoryEvent
from memadmin.review.forms import HistoryFilters, RowIds
from memadmin.review.presenters import history as presenter
from memadmin.review.roles import CURATOR, VIEWER
from memadmin.review.views.helpers import (
    LIST_PAGE_SIZE,
    UnsafeNext,
    page_of,
    query_without_page,
    role_required,
    safe_next,
)


@role_required(VIEWER)
def history(request: HttpRequest) -> HttpResponse:
    filters = HistoryFilters(request.GET)
    page = page_of(request, presenter.events(filters), LIST_PAGE_SIZE)
    context = presenter.history_page(filters, page, query_without_page(request))
    return render(request, "review/history.html" + ("#events" if request.htmx else ""), context)


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
    outcome = reviews.undo_many(RowIds(request.GET).ids(), request.user)
    if outcome.done:
        undone = ", ".join(f"#{pk}" for pk in outcome.done)
        messages.success(request, f"{undone} undone: as they were before.")
    for line in outcome.refused:
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
        said = reviews.undo_event(found, request.user)
    except decisions.DecisionError as problem:
        messages.error(request, f"Cannot undo this {found.action}: {problem}")
    else:
        messages.success(request, said)
    return redirect(back)
