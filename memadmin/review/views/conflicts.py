"""The admins' pages: the conflict queue, a conflict's page, and settling it."""

from collections.abc import Sequence
from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memadmin.curation import counts, decisions, history_queries, queries
from memadmin.curation.models import (
    Conflict,
    ConflictKind,
    ConflictResolution,
    ConflictStatus,
    Tier,
    settled_in_words,
)
from memadmin.review.diff import word_diff
from memadmin.review.roles import ADMIN, VIEWER
from memadmin.review.views.answers import (
    QUEUE_PAGE_SIZE,
    DecisionPage,
    Place,
    UnsafeNext,
    answer_decision,
    offer_undo,
    page_of,
    place_in,
    query_without_page,
    queue_query,
    queue_url,
    role_required,
    safe_next,
    selected_ids,
)
from memadmin.store.models import Memory, Namespace


def _filters(query) -> dict:
    """The conflict queue's filters from a query (the page's, or a conflict page's
    `from`), each refused value replaced by its default."""
    status = query.get("status", ConflictStatus.OPEN)
    tier = query.get("tier", Tier.PROPOSED)
    return {
        "status": status if status in ConflictStatus.values else ConflictStatus.OPEN,
        "namespace": query.get("namespace", ""),
        "kind": kind if (kind := query.get("kind", "")) in ConflictKind.values else "",
        "tier": tier if tier in Tier.values else Tier.PROPOSED,
    }


def _order(query: str) -> list[int]:
    """The ids the conflict queue filtered by `query` shows, in its order."""
    return list(queries.conflict_queue(**_filters(queue_query(query))).values_list("pk", flat=True))


def _conflict_url(pk: int, query: str) -> str:
    return reverse("conflict", args=[pk]) + (f"?{urlencode({'from': query})}" if query else "")


def _place(found: Conflict, query: str) -> Place:
    return place_in(
        _order(query),
        found.pk,
        url=lambda pk: _conflict_url(pk, query),
        queue=queue_url(reverse("conflicts"), query),
        query=query,
    )


@role_required(VIEWER)
def queue(request: HttpRequest) -> HttpResponse:
    filters = _filters(request.GET)
    status, namespace, kind, tier = (filters[k] for k in ("status", "namespace", "kind", "tier"))
    found = queries.conflict_queue(status=status, namespace=namespace, kind=kind, tier=tier)
    page = page_of(request, found, QUEUE_PAGE_SIZE)
    other_tier = Tier.POSSIBLE if tier == Tier.PROPOSED else Tier.PROPOSED
    context = {
        "page": page,
        "tier": tier,
        "tiers": Tier.values,
        # The other tier's count, apart: "possible" conflicts are doubtful ones.
        "other_tier": other_tier,
        "other_tier_count": queries.conflict_queue(
            status=status, namespace=namespace, kind=kind, tier=other_tier
        ).count(),
        "decided_today": counts.decided_today("conflict", request.user),
        "status": status,
        "namespace": namespace,
        "statuses": ConflictStatus.values,
        "kind": kind,
        "kinds": ConflictKind.values,
        "base": query_without_page(request).urlencode(),
        # Each row opens its conflict with the queue's filters: n of N, previous, next.
        "from": urlencode({"from": query_without_page(request).urlencode()}),
        "namespaces": Namespace.objects.values_list("name", flat=True),
    }
    return render(request, "review/conflicts.html" + ("#queue" if request.htmx else ""), context)


# Each resolution, with the line that says what it does to the two memories.
RESOLUTIONS = [
    (ConflictResolution.KEEP_A, "Keep A", "B is retired (deleted, kept in history)."),
    (ConflictResolution.KEEP_B, "Keep B", "A is retired (deleted, kept in history)."),
    (
        ConflictResolution.B_SUPERSEDES_A,
        "B supersedes A",
        "the fact changed: A stays as history, valid until B was written.",
    ),
    (
        ConflictResolution.BOTH_VALID,
        "Both valid",
        "each holds somewhere: both stay, with your scope note.",
    ),
    (
        ConflictResolution.REWRITTEN,
        "Rewrite",
        "one new memory with your text replaces both.",
    ),
    ("dismiss", "Not a conflict", "nothing changes; the pair is not raised again."),
]


def _context(
    conflict: Conflict,
    error: str = "",
    *,
    changes: Sequence[str] = (),
    chosen=None,
    place: Place | None = None,
) -> dict:
    """The conflict page's context; after a refusal, what changed meanwhile and what the
    admin had chosen (resolution, scope note, text), kept in the form."""
    a, b = conflict.memory_a, conflict.memory_b
    return {
        "conflict": conflict,
        "a_spans": word_diff(a.content, b.content),
        "b_spans": word_diff(b.content, a.content),
        "resolutions": RESOLUTIONS,
        "similarity": _similarity(a, b),
        "error": error,
        "changes": changes,
        "chosen": chosen or {},
        "place": place,
        "seen": history_queries.last_event_id(conflict=conflict),
    }


def _similarity(a, b) -> float | None:
    """The two memories' cosine (MiniLM's), when both have a vector of the model."""
    vectors = Memory.objects.filter(pk__in=[a.pk, b.pk], embedding__isnull=False).values_list(
        "embedding", flat=True
    )
    found = [list(v) for v in vectors]
    if len(found) != 2:
        return None
    return float(sum(x * y for x, y in zip(*found, strict=True)))


def _get(conflict_id: int) -> Conflict:
    return get_object_or_404(
        Conflict.objects.select_related("namespace", "memory_a", "memory_b", "resolver"),
        pk=conflict_id,
    )


@role_required(VIEWER)
def conflict(request: HttpRequest, conflict_id: int) -> HttpResponse:
    found = _get(conflict_id)
    place = _place(found, request.GET.get("from", ""))
    return render(request, "review/conflict.html", _context(found, place=place))


@require_POST
@role_required(ADMIN)
def resolve(request: HttpRequest, conflict_id: int) -> HttpResponse:
    found = _get(conflict_id)
    chosen = {
        "resolution": request.POST.get("resolution", ""),
        "scope_note": request.POST.get("scope_note", "").strip(),
        "text": request.POST.get("text", ""),
    }
    seen = request.POST.get("seen", "")
    query = request.POST.get("from", "")
    before = _order(query)
    error = ""
    try:
        if seen.isdigit() and int(seen) != history_queries.last_event_id(conflict=found):
            raise decisions.StaleDecision(
                "this conflict changed since your page showed it: nothing was settled"
            )
        decisions.resolve_conflict(conflict=found, user=request.user, **chosen)
    except decisions.DecisionError as problem:
        error = str(problem)
    changes = (
        history_queries.what_changed(conflict=found, since_event=int(seen))
        if error and seen.isdigit()
        else []
    )
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
        lambda e: _context(found, e, changes=changes, chosen=chosen, place=_place(found, query)),
    )
    # On to the next conflict of the queue it was opened from (same filters) still open.
    now = _order(query)
    after = before[before.index(found.pk) + 1 :] if found.pk in before else []
    following = next((pk for pk in after if pk in now), None) or next(iter(now), None)
    return answer_decision(
        request,
        page=page,
        error=error,
        message=f"Conflict {found.pk} settled as {settled}.",
        done_url=(
            _conflict_url(following, query) if following else queue_url(reverse("conflicts"), query)
        ),
        refused_url=_conflict_url(found.pk, query),
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
    """ "Not a conflict" for the conflicts ticked in the queue: GET previews exactly those
    still open, POST settles each (refused one by one if someone settled it since)."""
    source = request.POST if request.method == "POST" else request.GET
    ids = selected_ids(source.getlist("selected"))
    found = list(
        Conflict.objects.select_related("namespace", "memory_a", "memory_b")
        .filter(pk__in=ids)
        .order_by("id")
    )
    if request.method != "POST":
        items = [
            (
                c,
                reverse("conflict", args=[c.pk]),
                [c.memory_a.content, c.memory_b.content],
                [c.kind],
            )
            for c in found
            if c.status == ConflictStatus.OPEN
        ]
        context = {
            "items": items,
            "versions": {},
            "action": "dismiss",
            "verb": "Mark as not a conflict:",
            "noun": "conflict",
            "explained": "Both memories stay as they are; each pair is not raised again "
            "(undo from each conflict's page).",
            "back": reverse("conflicts"),
            "from": source.get("from", ""),
        }
        return render(request, "review/selected.html", context)
    done, refused = 0, []
    for found_conflict in found:
        try:
            decisions.resolve_conflict(
                conflict=found_conflict, resolution="dismiss", user=request.user
            )
            done += 1
        except decisions.DecisionError as problem:
            refused.append(f"#{found_conflict.pk} was left alone: {problem}.")
    messages.success(
        request, f"{done} of {len(set(ids))} selected conflict(s) marked not a conflict."
    )
    for line in refused:
        messages.error(request, line)
    return redirect(queue_url(reverse("conflicts"), request.POST.get("from", "")))
