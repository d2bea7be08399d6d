"""The admins' pages: the conflict queue, a conflict's page, and settling it."""

from collections.abc import Sequence
from urllib.parse import urlencode

from django.contrib import messages
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memadmin.curation import decisions
from memadmin.curation.models import (
    Conflict,
    ConflictKind,
    ConflictResolution,
    ConflictStatus,
    Tier,
    settled_in_words,
)
from memadmin.curation.reads import counts
from memadmin.curation.reads import history as history_queries
from memadmin.curation.reads.conflicts import CONFLICT_SORTS, conflict_queue
from memadmin.review.diff import word_diff
from memadmin.review.roles import ADMIN, VIEWER
from memadmin.review.views.answers import (
    MAX_MATCHING,
    QUEUE_PAGE_SIZE,
    DecisionPage,
    Place,
    UnsafeNext,
    answer_decision,
    chosen_ids,
    offer_undo,
    page_of,
    place_in,
    query_without_page,
    queue_query,
    queue_url,
    role_required,
    safe_next,
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
        "words": query.get("q", "").strip()[:200],
        "sort": sort if (sort := query.get("sort", "")) in CONFLICT_SORTS else "surest",
        "by_topic": query.get("group") == "topic",
    }


def _order(query: str) -> list[int]:
    """The ids the conflict queue filtered by `query` shows, in its order."""
    return list(conflict_queue(**_filters(queue_query(query))).values_list("pk", flat=True))


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
    found = conflict_queue(**filters)
    page = page_of(request, found, QUEUE_PAGE_SIZE)
    other_tier = Tier.POSSIBLE if tier == Tier.PROPOSED else Tier.PROPOSED
    context = {
        "page": page,
        "tier": tier,
        "tiers": Tier.values,
        "filters": filters,
        "sorts": list(CONFLICT_SORTS),
        # Each topic on this page with how many conflicts of the queue share it.
        "topics": _topic_counts(found, page) if filters["by_topic"] else {},
        # The other tier's count, apart: "possible" conflicts are doubtful ones.
        "other_tier": other_tier,
        "other_tier_count": conflict_queue(**{**filters, "tier": other_tier}).count(),
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


def _topic_counts(found, page) -> dict[str, int]:
    """How many conflicts of the whole queue share each topic shown on this page."""
    shown = {conflict.topic for conflict in page}
    counted = (
        found.filter(topic__in=shown).order_by().values_list("topic").annotate(count=Count("pk"))
    )
    return dict(counted)


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


# What the queue's bulk actions do, with what their preview says.
SELECTED_ACTIONS = {
    "dismiss": (
        "Mark as not a conflict:",
        "Both memories stay as they are; each pair is not raised again (undo from each "
        "conflict's page).",
    ),
    "b_supersedes_a": (
        "Newer supersedes older:",
        "The fact changed: each older memory stays as history, valid until the newer one "
        "was written (undo from each conflict's page).",
    ),
}


@role_required(ADMIN)
def selected(request: HttpRequest) -> HttpResponse:
    """A settlement for the conflicts ticked in the queue (or all that its filter
    matches): "not a conflict", or "newer supersedes older" (an update queue's usual
    answer). GET previews exactly those still open; POST settles each, refused one by
    one if someone settled it since."""
    source = request.POST if request.method == "POST" else request.GET
    back = queue_url(reverse("conflicts"), source.get("from", ""))
    action = source.get("action", "dismiss")
    if action not in SELECTED_ACTIONS:
        messages.error(request, "Choose not a conflict or newer supersedes older.")
        return redirect(back)
    ids, matched = chosen_ids(source, _order)
    found = list(
        Conflict.objects.select_related("namespace", "memory_a", "memory_b")
        .filter(pk__in=ids)
        .order_by("id")
    )
    verb, explained = SELECTED_ACTIONS[action]
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
            "action": action,
            "verb": verb,
            "noun": "conflict",
            "explained": explained,
            "back": back,
            "from": source.get("from", ""),
            "matched": matched,
            "capped": matched > MAX_MATCHING,
        }
        return render(request, "review/selected.html", context)
    done, refused = 0, []
    for found_conflict in found:
        try:
            decisions.resolve_conflict(
                conflict=found_conflict, resolution=action, user=request.user
            )
            done += 1
        except decisions.DecisionError as problem:
            refused.append(f"#{found_conflict.pk} was left alone: {problem}.")
    said = "marked not a conflict" if action == "dismiss" else "settled: newer supersedes older"
    messages.success(request, f"{done} of {len(set(ids))} selected conflict(s) {said}.")
    for line in refused:
        messages.error(request, line)
    return redirect(back)
