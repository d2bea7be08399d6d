"""The admins' pages: the conflict queue, a conflict's page, and settling it."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memadmin.curation import decisions, reviews
from memadmin.curation.models import Conflict, settled_in_words
from memadmin.curation.reads.conflicts import conflict_queue
from memadmin.review.forms import (
    ConflictDecision,
    ConflictPageQuery,
    ConflictQueueFilters,
    RowIds,
    Selection,
)
from memadmin.review.presenters import conflicts as presenter
from memadmin.review.presenters.places import queue_url
from memadmin.review.roles import ADMIN, VIEWER
from memadmin.review.views.helpers import (
    QUEUE_PAGE_SIZE,
    DecisionPage,
    UnsafeNext,
    answer_decision,
    offer_undo,
    page_of,
    query_without_page,
    role_required,
    safe_next,
)


@role_required(VIEWER)
def queue(request: HttpRequest) -> HttpResponse:
    filters = ConflictQueueFilters(request.GET)
    found = conflict_queue(**filters.arguments())
    page = page_of(request, found, QUEUE_PAGE_SIZE)
    context = presenter.queue_page(filters, found, page, request.user, query_without_page(request))
    return render(request, "review/conflicts.html" + ("#queue" if request.htmx else ""), context)


def _get(conflict_id: int) -> Conflict:
    return get_object_or_404(
        Conflict.objects.select_related("namespace", "memory_a", "memory_b", "resolver"),
        pk=conflict_id,
    )


@role_required(VIEWER)
def conflict(request: HttpRequest, conflict_id: int) -> HttpResponse:
    found = _get(conflict_id)
    place = presenter.place(found, ConflictPageQuery(request.GET).cleaned_data["from_"])
    return render(request, "review/conflict.html", presenter.conflict_page(found, place=place))


@require_POST
@role_required(ADMIN)
def resolve(request: HttpRequest, conflict_id: int) -> HttpResponse:
    found = _get(conflict_id)
    form = ConflictDecision(request.POST)
    chosen, query, seen = form.chosen(), form.query, form.seen_event()
    before = presenter.order(query)
    error = ""
    try:
        reviews.settle_conflict(conflict=found, user=request.user, seen=seen, **chosen)
    except decisions.DecisionError as problem:
        error = str(problem)
    changes = presenter.changes_since(found, seen) if error else []
    found = _get(conflict_id)
    settled = settled_in_words(found.resolution)  # "" after "dismiss": not a conflict
    if not error:
        offer_undo(
            request,
            url=reverse("undo-conflict", args=[found.pk]),
            label=f"Undo: conflict {found.pk} settled as {settled}",
            back=reverse("conflict", args=[found.pk]),
        )
    elif not request.htmx:
        error = "; ".join([error, *changes])
    page = DecisionPage(
        "review/conflict.html",
        "conflict-page",
        lambda e: presenter.conflict_page(
            found, e, changes=changes, chosen=chosen, place=presenter.place(found, query)
        ),
    )
    return answer_decision(
        request,
        page=page,
        error=error,
        message=f"Conflict {found.pk} settled as {settled}.",
        done_url=presenter.after_settling(found, query, before),
        refused_url=presenter.conflict_url(found.pk, query),
    )


@require_POST
@role_required(ADMIN)
def undo(request: HttpRequest, conflict_id: int) -> HttpResponse:
    """Take back how a conflict was settled: it is open again, its memories as before."""
    found = _get(conflict_id)
    try:
        back = safe_next(request, reverse("conflict", args=[found.pk]))
    except UnsafeNext as problem:
        return render(request, "400.html", {"message": str(problem)}, status=400)
    try:
        decisions.undo_resolution(conflict=found, user=request.user)
    except decisions.DecisionError as problem:
        messages.error(request, f"Cannot undo: {problem}")
    else:
        messages.success(request, f"Conflict {found.pk} is open again, its memories as before.")
    return redirect(back)


@role_required(ADMIN)
def selected(request: HttpRequest) -> HttpResponse:
    """A settlement for the conflicts ticked in the queue (or all that its filter
    matches): "not a conflict", or "newer supersedes older" (an update queue's usual
    answer). GET previews exactly those still open; POST settles each, refused one by
    one if someone settled it since."""
    form = Selection(request.POST if request.method == "POST" else request.GET)
    back = queue_url(reverse("conflicts"), form.query)
    action = form.action_or("dismiss")
    if action not in presenter.SELECTED_ACTIONS:
        messages.error(request, "Choose not a conflict or newer supersedes older.")
        return redirect(back)
    ids, matched = form.chosen(presenter.order)
    if request.method != "POST":
        context = presenter.selected_preview(action, ids, matched, form.query)
        return render(request, "review/selected.html", context)
    outcome = reviews.settle_many(ids, action, request.user)
    said = "marked not a conflict" if action == "dismiss" else "settled: newer supersedes older"
    taken = f", {len(outcome.expected)} with them" if outcome.expected else ""
    messages.success(
        request, f"{len(outcome.done)} of {len(set(ids))} selected conflict(s) {said}{taken}."
    )
    for line in outcome.expected:
        messages.info(request, line)
    for line in outcome.refused:
        messages.error(request, line)
    if outcome.done:
        offer_undo(
            request,
            url=reverse("undo-conflicts") + "?conflicts=" + ",".join(map(str, outcome.done)),
            label=f"Undo these {len(outcome.done)} settlements",
            back=back,
        )
    return redirect(back)


@require_POST
@role_required(ADMIN)
def undo_many(request: HttpRequest) -> HttpResponse:
    """Undo what a bulk settlement did (the toast after it), the last first; a refusal
    named by conflict, the others undone all the same."""
    try:
        back = safe_next(request, reverse("conflicts"))
    except UnsafeNext as problem:
        return render(request, "400.html", {"message": str(problem)}, status=400)
    outcome = reviews.undo_settlements(RowIds(request.GET).ids("conflicts"), request.user)
    if outcome.done:
        undone = ", ".join(f"#{pk}" for pk in outcome.done)
        messages.success(request, f"{undone}: open again, their memories as before.")
    for line in outcome.refused:
        messages.error(request, line)
    return redirect(back)
