"""The batch screen, in the spirit of OpenRefine's cluster dialog: many open clusters on
one page, each with its members, an editable proposal, its confidence and warnings, and
a tick; a confidence slider draws the list again. "Merge ticked" and "Dismiss ticked"
show one preview (each ticked cluster with the text it will be merged as), then decide
each in turn, refused one by one by name, with one undo for all of them."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memadmin.curation import reviews
from memadmin.review.forms import BatchFilters, Selection
from memadmin.review.presenters import clusters as presenter
from memadmin.review.roles import CURATOR
from memadmin.review.views.helpers import offer_undo_of_many, page_of, role_required


@role_required(CURATOR)
def batch(request: HttpRequest) -> HttpResponse:
    """GET: the clusters of the filter, surest first, a page at a time."""
    filters = BatchFilters(request.GET)
    page = page_of(request, presenter.batch_clusters(filters), presenter.BATCH_PAGE_SIZE)
    template = "review/batch.html" + ("#batch" if request.htmx else "")
    return render(request, template, presenter.batch_page(filters, page))


@require_POST
@role_required(CURATOR)
def decide(request: HttpRequest) -> HttpResponse:
    """POST without `confirm`: the preview of what the ticked clusters become; with it:
    each decided in turn (its version checked: one changed since the screen was drawn is
    refused by name, as is a flagged one for a merge), one undo for all."""
    filters = BatchFilters(request.POST)
    form = Selection(request.POST, box="ticked")
    back = reverse("batch-clusters") + presenter.batch_query(filters)
    action = form.cleaned_data["action"]
    if action not in presenter.BATCH_ACTIONS:
        messages.error(request, "Choose merge or dismiss for the ticked clusters.")
        return redirect(back)
    ids = form.ticked()
    if not ids:
        messages.error(request, "Nothing is ticked: tick the clusters to decide first.")
        return redirect(back)
    if not form.cleaned_data["confirm"]:
        context = presenter.batch_preview(action, ids, form, filters)
        return render(request, "review/batch_preview.html", context)
    outcome = reviews.decide_many(
        ids,
        action,
        request.user,
        version_of=form.version_of,
        text_of=form.text_of,
    )
    said = "merged" if action == "accept" else "dismissed"
    messages.success(request, f"{len(outcome.done)} of {len(ids)} ticked cluster(s) {said}.")
    for line in outcome.refused:
        messages.error(request, line)
    offer_undo_of_many(request, outcome.done, back)
    return redirect(back)
