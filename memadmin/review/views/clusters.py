"""The curators' pages: the cluster queue, a cluster's page, and every decision on it."""

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memadmin.curation import decisions, reviews
from memadmin.curation.models import Cluster
from memadmin.curation.reads.clusters import cluster_queue
from memadmin.review.forms import ClusterDecision, ClusterPageQuery, ClusterQueueFilters
from memadmin.review.models import ReviewerSettings
from memadmin.review.presenters import clusters as presenter
from memadmin.review.roles import CURATOR, VIEWER
from memadmin.review.views.helpers import (
    QUEUE_PAGE_SIZE,
    DecisionPage,
    answer_decision,
    keep_draft,
    keep_in_box,
    offer_undo,
    page_of,
    query_without_page,
    role_required,
    take_draft,
    take_from_box,
)


@role_required(VIEWER)
def queue(request: HttpRequest) -> HttpResponse:
    """The review queue: filters, surest clusters first, paginated. An HTMX request (a
    filter change) gets the queue section only. Each row opens its cluster with the
    queue's filters (`from`), so the review goes on within this queue."""
    filters = ClusterQueueFilters(request.GET)
    page = page_of(request, cluster_queue(**filters.arguments()), QUEUE_PAGE_SIZE)
    context = presenter.queue_page(filters, page, request.user, query_without_page(request))
    template = "review/clusters.html" + ("#queue" if request.htmx else "")
    return render(request, template, context)


@role_required(VIEWER)
def cluster(request: HttpRequest, cluster_id: int) -> HttpResponse:
    query = ClusterPageQuery(request.GET).cleaned_data
    if query["diff"]:
        # The way differences are shown, chosen once and kept with the reviewer's account.
        ReviewerSettings.objects.update_or_create(
            user=request.user, defaults={"diff_view": query["diff"]}
        )
    found = _get(cluster_id)
    context = presenter.cluster_page(
        found,
        against=query["against"],
        draft=take_draft(request, f"cluster-{found.pk}"),
        place=presenter.place(found, query["from_"]),
        in_box=take_from_box(request, f"cluster-{found.pk}"),
    )
    return render(request, "review/cluster.html", context)


def _get(cluster_id: int) -> Cluster:
    return get_object_or_404(
        Cluster.objects.select_related("namespace", "decided_by"), pk=cluster_id
    )


def _decide(request: HttpRequest, cluster_id: int, action: str, member_id=None) -> HttpResponse:
    """One curator decision on a cluster (reviews.decide_cluster), answered as every
    decision is (helpers.answer_decision, with what presenters.clusters.decision_answer
    says). Without JavaScript a refused text waits in the session for the page it goes
    back to."""
    form = ClusterDecision(request.POST)
    before = presenter.queue_order(form.query)
    try:
        decided = reviews.try_cluster_decision(
            cluster_id=cluster_id,
            action=action,
            user=request.user,
            version=form.cleaned_data["version"],
            text=form.text_or_none,
            member_id=member_id,
        )
    except Cluster.DoesNotExist as missing:
        raise Http404("no such cluster") from missing
    answer = presenter.decision_answer(cluster_id, form, decided, before, htmx=bool(request.htmx))
    if answer.undo is not None:
        offer_undo(
            request,
            url=answer.undo[0],
            label=answer.undo[1],
            back=reverse("cluster", args=[cluster_id]),
        )
    if decided.error and not request.htmx:
        keep_draft(request, f"cluster-{cluster_id}", answer.draft)
    if decided.invalid and not request.htmx:
        keep_in_box(request, f"cluster-{cluster_id}", answer.draft, decided.invalid)
    return answer_decision(
        request,
        page=DecisionPage("review/cluster.html", "cluster", answer.page),
        error=answer.error,
        message=decided.message,
        done_url=answer.done_url,
        refused_url=answer.refused_url,
    )


@require_POST
@role_required(CURATOR)
def accept(request: HttpRequest, cluster_id: int) -> HttpResponse:
    """Accept the proposal, or the curator's edited text: one merged memory."""
    return _decide(request, cluster_id, "accept")


@require_POST
@role_required(CURATOR)
def dismiss(request: HttpRequest, cluster_id: int) -> HttpResponse:
    """Not duplicates: closed and remembered, never proposed again."""
    return _decide(request, cluster_id, "dismiss")


@require_POST
@role_required(CURATOR)
def keep_member(request: HttpRequest, cluster_id: int, memory_id: int) -> HttpResponse:
    return _decide(request, cluster_id, "keep", memory_id)


@require_POST
@role_required(CURATOR)
def exclude_member(request: HttpRequest, cluster_id: int, memory_id: int) -> HttpResponse:
    return _decide(request, cluster_id, "exclude", memory_id)


@require_POST
@role_required(CURATOR)
def split(request: HttpRequest, cluster_id: int) -> HttpResponse:
    """Split at the weakest link, then on to the first part (the review goes on with
    what the split made), the message saying where each member went."""
    return _decide(request, cluster_id, "split")


@require_POST
@role_required(CURATOR)
def refresh_proposal(request: HttpRequest, cluster_id: int) -> HttpResponse:
    """A new proposal from the cluster's current members (after a stale refusal)."""
    found = get_object_or_404(Cluster, pk=cluster_id)
    try:
        reviews.write_proposal_again(found)
    except decisions.DecisionError as problem:
        messages.error(request, str(problem))
    else:
        messages.success(request, "The proposal was written again from the current members.")
    return redirect("cluster", cluster_id=found.pk)
