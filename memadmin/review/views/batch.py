"""The batch screen, in the spirit of OpenRefine's cluster dialog: many open clusters on
one page, each with its members, an editable proposal, its confidence and warnings, and
a tick; a confidence slider draws the list again. "Merge ticked" and "Dismiss ticked"
show one preview (each ticked cluster with the text it will be merged as), then decide
each in turn, refused one by one by name, with one undo for all of them."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memadmin.curation import decisions, proposals
from memadmin.curation.detection.scoring.representative import representative
from memadmin.curation.models import Cluster, ClusterStatus, Tier
from memadmin.curation.reads.clusters import (
    bulk_flags,
    cluster_members,
    cluster_queue,
    cluster_version,
)
from memadmin.review.roles import CURATOR
from memadmin.review.views.answers import page_of, role_required, selected_ids
from memadmin.review.views.many_clusters import decide_one, offer_undo_of_many
from memadmin.store import validation
from memadmin.store.models import Namespace

BATCH_PAGE_SIZE = 50
ACTIONS = {"accept": "Merge", "dismiss": "Dismiss"}


def _filters(query) -> dict:
    """The screen's filters: namespace, tier, and the least confidence shown (the slider;
    a value that is no number from 0 to 1 is no filter)."""
    try:
        least = validation.decimal(
            query.get("min_confidence", "0"), "min_confidence", low=0, high=1
        )
    except validation.Invalid:
        least = 0.0
    tier = query.get("tier", Tier.PROPOSED)
    return {
        "namespace": query.get("namespace", ""),
        "tier": tier if tier in Tier.values else Tier.PROPOSED,
        "min_confidence": round(float(least), 2),
    }


@role_required(CURATOR)
def batch(request: HttpRequest) -> HttpResponse:
    """GET: the clusters of the filter, surest first, a page at a time."""
    filters = _filters(request.GET)
    found = cluster_queue(
        namespace=filters["namespace"] or None,
        tier=filters["tier"],
        min_confidence=filters["min_confidence"],
    )
    page = page_of(request, found, BATCH_PAGE_SIZE)
    rows = []
    for cluster in page:
        members = [membership.memory for membership in cluster.memberships.all()]
        pending = cluster.pending[0] if cluster.pending else None
        text = pending.merged_text if pending else representative(members).content
        rows.append(
            {
                "cluster": cluster,
                "members": members,
                "text": text,
                "warnings": proposals.offered_warnings(members, pending),
                "flags": bulk_flags(cluster, members=members),
                # From what the queue read already: no query a cluster.
                "version": cluster_version(
                    cluster, member_ids=[m.pk for m in members], proposal=pending
                ),
            }
        )
    context = {
        "rows": rows,
        "page": page,
        "filters": filters,
        "tiers": Tier.values,
        "namespaces": Namespace.objects.values_list("name", flat=True),
    }
    template = "review/batch.html" + ("#batch" if request.htmx else "")
    return render(request, template, context)


@require_POST
@role_required(CURATOR)
def decide(request: HttpRequest) -> HttpResponse:
    """POST without `confirm`: the preview of what the ticked clusters become; with it:
    each decided in turn (its version checked: one changed since the screen was drawn is
    refused by name, as is a flagged one for a merge), one undo for all."""
    back = reverse("batch-clusters") + _query(request.POST)
    action = request.POST.get("action", "")
    if action not in ACTIONS:
        messages.error(request, "Choose merge or dismiss for the ticked clusters.")
        return redirect(back)
    ids = selected_ids(request.POST.getlist("ticked"))
    if not ids:
        messages.error(request, "Nothing is ticked: tick the clusters to decide first.")
        return redirect(back)
    found = {
        c.pk: c
        for c in Cluster.objects.select_related("namespace").filter(
            pk__in=ids, status=ClusterStatus.OPEN
        )
    }
    texts = {pk: request.POST.get(f"text-{pk}", "") for pk in ids}
    versions = {pk: request.POST.get(f"version-{pk}", "") for pk in ids}
    if not request.POST.get("confirm"):
        items, flagged = [], []
        for pk in ids:
            if pk not in found:
                continue
            flags = bulk_flags(found[pk]) if action == "accept" else []
            row = {
                "cluster": found[pk],
                "members": cluster_members(found[pk]),
                "text": texts[pk],
                "version": versions[pk],
                "flags": flags,
            }
            (flagged if flags else items).append(row)
        gone = [pk for pk in ids if pk not in found]
        context = {
            "items": items,
            "flagged": flagged,
            "gone": gone,
            "action": action,
            "verb": ACTIONS[action],
            "back": back,
            "query": _query(request.POST),
        }
        return render(request, "review/batch_preview.html", context)
    done, refused = [], []
    for pk in ids:
        try:
            cluster = found.get(pk)
            if cluster is None:
                raise decisions.StaleDecision("it was decided meanwhile")
            decide_one(cluster, action, versions[pk], request.user, text=texts[pk])
            done.append(pk)
        except decisions.DecisionError as problem:
            refused.append(f"#{pk} was left alone: {problem}.")
    said = "merged" if action == "accept" else "dismissed"
    messages.success(request, f"{len(done)} of {len(ids)} ticked cluster(s) {said}.")
    for line in refused:
        messages.error(request, line)
    offer_undo_of_many(request, done, back)
    return redirect(back)


def _query(source) -> str:
    """The screen's filters as a query string, to go back to the same list."""
    filters = _filters(source)
    shown = {key: value for key, value in filters.items() if value not in ("", 0.0)}
    return f"?{urlencode(shown)}" if shown else ""
