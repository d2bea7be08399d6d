"""Deciding many clusters at once: the bulk accept of exact copies, the clusters ticked
in the queue (accept or dismiss, previewed), and a cluster opened by hand from memories
ticked in the memory browser. Each cluster is decided by the same decision functions as
on its own page, one by one, each refused by name when it cannot be."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memadmin.curation import decisions, reviews
from memadmin.review.forms import Selection
from memadmin.review.presenters import clusters as presenter
from memadmin.review.presenters.places import queue_url
from memadmin.review.roles import CURATOR
from memadmin.review.views.helpers import (
    UnsafeNext,
    offer_undo_of_many,
    role_required,
    safe_next,
)


@role_required(CURATOR)
def bulk_accept_exact(request: HttpRequest) -> HttpResponse:
    """Accept open exact-duplicate clusters of the namespace the queue shows (none: every
    namespace). GET: a preview, each mergeable cluster with the text it keeps and a ticked
    box, the flagged ones (protected or pinned members, a guard) apart with a link each:
    they never go through a bulk action. POST: the ticked clusters, each refused by name
    when it is flagged, decided, no longer exact or changed since the preview."""
    form = Selection(request.POST if request.method == "POST" else request.GET)
    namespace = form.cleaned_data["namespace"]
    if request.method != "POST":
        return render(request, "review/bulk_exact.html", presenter.exact_copies_preview(namespace))
    back = presenter.exact_copies_back(namespace)
    ids = form.ticked()
    if not ids:
        messages.error(request, "No cluster was ticked: nothing was accepted.")
        return redirect(back)
    outcome = reviews.accept_exact_copies(namespace, ids, request.user, version_of=form.version_of)
    where = namespace or "every namespace"
    messages.success(
        request, f"Accepted {len(outcome.done)} exact-duplicate cluster(s) in {where}."
    )
    for line in outcome.refused:
        messages.error(request, line)
    offer_undo_of_many(request, outcome.done, back, what=" merges")
    return redirect(back)


@role_required(CURATOR)
def selected(request: HttpRequest) -> HttpResponse:
    """Accept or dismiss the clusters ticked in the queue. GET: a preview of exactly
    those still open, with the version each shows; for an accept, the flagged ones apart
    (never merged in bulk). POST: each decided in turn; one decided meanwhile, changed
    since the preview or flagged is refused by name. Back to the queue as filtered."""
    form = Selection(request.POST if request.method == "POST" else request.GET)
    back = queue_url(reverse("clusters"), form.query)
    action = form.cleaned_data["action"]
    if action not in presenter.SELECTED_ACTIONS:
        messages.error(request, "Choose accept or dismiss for the selected clusters.")
        return redirect(back)
    ids, matched = form.chosen(presenter.queue_order)
    if request.method != "POST":
        context = presenter.selected_preview(action, ids, matched, form.query, reviews.why_not_open)
        return render(request, "review/selected.html", context)
    outcome = reviews.decide_many(ids, action, request.user, version_of=form.version_of)
    verb = presenter.SELECTED_ACTIONS[action][0]
    messages.success(request, f"{verb}ed {len(outcome.done)} of {len(ids)} selected cluster(s).")
    for line in outcome.refused:
        messages.error(request, line)
    offer_undo_of_many(request, outcome.done, back)
    return redirect(back)


@require_POST
@role_required(CURATOR)
def open_by_hand(request: HttpRequest) -> HttpResponse:
    """The memories ticked in the memory browser become a cluster to review (duplicates
    the engine missed), with a rule proposal; refused back to the browser, saying why."""
    try:
        back = safe_next(request, reverse("memories"))
    except UnsafeNext as problem:
        return render(request, "400.html", {"message": str(problem)}, status=400)
    ids = Selection(request.POST).ticked()
    try:
        found = reviews.open_cluster_by_hand(memory_ids=ids, user=request.user)
    except decisions.DecisionError as problem:
        messages.error(request, f"No cluster opened: {problem}.")
        return redirect(back)
    messages.success(
        request, f"Cluster #{found.pk} opened from {len(set(ids))} memories: review it here."
    )
    return redirect("cluster", cluster_id=found.pk)
