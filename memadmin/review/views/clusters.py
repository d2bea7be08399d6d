"""The curators' pages: the cluster queue, a cluster's page, and every decision on it."""

from collections.abc import Sequence
from urllib.parse import urlencode

from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memadmin.curation import decisions, proposals
from memadmin.curation.detection.scoring.representative import representative
from memadmin.curation.llm import client as llm
from memadmin.curation.models import Cluster, ClusterStatus, MergeProposal, Tier
from memadmin.curation.reads import counts
from memadmin.curation.reads import history as history_queries
from memadmin.curation.reads.clusters import (
    QUEUE_SORTS,
    cluster_members,
    cluster_queue,
    cluster_version,
    merged_memory,
    pending_proposal,
    split_parts,
)
from memadmin.review.diff import word_diff
from memadmin.review.models import ReviewerSettings
from memadmin.review.roles import CURATOR, VIEWER
from memadmin.review.views.answers import (
    QUEUE_PAGE_SIZE,
    DecisionPage,
    Place,
    answer_decision,
    filter_value,
    keep_draft,
    keep_in_box,
    offer_undo,
    page_of,
    place_in,
    query_without_page,
    queue_query,
    queue_url,
    role_required,
    take_draft,
    take_from_box,
)
from memadmin.store import validation
from memadmin.store.models import Memory, Namespace

UNIT = {"low": 0.0, "high": 1.0}
MAX_SIZE = 10_000  # members of a cluster, as a filter
# The queue's number filters: how each is read, and what the page says of a bad one.
QUEUE_NUMBERS = {
    "min_similarity": (validation.decimal, UNIT, "weakest link from: a number from 0 to 1"),
    "max_similarity": (validation.decimal, UNIT, "weakest link to: a number from 0 to 1"),
    "size": (
        validation.whole_number,
        {"low": 2, "high": MAX_SIZE},
        "size: a whole number, 2 or more",
    ),
}


def _queue_filters(query: QueryDict) -> tuple[dict, dict, list[str]]:
    """The queue's filters as the form shows them, as cluster_queue takes them, and what
    the page says of each number it ignored (a bad number is no filter)."""
    filters = {
        "namespace": query.get("namespace", ""),
        "status": query.get("status", ClusterStatus.OPEN),
        "min_similarity": query.get("min_similarity", ""),
        "max_similarity": query.get("max_similarity", ""),
        "size": query.get("size", ""),
        "category": query.get("category", ""),
        "protected": query.get("protected", ""),
        "method": query.get("method", ""),
        "sort": query.get("sort", "surest"),
        "tier": query.get("tier", Tier.PROPOSED),
        "q": query.get("q", "").strip()[:200],
    }
    if filters["status"] not in ClusterStatus.values:
        filters["status"] = ClusterStatus.OPEN
    if filters["tier"] not in Tier.values:
        filters["tier"] = Tier.PROPOSED
    numbers, ignored = {}, []
    for name, (parse, limits, said) in QUEUE_NUMBERS.items():
        numbers[name] = None
        if query.get(name):
            try:
                numbers[name] = parse(query[name], name, **limits)
            except validation.Invalid:
                ignored.append(f"ignored {validation.shown(query[name])}: {said}")
    arguments = {
        "namespace": filters["namespace"] or None,
        "status": filters["status"],
        **numbers,
        "category": filters["category"],
        "protected": {"yes": True, "no": False}.get(filters["protected"]),
        "method": filters["method"],
        "sort": filters["sort"],
        "tier": filters["tier"],
        "words": filters["q"],
    }
    return filters, arguments, ignored


@role_required(VIEWER)
def queue(request: HttpRequest) -> HttpResponse:
    """The review queue: filters, closest clusters first, paginated. An HTMX request
    (a filter change) gets the queue section only. Each row opens its cluster with the
    queue's filters (`from`), so the review goes on within this queue."""
    filters, arguments, ignored = _queue_filters(request.GET)
    page = page_of(request, cluster_queue(**arguments), QUEUE_PAGE_SIZE)
    for found in page:
        # Every row's lost-fact warning, saved proposal or not.
        members = [membership.memory for membership in found.memberships.all()]
        pending = found.pending[0] if found.pending else None
        found.warnings = (
            proposals.offered_warnings(members, pending) if found.status == "open" else []
        )
    other_tier = Tier.POSSIBLE if filters["tier"] == Tier.PROPOSED else Tier.PROPOSED
    context = {
        "page": page,
        "filters": filters,
        "ignored": ignored,
        # The other tier's count, apart: "possible" clusters are doubtful ones.
        "other_tier": other_tier,
        "other_tier_count": cluster_queue(**{**arguments, "tier": other_tier}).count(),
        "decided_today": counts.decided_today("cluster", request.user),
        "tiers": Tier.values,
        # Each status as people read it ("merged automatically", not "auto_merged").
        "statuses": [(value, label.lower()) for value, label in ClusterStatus.choices],
        "sorts": list(QUEUE_SORTS),
        "methods": ["exact", "vector", "lexical", "multilingual", "llm", "manual"],
        "namespaces": Namespace.objects.values_list("name", flat=True),
        "query": query_without_page(request),
        "from": urlencode({"from": query_without_page(request).urlencode()}),
    }
    template = "review/clusters.html" + ("#queue" if request.htmx else "")
    return render(request, template, context)


def queue_order(query: str) -> list[int]:
    """The ids of the clusters the queue filtered by `query` shows, in its order."""
    _, arguments, _ = _queue_filters(queue_query(query))
    return list(cluster_queue(**arguments).values_list("pk", flat=True))


def _cluster_url(pk: int, query: str) -> str:
    """A cluster's page, opened from the queue filtered by `query` (none: the plain page)."""
    return reverse("cluster", args=[pk]) + (f"?{urlencode({'from': query})}" if query else "")


def _place(found: Cluster, query: str, order: list[int] | None = None) -> Place:
    """`found`'s place in the queue `query` filters (its ids in `order` when known)."""
    return place_in(
        queue_order(query) if order is None else order,
        found.pk,
        url=lambda pk: _cluster_url(pk, query),
        queue=queue_url(reverse("clusters"), query),
        query=query,
    )


def _next_in_queue(found: Cluster, query: str, before: list[int]) -> str:
    """Where a decision on `found` goes on to: the next cluster of the queue it was opened
    from that is still in it (the queue's order before the decision), else the queue."""
    now = queue_order(query)
    after = before[before.index(found.pk) + 1 :] if found.pk in before else []
    following = next((pk for pk in after if pk in now), None) or next(
        (pk for pk in now if pk != found.pk), None
    )
    return (
        queue_url(reverse("clusters"), query)
        if following is None
        else _cluster_url(following, query)
    )


def _context(
    cluster: Cluster,
    error: str = "",
    against: int | None = None,
    *,
    changes: Sequence[str] = (),
    draft: str = "",
    place: Place | None = None,
    in_box: tuple[str, str] = ("", ""),
) -> dict:
    """The cluster page's context. Each member shows its differences from the proposal,
    or, when `against` names a member, from that member (to compare members). After a
    refusal: the `error`, what `changes` happened meanwhile, and the reviewer's `draft`
    of the text, set aside (never put in the box over the current proposal)."""
    members = cluster_members(cluster)
    proposal = pending_proposal(cluster)
    text = proposal.merged_text if proposal else representative(members).content
    merged = merged_memory(cluster)
    if merged is not None and proposal is None:
        text = merged.content  # decided: the members against what was saved
    compared = next((m for m in members if m.pk == against), None)
    base = compared.content if compared else text
    edges = {(e["a"], e["b"]): e for e in cluster.edges}
    edges.update({(e["b"], e["a"]): e for e in cluster.edges})
    weakest = set(cluster.weakest_link)
    grid = [
        [
            (edges.get((row.pk, col.pk)) if row.pk != col.pk else None, {row.pk, col.pk} == weakest)
            for col in members
        ]
        for row in members
    ]
    # The lost-fact check of the text the page offers, saved or not.
    open_now = cluster.status == ClusterStatus.OPEN
    warnings = proposals.offered_warnings(members, proposal) if open_now else []
    flags = list(cluster.flags)
    if any(m.pinned for m in members) and "protected" not in flags:
        flags.append("protected")  # pinned since the run: protected all the same
    return {
        "cluster": cluster,
        "flags": flags,
        "flags_explained": _explained(flags),
        # Each member against the proposal, and whether they differ at all.
        "members": [
            (m, spans, any(span.kind != "same" for span in spans))
            for m, spans in ((m, word_diff(m.content, base)) for m in members)
        ],
        "compared": compared,
        "grid": zip(members, grid, strict=True),
        "proposal": proposal,
        "warnings": warnings,
        # Members another decision made inactive, and what it was.
        "taken": cluster.memberships.exclude(taken_note="").values_list("taken_note", flat=True),
        # A text refused for itself goes back in the box, with what is wrong beside it.
        "text": in_box[0] if in_box[1] else text,
        "text_error": in_box[1],
        # The proposal box as tall as its text (about 70 characters a line), within reason.
        "text_rows": min(24, max(3, len(text) // 70 + text.count("\n") + 2)),
        "error": error,
        "place": place,
        "changes": changes,
        "draft": draft if draft.strip() and draft.strip() != text.strip() else "",
        "version": cluster_version(cluster),
        # What the page was drawn after: a refusal lists what happened since.
        "seen": f"{history_queries.last_event_id(cluster=cluster)}:{getattr(proposal, 'pk', 0)}",
        "merged": merged,
        "undo_event": _undoable_decision(cluster),
        "split_into": split_parts(cluster),
    }


# What the flags a reviewer meets mean, said once each on the cluster page.
FLAG_MEANINGS = {
    "protected": "Protected: a member is pinned, or of a protected category, importance or "
    "confidence; it is never merged automatically nor in bulk, only by a person here.",
    "guard": "Guard: the members differ in category, source or session, which the operator "
    "keeps apart from any automatic merge; merge them here only if they are one fact.",
}


def _explained(flags: list[str]) -> list[str]:
    kinds = {flag.split(":", 1)[0] for flag in flags}
    return [meaning for kind, meaning in FLAG_MEANINGS.items() if kind in kinds]


def _undoable_decision(cluster: Cluster):
    """The dismissal or split a decided cluster's page offers to undo."""
    action = {ClusterStatus.DISMISSED: "dismiss", ClusterStatus.SPLIT: "split"}.get(cluster.status)
    return history_queries.last_cluster_decision(cluster, action) if action else None


@role_required(VIEWER)
def cluster(request: HttpRequest, cluster_id: int) -> HttpResponse:
    # The way differences are shown, chosen once and kept with the reviewer's account.
    if request.GET.get("diff") in ReviewerSettings.DiffView.values:
        ReviewerSettings.objects.update_or_create(
            user=request.user, defaults={"diff_view": request.GET["diff"]}
        )
    against = filter_value(request, "against", validation.whole_number, low=1, high=2**63 - 1)
    found = _get(cluster_id)
    draft = take_draft(request, f"cluster-{found.pk}")
    in_box = take_from_box(request, f"cluster-{found.pk}")
    place = _place(found, request.GET.get("from", ""))
    context = _context(found, against=against, draft=draft, place=place, in_box=in_box)
    return render(request, "review/cluster.html", context)


def _get(cluster_id: int) -> Cluster:
    return get_object_or_404(
        Cluster.objects.select_related("namespace", "decided_by"), pk=cluster_id
    )


def _decide(
    request: HttpRequest, cluster_id: int, act, message: str = "", then=None
) -> HttpResponse:
    """Run one curator decision on a cluster, `act(cluster)` (which may return the
    message itself), and answer it (answers.answer_decision). Refused when the page it
    came from showed another version of the cluster (members, proposal or status).
    Decided: on to the next cluster of the queue the page was opened from (its filters in
    `from`), or back to that queue, or where `then(query)` says; still open (a member
    excluded): the cluster again."""
    found = _get(cluster_id)
    error = invalid = ""
    version = request.POST.get("version", "")
    query = request.POST.get("from", "")
    order = queue_order(query)
    try:
        with transaction.atomic():
            # One decision on a cluster at a time: a second click waits for one in flight
            # (its proposal written on the way included), then reads what it decided.
            found = (
                Cluster.objects.select_for_update(of=("self",))
                .select_related("namespace", "decided_by")
                .get(pk=cluster_id)
            )
            if version and version != cluster_version(found):
                decisions.refuse_if_decided(found)
                raise decisions.StaleDecision(
                    "this cluster changed since your page showed it: nothing was decided"
                )
            message = act(found) or message
    except decisions.InvalidText as problem:
        invalid = str(problem)  # the reviewer's own text, nobody else's doing
    except decisions.DecisionError as problem:
        error = str(problem)
    found = _get(cluster_id)  # as the decision left it
    if not (error or invalid):
        _offer_undo(request, found)
    changes = _changes_since(request, found) if error else []
    draft = request.POST.get("text", "")
    here = _cluster_url(found.pk, query)
    if error and not request.htmx:
        # Without JavaScript the refusal goes back to the page: the changes are said in
        # the message and the draft waits in the session for that page.
        error = "; ".join([error, *changes])
        keep_draft(request, f"cluster-{found.pk}", draft)
    if invalid and not request.htmx:
        keep_in_box(request, f"cluster-{found.pk}", draft, invalid)
    # A text refused for itself stays in its box, the error beside it, no refusal block.
    in_box = (draft, invalid) if invalid else ("", "")
    page = DecisionPage(
        "review/cluster.html",
        "cluster",
        lambda e: _context(
            found,
            error and e,
            changes=changes,
            draft="" if invalid else draft,
            place=_place(found, query, order),
            in_box=in_box,
        ),
    )
    done = here if found.status == ClusterStatus.OPEN else _next_in_queue(found, query, order)
    if then is not None and not (error or invalid):
        done = then(query) or done
    return answer_decision(
        request, page=page, error=error or invalid, message=message, done_url=done, refused_url=here
    )


def _changes_since(request: HttpRequest, found: Cluster) -> list[str]:
    """What happened to the cluster after the page the decision came from was drawn (the
    form's `seen`: the newest event and proposal it showed)."""
    event, _, proposal = request.POST.get("seen", "").partition(":")
    if not (event.isdigit() and proposal.isdigit()):
        return []
    return history_queries.what_changed(
        cluster=found, since_event=int(event), proposal_seen=int(proposal)
    )


def _offer_undo(request: HttpRequest, found: Cluster) -> None:
    """The toast's undo for the decision just taken on `found`: a merge (accept, keep
    one) is unmerged; a dismissal, split or exclusion taken back by its event."""
    back = reverse("cluster", args=[found.pk])
    if found.status == ClusterStatus.ACCEPTED:
        url, label = reverse("unmerge", args=[found.pk]), f"Undo the merge of #{found.pk}"
    else:
        action = {ClusterStatus.DISMISSED: "dismiss", ClusterStatus.SPLIT: "split"}.get(
            found.status, "exclude"
        )
        decision = history_queries.last_cluster_decision(found, action)
        if decision is None:
            return
        url, label = reverse("undo-decision", args=[decision.pk]), f"Undo the {action}"
    offer_undo(request, url=url, label=label, back=back)


@require_POST
@role_required(CURATOR)
def accept(request: HttpRequest, cluster_id: int) -> HttpResponse:
    """Accept the proposal, or the curator's edited text: one merged memory."""

    def act(found: Cluster) -> str:
        proposal = pending_or_rule_proposal(found)
        merged = decisions.accept_proposal(
            proposal=proposal, user=request.user, text=request.POST.get("text")
        )
        return f"Cluster #{found.pk} merged into {merged.external_id} (undo it from History)."

    return _decide(request, cluster_id, act)


@require_POST
@role_required(CURATOR)
def dismiss(request: HttpRequest, cluster_id: int) -> HttpResponse:
    """Not duplicates: closed and remembered, never proposed again."""
    return _decide(
        request,
        cluster_id,
        lambda found: decisions.dismiss_cluster(cluster=found, user=request.user),
        "Dismissed: these memories will not be proposed together again.",
    )


@require_POST
@role_required(CURATOR)
def keep_member(request: HttpRequest, cluster_id: int, memory_id: int) -> HttpResponse:
    def act(found: Cluster) -> str:
        decisions.keep_survivor(cluster=found, survivor_id=memory_id, user=request.user)
        kept = Memory.objects.only("external_id").get(pk=memory_id)
        return f"Kept {kept.external_id}; the others of cluster #{found.pk} fold into it."

    return _decide(request, cluster_id, act)


@require_POST
@role_required(CURATOR)
def exclude_member(request: HttpRequest, cluster_id: int, memory_id: int) -> HttpResponse:
    def act(found: Cluster) -> str:
        decisions.exclude_member(cluster=found, memory_id=memory_id, user=request.user)
        taken = Memory.objects.only("external_id").get(pk=memory_id)
        return f"Member {taken.external_id} taken out of cluster #{found.pk}."

    return _decide(request, cluster_id, act)


@require_POST
@role_required(CURATOR)
def split(request: HttpRequest, cluster_id: int) -> HttpResponse:
    """Split at the weakest link, then on to the first part (the review goes on with
    what the split made), the message saying where each member went."""
    first_part = []

    def act(found: Cluster) -> str:
        parts = decisions.split_cluster(cluster=found, user=request.user)
        for part in parts:  # each part gets its own proposal to review
            pending_or_rule_proposal(part)
        first_part.extend(parts[:1])
        # Where each member went, as the split left the cluster (closed, its parts open).
        return f"Cluster #{found.pk} split: {where_members_went(Cluster.objects.get(pk=found.pk))}."

    def then(query: str) -> str | None:
        return _cluster_url(first_part[0].pk, query) if first_part else None

    return _decide(request, cluster_id, act, then=then)


def where_members_went(found: Cluster) -> str:
    """ "#6 holds a, b; c is on its own" for a split cluster."""
    parts, alone = split_parts(found)
    said = [
        f"#{part.pk} holds " + ", ".join(m.external_id for m in members) for part, members in parts
    ]
    if len(alone) == 1:
        said.append(f"{alone[0].external_id} is on its own")
    elif alone:
        said.append(", ".join(m.external_id for m in alone) + " are on their own")
    return "; ".join(said)


def pending_or_rule_proposal(found: Cluster) -> MergeProposal:
    proposal = pending_proposal(found)
    if proposal is not None:
        return proposal
    return rule_proposal(found)


def rule_proposal(found: Cluster) -> MergeProposal:
    members = cluster_members(found)
    draft = proposals.check(proposals.rule_draft(members, "written at review"), members)
    return decisions.record_proposal(cluster=found, members=members, draft=draft)


@require_POST
@role_required(CURATOR)
def refresh_proposal(request: HttpRequest, cluster_id: int) -> HttpResponse:
    """A new proposal from the cluster's current members (after a stale refusal)."""
    found = get_object_or_404(Cluster, pk=cluster_id)
    members = cluster_members(found, active_only=True)
    if len(members) < 2:
        messages.error(request, "Fewer than two active members are left: dismiss the cluster.")
        return redirect("cluster", cluster_id=found.pk)
    session = llm.Session(max_calls=1) if llm.configured() else None
    try:
        decisions.record_proposal(
            cluster=found, members=members, draft=proposals.draft_for(members, session)
        )
    except decisions.DecisionError as problem:
        messages.error(request, str(problem))
    else:
        messages.success(request, "The proposal was written again from the current members.")
    return redirect("cluster", cluster_id=found.pk)
