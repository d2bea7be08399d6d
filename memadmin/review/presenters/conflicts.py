"""What the conflict pages show: the queue (grouped by topic when asked), a conflict's
page with the six ways to settle it, and the preview of a bulk settlement."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlencode

from django.core.paginator import Page
from django.db.models import Count
from django.urls import reverse

from memadmin.curation.models import (
    Conflict,
    ConflictKind,
    ConflictResolution,
    ConflictStatus,
    Tier,
)
from memadmin.curation.reads import counts, history
from memadmin.curation.reads.conflicts import (
    CONFLICT_SORTS,
    conflict_queue,
    copies_of,
    cosine_of,
    why_tier,
)
from memadmin.review import charts
from memadmin.review.diff import word_diff
from memadmin.review.forms import MAX_MATCHING, ConflictQueueFilters, queue_query
from memadmin.review.presenters.places import Place, next_in, page_url, place_in, queue_url
from memadmin.store.models import Namespace


def queue_page(filters: ConflictQueueFilters, found, page: Page, user, query) -> dict:
    """The conflict queue's context: `page` of `found` (the filtered conflicts); `query`
    the page's filters without the page number."""
    chosen = filters.arguments()
    tier = chosen["tier"]
    other_tier = Tier.POSSIBLE if tier == Tier.PROPOSED else Tier.PROPOSED
    return {
        "page": page,
        "tier": tier,
        "tiers": Tier.values,
        "filters": chosen,
        "sorts": list(CONFLICT_SORTS),
        # Each topic on this page with how many conflicts of the queue share it.
        "topics": _topic_counts(found, page) if chosen["by_topic"] else {},
        # The other tier's count, apart: "possible" conflicts are doubtful ones.
        "other_tier": other_tier,
        "other_tier_count": conflict_queue(**{**chosen, "tier": other_tier}).count(),
        "decided_today": counts.decided_today("conflict", user),
        "status": chosen["status"],
        "namespace": chosen["namespace"],
        "statuses": ConflictStatus.values,
        "kind": chosen["kind"],
        "kinds": ConflictKind.values,
        "base": query.urlencode(),
        # Each row opens its conflict with the queue's filters: n of N, previous, next.
        "from": urlencode({"from": query.urlencode()}),
        "namespaces": Namespace.objects.values_list("name", flat=True),
    }


def _topic_counts(found, page) -> dict[str, int]:
    """How many conflicts of the whole queue share each topic shown on this page."""
    shown = {conflict.topic for conflict in page}
    counted = (
        found.filter(topic__in=shown).order_by().values_list("topic").annotate(count=Count("pk"))
    )
    return dict(counted)


def order(query: str) -> list[int]:
    """The ids the conflict queue filtered by `query` shows, in its order."""
    filters = ConflictQueueFilters(queue_query(query))
    return list(conflict_queue(**filters.arguments()).values_list("pk", flat=True))


def conflict_url(pk: int, query: str) -> str:
    return page_url("conflict", pk, query)


def place(found: Conflict, query: str) -> Place:
    return place_in(
        order(query),
        found.pk,
        url=lambda pk: conflict_url(pk, query),
        queue=queue_url(reverse("conflicts"), query),
        query=query,
    )


def after_settling(found: Conflict, query: str, before: list[int]) -> str:
    """On to the next conflict of the queue it was opened from (same filters) still in
    it, else back to that queue."""
    following = next_in(before, order(query), found.pk, other=False)
    if following is None:
        return queue_url(reverse("conflicts"), query)
    return conflict_url(following, query)


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


def conflict_page(
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
    # The evidence's list is shown only where no waterfall is (confidence.html).
    shown = set() if conflict.explanation else set(conflict.evidence)
    return {
        "conflict": conflict,
        # What the reason says that the evidence does not (never twice on one page).
        "reason": "; ".join(
            part
            for part in conflict.reason.split("; ")
            if part not in shown and not part.startswith("weighed most: ")
        ),
        "explanation": conflict.explanation,
        "tier_note": why_tier(conflict),
        "waterfalls": [charts.waterfall(s) for s in conflict.explanation.get("stages", [])],
        # Copies of the same two texts (from other sources or sessions): one conflict to
        # people, settled with this one.
        "copies": copies_of(conflict),
        "a_spans": word_diff(a.content, b.content),
        "b_spans": word_diff(b.content, a.content),
        "resolutions": RESOLUTIONS,
        "similarity": cosine_of(a, b),
        "error": error,
        "changes": changes,
        "chosen": chosen or {},
        "place": place,
        "seen": history.last_event_id(conflict=conflict),
    }


def changes_since(found: Conflict, seen: int | None) -> list[str]:
    """What happened to the conflict after the page a decision came from was drawn."""
    if seen is None:
        return []
    return history.what_changed(conflict=found, since_event=seen)


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


def selected_preview(action: str, ids: list[int], matched: int, query: str) -> dict:
    """The preview of a bulk settlement: exactly the ticked conflicts still open, each
    with which memory is older and newer and what stays active afterwards."""
    found = (
        Conflict.objects.select_related("namespace", "memory_a", "memory_b")
        .filter(pk__in=ids, status=ConflictStatus.OPEN)
        .order_by("id")
    )
    verb, explained = SELECTED_ACTIONS[action]
    items, outcomes = [], {}
    for c in found:
        a, b = c.memory_a, c.memory_b  # "B supersedes A": B stays, A becomes history
        age = (
            ("older", "newer")
            if (a.created_at, a.pk) <= (b.created_at, b.pk)
            else ("newer", "older")
        )
        texts = [
            f"A, {age[0]} ({a.external_id}, {a.created_at:%Y-%m-%d}): {a.content}",
            f"B, {age[1]} ({b.external_id}, {b.created_at:%Y-%m-%d}): {b.content}",
        ]
        items.append((c, reverse("conflict", args=[c.pk]), texts, []))
        outcomes[c.pk] = (
            f"{b.external_id} stays active; {a.external_id} becomes history"
            if action == "b_supersedes_a"
            else "both stay active; the pair is not raised again"
        )
    return {
        "items": items,
        "outcomes": outcomes,
        "versions": {},
        "action": action,
        "verb": verb,
        "noun": "conflict",
        "explained": explained,
        "back": queue_url(reverse("conflicts"), query),
        "from": query,
        "matched": matched,
        "capped": matched > MAX_MATCHING,
    }
