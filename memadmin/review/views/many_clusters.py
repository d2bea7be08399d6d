"""Deciding many clusters at once: the bulk accept of exact copies, the clusters ticked
in the queue (accept or dismiss, previewed), and a cluster opened by hand from memories
ticked in the memory browser. Each cluster is decided by the same decision functions as
on its own page, one by one, each refused by name when it cannot be."""

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memadmin.curation import decisions
from memadmin.curation.detection.scoring.representative import representative
from memadmin.curation.models import Cluster, ClusterStatus
from memadmin.curation.reads.clusters import (
    bulk_flags,
    cluster_members,
    cluster_version,
    exact_open_clusters,
    pending_proposal,
)
from memadmin.review.roles import CURATOR
from memadmin.review.views.answers import (
    MAX_MATCHING,
    UnsafeNext,
    chosen_ids,
    offer_undo,
    queue_url,
    role_required,
    safe_next,
    selected_ids,
)
from memadmin.review.views.clusters import pending_or_rule_proposal, queue_order, rule_proposal


@role_required(CURATOR)
def bulk_accept_exact(request: HttpRequest) -> HttpResponse:
    """Accept open exact-duplicate clusters of the namespace the queue shows (none: every
    namespace). GET: a preview, each mergeable cluster with the text it keeps and a ticked
    box, the flagged ones (protected or pinned members, a guard) apart with a link each:
    they never go through a bulk action. POST: the ticked clusters, each refused by name
    when it is flagged, decided, no longer exact or changed since the preview."""
    source = request.POST if request.method == "POST" else request.GET
    namespace = source.get("namespace", "")
    back = queue_url(reverse("clusters"), urlencode({"namespace": namespace}) if namespace else "")
    if request.method != "POST":
        mergeable, flagged = [], []
        for cluster in exact_open_clusters(namespace or None):
            flags = bulk_flags(cluster, exact_copies=True)
            (flagged if flags else mergeable).append(
                (cluster, flags, _kept_text(cluster), cluster_version(cluster))
            )
        context = {"mergeable": mergeable, "flagged": flagged, "namespace": namespace}
        context["across_sources"] = settings.BULK_EXACT_ACROSS_SOURCES
        context["back"] = back
        return render(request, "review/bulk_exact.html", context)
    ids = selected_ids(request.POST.getlist("selected"))
    if not ids:
        messages.error(request, "No cluster was ticked: nothing was accepted.")
        return redirect(back)
    exact = {c.pk: c for c in exact_open_clusters(namespace or None)}
    accepted, refused = [], []
    for pk in ids:
        cluster = exact.get(pk)
        try:
            if cluster is None:
                raise decisions.DecisionError(_why_not_open(pk))
            seen = request.POST.get(f"version-{pk}")
            decide_one(cluster, "accept", seen, request.user, exact_copies=True)
            accepted.append(pk)
        except decisions.DecisionError as problem:
            refused.append(f"#{pk} was not accepted: {problem}.")
    where = namespace or "every namespace"
    messages.success(request, f"Accepted {len(accepted)} exact-duplicate cluster(s) in {where}.")
    for line in refused:
        messages.error(request, line)
    offer_undo_of_many(request, accepted, back, what=" merges")
    return redirect(back)


def _kept_text(cluster: Cluster) -> str:
    """The text an accepted exact cluster keeps: its proposal's, else the representative's."""
    proposal = pending_proposal(cluster)
    if proposal is not None:
        return proposal.merged_text
    return representative(cluster_members(cluster)).content


def _why_not_open(pk: int) -> str:
    """Why a ticked cluster is not among the open (exact) ones: decided (by whom, when),
    gone, or not exact copies."""
    found = Cluster.objects.select_related("decided_by").filter(pk=pk).first()
    if found is None:
        return "there is no such cluster"
    if found.status != ClusterStatus.OPEN:
        who = found.decided_by.get_username() if found.decided_by else "a command"
        when = found.decided_at.strftime("%Y-%m-%d %H:%M") if found.decided_at else "?"
        return f"it was already {found.status} by {who} at {when}"
    return "its members are not exact copies of one text (or not in this namespace)"


SELECTED_ACTIONS = {
    "accept": (
        "Accept",
        "Each cluster is merged as its proposal says (a rule proposal is written for one "
        "that has none), one by one; each can be undone from History.",
    ),
    "dismiss": (
        "Dismiss",
        "Each cluster closes as not duplicates; its pairs are not proposed again (undo "
        "from History).",
    ),
}


@role_required(CURATOR)
def selected(request: HttpRequest) -> HttpResponse:
    """Accept or dismiss the clusters ticked in the queue. GET: a preview of exactly
    those still open, with the version each shows; for an accept, the flagged ones apart
    (never merged in bulk). POST: each decided in turn; one decided meanwhile, changed
    since the preview or flagged is refused by name. Back to the queue as filtered."""
    source = request.POST if request.method == "POST" else request.GET
    back = queue_url(reverse("clusters"), source.get("from", ""))
    action = source.get("action", "")
    if action not in SELECTED_ACTIONS:
        messages.error(request, "Choose accept or dismiss for the selected clusters.")
        return redirect(back)
    ids, matched = chosen_ids(source, queue_order)
    found = {
        c.pk: c
        for c in Cluster.objects.select_related("namespace").filter(
            pk__in=ids, status=ClusterStatus.OPEN
        )
    }
    verb, explained = SELECTED_ACTIONS[action]
    if request.method != "POST":
        items, flagged = [], []
        for cluster in sorted(found.values(), key=lambda c: c.pk):
            flags = bulk_flags(cluster)
            texts = [m.content for m in cluster_members(cluster)]
            row = (cluster, reverse("cluster", args=[cluster.pk]), texts, flags)
            (flagged if flags and action == "accept" else items).append(row)
        context = {
            "items": items,
            "flagged": flagged,
            "gone": [f"#{pk}: {_why_not_open(pk)}" for pk in ids if pk not in found],
            "versions": {c.pk: cluster_version(c) for c, *_ in items},
            "action": action,
            "verb": verb,
            "noun": "cluster",
            "explained": explained,
            "back": back,
            "from": source.get("from", ""),
            "matched": matched,
            "capped": matched > MAX_MATCHING,
        }
        return render(request, "review/selected.html", context)
    done, refused = [], []
    for pk in ids:
        cluster = found.get(pk)
        try:
            if cluster is None:
                raise decisions.StaleDecision(_why_not_open(pk))
            decide_one(cluster, action, request.POST.get(f"version-{pk}"), request.user)
            done.append(pk)
        except decisions.DecisionError as problem:
            refused.append(f"#{pk} was left alone: {problem}.")
    messages.success(request, f"{verb}ed {len(done)} of {len(ids)} selected cluster(s).")
    for line in refused:
        messages.error(request, line)
    offer_undo_of_many(request, done, back)
    return redirect(back)


def decide_one(
    cluster: Cluster,
    action: str,
    seen: str | None,
    user,
    text: str | None = None,
    *,
    exact_copies: bool = False,
):
    """One cluster of a bulk action: accepted (with `text` if given) or dismissed,
    refused if it changed since the page showed it (`seen`: its version then) or, for an
    accept, if it is flagged (decided on its own page, never in bulk; `exact_copies`: see
    bulk_flags)."""
    flags = bulk_flags(cluster, exact_copies=exact_copies) if action == "accept" else []
    if flags:  # said first: a flagged cluster is never decided here, changed or not
        raise decisions.DecisionError(f"flagged ({', '.join(flags)}): decide it on its own page")
    if seen != cluster_version(cluster):
        raise decisions.StaleDecision("it changed since the page showed it")
    if action == "accept":
        decisions.accept_proposal(
            proposal=pending_or_rule_proposal(cluster), user=user, text=text or None
        )
    else:
        decisions.dismiss_cluster(cluster=cluster, user=user)


def offer_undo_of_many(
    request: HttpRequest, decided: list[int], back: str, *, what: str = ""
) -> None:
    """One undo for a bulk action: the toast takes back every cluster it decided."""
    if decided:
        offer_undo(
            request,
            url=reverse("unmerge-many") + "?clusters=" + ",".join(map(str, decided)),
            label=f"Undo these {len(decided)}{what}",
            back=back,
        )


@require_POST
@role_required(CURATOR)
def open_by_hand(request: HttpRequest) -> HttpResponse:
    """The memories ticked in the memory browser become a cluster to review (duplicates
    the engine missed), with a rule proposal; refused back to the browser, saying why."""
    try:
        back = safe_next(request, reverse("memories"))
    except UnsafeNext as problem:
        return render(request, "400.html", {"message": str(problem)}, status=400)
    ids = selected_ids(request.POST.getlist("selected"))
    try:
        found = decisions.open_cluster_by_hand(memory_ids=ids, user=request.user)
        # Always a fresh proposal: a grown cluster's earlier one misses the new members.
        rule_proposal(found)
    except decisions.DecisionError as problem:
        messages.error(request, f"No cluster opened: {problem}.")
        return redirect(back)
    messages.success(
        request, f"Cluster #{found.pk} opened from {len(set(ids))} memories: review it here."
    )
    return redirect("cluster", cluster_id=found.pk)
