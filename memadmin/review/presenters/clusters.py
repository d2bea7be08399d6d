"""What the cluster pages show: the queue, a cluster's page, the batch screen and the
previews of the bulk actions (the exact copies, the ticked clusters, the batch)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from django.core.paginator import Page
from django.urls import reverse

from memadmin.curation.models import Cluster, ClusterStatus, Tier
from memadmin.curation.reads import counts, history
from memadmin.curation.reads.clusters import (
    QUEUE_SORTS,
    bulk_flags,
    cluster_members,
    cluster_queue,
    cluster_version,
    copies_across,
    count_exact_open,
    exact_open_clusters,
    merged_memory,
    offered_text,
    offered_warnings,
    page_flags,
    pending_proposal,
    split_parts,
    why_tier,
    with_members_and_proposals,
)
from memadmin.review import charts
from memadmin.review.diff import word_diff
from memadmin.review.forms import MAX_MATCHING, BatchFilters, ClusterQueueFilters, queue_query
from memadmin.review.presenters.places import Place, next_in, page_url, place_in, queue_url
from memadmin.store.models import Namespace

METHODS = ["exact", "vector", "lexical", "multilingual", "llm", "manual"]


# --- The queue ----------------------------------------------------------------------------


def queue_page(filters: ClusterQueueFilters, page: Page, user, query) -> dict:
    """The queue's context: `page` of the filtered clusters, each with the lost-fact check
    of what it offers; `query` the page's filters without the page number."""
    for found in page:
        members = [membership.memory for membership in found.memberships.all()]
        pending = found.pending[0] if found.pending else None
        open_now = found.status == ClusterStatus.OPEN
        found.warnings = offered_warnings(members, pending) if open_now else []
        found.shown_flags = page_flags(found, members)
        found.copies = copies_across(members)
    shown = filters.shown()
    other_tier = Tier.POSSIBLE if shown["tier"] == Tier.PROPOSED else Tier.PROPOSED
    return {
        "page": page,
        "filters": shown,
        "ignored": filters.ignored,
        # The other tier's count, apart: "possible" clusters are doubtful ones.
        "other_tier": other_tier,
        "other_tier_count": cluster_queue(**{**filters.arguments(), "tier": other_tier}).count(),
        "decided_today": counts.decided_today("cluster", user),
        "tiers": Tier.values,
        # Each status as people read it ("merged automatically", not "auto_merged").
        "statuses": [(value, label.lower()) for value, label in ClusterStatus.choices],
        "sorts": list(QUEUE_SORTS),
        "methods": METHODS,
        "namespaces": Namespace.objects.values_list("name", flat=True),
        "query": query,
        "from": urlencode({"from": query.urlencode()}),
    }


def queue_order(query: str) -> list[int]:
    """The ids of the clusters the queue filtered by `query` shows, in its order."""
    filters = ClusterQueueFilters(queue_query(query))
    return list(cluster_queue(**filters.arguments()).values_list("pk", flat=True))


def cluster_url(pk: int, query: str) -> str:
    """A cluster's page, opened from the queue filtered by `query`."""
    return page_url("cluster", pk, query)


def place(found: Cluster, query: str, order: list[int] | None = None) -> Place:
    """`found`'s place in the queue `query` filters (its ids in `order` when known)."""
    return place_in(
        queue_order(query) if order is None else order,
        found.pk,
        url=lambda pk: cluster_url(pk, query),
        queue=queue_url(reverse("clusters"), query),
        query=query,
    )


@dataclass(frozen=True)
class Answer:
    """What the page answers a decision on a cluster with: where to go once it is taken,
    where a refusal goes back to (no JavaScript), the undo to offer, the draft to set
    aside, and the page's part drawn again with a refusal (HTMX)."""

    done_url: str
    refused_url: str
    undo: tuple[str, str] | None
    error: str
    draft: str
    page: Callable[[str], dict]


def decision_answer(cluster_id: int, form, decided, before: list[int], *, htmx: bool) -> Answer:
    """The answer to a decision (`decided`: reviews.Decided) on a cluster, as the form
    (forms.ClusterDecision) from the page sent it; `before`: the queue's order before it.
    Decided: on to the next cluster of the queue the page was opened from (its filters in
    `from`), back to that queue, or to the first part of a split; still open (a member
    excluded): the cluster again. Refused: the page again, with what changed meanwhile
    (said in the error without JavaScript), the curator's text kept."""
    found = Cluster.objects.select_related("namespace", "decided_by").get(pk=cluster_id)
    query, draft = form.query, form.cleaned_data["text"]
    changes = changes_since(found, form.seen_pair()) if decided.error else []
    error = decided.error
    if error and not htmx:
        error = "; ".join([error, *changes])
    # A text refused for itself stays in its box, the error beside it, no refusal block.
    in_box = (draft, decided.invalid) if decided.invalid else ("", "")

    def page(shown_error: str) -> dict:
        return cluster_page(
            found,
            decided.error and shown_error,
            changes=changes,
            draft="" if decided.invalid else draft,
            place=place(found, query, before),
            in_box=in_box,
        )

    done = (
        cluster_url(decided.then, query)
        if decided.then is not None
        else after_decision(found, query, before)
    )
    return Answer(
        done_url=done,
        refused_url=cluster_url(found.pk, query),
        undo=None if decided.refused else undo_offer(found),
        error=error or decided.invalid,
        draft=draft,
        page=page,
    )


# How far down the queue a decision looks for the next cluster before reading it whole.
NEXT_LOOKAHEAD = 200


def after_decision(found: Cluster, query: str, before: list[int]) -> str:
    """Where a decision on `found` goes on to: the cluster again while it is open, else
    the next cluster of the queue it was opened from that is still in it, else that
    queue."""
    if found.status == ClusterStatus.OPEN:
        return cluster_url(found.pk, query)
    # The next ones of the order before, still in the queue: asked of those few, not of
    # the whole queue read again (10,000 ids at a large store).
    after = before[before.index(found.pk) + 1 :][:NEXT_LOOKAHEAD] if found.pk in before else []
    filters = ClusterQueueFilters(queue_query(query))
    still = set(
        cluster_queue(**filters.arguments()).filter(pk__in=after).values_list("pk", flat=True)
    )
    following = next((pk for pk in after if pk in still), None)
    if following is None:
        following = next_in(before, queue_order(query), found.pk)
    if following is None:
        return queue_url(reverse("clusters"), query)
    return cluster_url(following, query)


# --- A cluster's page -----------------------------------------------------------------------

# What the flags a reviewer meets mean, said once each on the cluster page.
FLAG_MEANINGS = {
    "protected": "Protected: a member is pinned, or of a protected category, importance or "
    "confidence; it is never merged automatically nor in bulk, only by a person here.",
    "guard": "Guard: the members differ in category, source or session, which the operator "
    "keeps apart from any automatic merge; merge them here only if they are one fact.",
}


def cluster_page(
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
    text = offered_text(members, proposal)
    merged = merged_memory(cluster)
    if merged is not None and proposal is None:
        text = merged.content  # decided: the members against what was saved
    compared = next((m for m in members if m.pk == against), None)
    base = compared.content if compared else text
    # The lost-fact check of the text the page offers, saved or not.
    open_now = cluster.status == ClusterStatus.OPEN
    # Pinned since the run: protected all the same; copies of one text from two sources
    # are said as such (copies_across), not as a flag.
    flags = page_flags(cluster, members)
    return {
        "cluster": cluster,
        "explanation": cluster.explanation,
        "tier_note": why_tier(cluster, members),
        "waterfalls": [charts.waterfall(s) for s in cluster.explanation.get("stages", [])],
        "copies": copies_across(members),
        "flags": flags,
        "flags_explained": _explained(flags),
        # Each member against the proposal, and whether they differ at all.
        "members": [
            (m, spans, any(span.kind != "same" for span in spans))
            for m, spans in ((m, word_diff(m.content, base)) for m in members)
        ],
        "compared": compared,
        "grid": zip(members, _grid(cluster, members), strict=True),
        "proposal": proposal,
        "warnings": offered_warnings(members, proposal) if open_now else [],
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
        "seen": f"{history.last_event_id(cluster=cluster)}:{getattr(proposal, 'pk', 0)}",
        "merged": merged,
        "undo_event": _undoable_decision(cluster),
        "split_into": split_parts(cluster),
    }


def _grid(cluster: Cluster, members) -> list[list[tuple]]:
    """Every pair's edge (None on the diagonal), and whether it is the weakest link."""
    edges = {(e["a"], e["b"]): e for e in cluster.edges}
    edges.update({(e["b"], e["a"]): e for e in cluster.edges})
    weakest = set(cluster.weakest_link)
    return [
        [
            (edges.get((row.pk, col.pk)) if row.pk != col.pk else None, {row.pk, col.pk} == weakest)
            for col in members
        ]
        for row in members
    ]


def _explained(flags: list[str]) -> list[str]:
    kinds = {flag.split(":", 1)[0] for flag in flags}
    return [meaning for kind, meaning in FLAG_MEANINGS.items() if kind in kinds]


def _undoable_decision(cluster: Cluster):
    """The dismissal or split a decided cluster's page offers to undo."""
    action = {ClusterStatus.DISMISSED: "dismiss", ClusterStatus.SPLIT: "split"}.get(cluster.status)
    return history.last_cluster_decision(cluster, action) if action else None


def changes_since(found: Cluster, seen: tuple[int, int] | None) -> list[str]:
    """What happened to the cluster after the page a decision came from was drawn (its
    `seen`: the newest event and proposal it showed)."""
    if seen is None:
        return []
    event, proposal = seen
    return history.what_changed(cluster=found, since_event=event, proposal_seen=proposal)


def undo_offer(found: Cluster) -> tuple[str, str] | None:
    """The toast's undo for the decision just taken on `found`, as (url, label): a merge
    (accept, keep one) is unmerged; a dismissal, split or exclusion taken back by its
    event."""
    if found.status == ClusterStatus.ACCEPTED:
        return reverse("unmerge", args=[found.pk]), f"Undo the merge of #{found.pk}"
    action = {ClusterStatus.DISMISSED: "dismiss", ClusterStatus.SPLIT: "split"}.get(
        found.status, "exclude"
    )
    decision = history.last_cluster_decision(found, action)
    if decision is None:
        return None
    return reverse("undo-decision", args=[decision.pk]), f"Undo the {action}"


# --- Many clusters ----------------------------------------------------------------------------


# The most exact-copy clusters one preview shows (oldest first): a person checks what
# they accept, and the next ones come after these are decided.
EXACT_PREVIEW_ROWS = 500


def exact_copies_preview(namespace: str) -> dict:
    """The exact-copy clusters of a namespace (none: every namespace): each mergeable one
    with the text it keeps and its version, those whose copies came from other sources or
    sessions as a group of their own that says what differs, the flagged ones apart."""
    mergeable, across, flagged = [], {}, []
    for cluster in exact_open_clusters(namespace or None, limit=EXACT_PREVIEW_ROWS):
        members = cluster_members(cluster)
        flags = bulk_flags(cluster, members=members)
        proposal = pending_proposal(cluster)
        kept = proposal.merged_text if proposal else offered_text(members, None)
        version = cluster_version(cluster, member_ids=[m.pk for m in members], proposal=proposal)
        row = (cluster, flags, kept, version)
        if flags:
            flagged.append(row)
        elif said := copies_across(members):
            across.setdefault(said, []).append(row)
        else:
            mergeable.append(row)
    return {
        "total": count_exact_open(namespace or None),
        "shown": len(mergeable) + len(flagged) + sum(len(rows) for rows in across.values()),
        "mergeable": mergeable,
        "across": sorted(across.items()),
        "flagged": flagged,
        "namespace": namespace,
        "back": exact_copies_back(namespace),
    }


def exact_copies_back(namespace: str) -> str:
    return queue_url(reverse("clusters"), urlencode({"namespace": namespace}) if namespace else "")


# What the queue's bulk actions do, as their preview says it.
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


def selected_preview(action: str, ids: list[int], matched: int, query: str, why_not_open) -> dict:
    """The preview of a bulk action on ticked clusters: exactly those still open, with the
    version each shows; for an accept, the flagged ones apart (never merged in bulk)."""
    found = with_members_and_proposals(
        Cluster.objects.select_related("namespace")
        .defer("explanation", "evidence")
        .filter(pk__in=ids, status=ClusterStatus.OPEN)
        .order_by("pk")
    )
    items, flagged, versions = [], [], {}
    for cluster in found:
        members = cluster_members(cluster)
        flags = bulk_flags(cluster, members=members)
        row = (cluster, reverse("cluster", args=[cluster.pk]), [m.content for m in members], flags)
        (flagged if flags and action == "accept" else items).append(row)
        versions[cluster.pk] = cluster_version(
            cluster, member_ids=[m.pk for m in members], proposal=pending_proposal(cluster)
        )
    open_ids = {cluster.pk for cluster in found}
    verb, explained = SELECTED_ACTIONS[action]
    return {
        "items": items,
        "flagged": flagged,
        "gone": [f"#{pk}: {why_not_open(pk)}" for pk in ids if pk not in open_ids],
        "versions": {c.pk: versions[c.pk] for c, *_ in items},
        "action": action,
        "verb": verb,
        "noun": "cluster",
        "explained": explained,
        "back": queue_url(reverse("clusters"), query),
        "from": query,
        "matched": matched,
        "capped": matched > MAX_MATCHING,
    }


# --- The batch screen -----------------------------------------------------------------------

BATCH_PAGE_SIZE = 50
BATCH_ACTIONS = {"accept": "Merge", "dismiss": "Dismiss"}


def batch_clusters(filters: BatchFilters):
    """The batch screen's clusters: the filter's, surest first."""
    chosen = filters.arguments()
    return cluster_queue(
        namespace=chosen["namespace"] or None,
        tier=chosen["tier"],
        min_confidence=chosen["min_confidence"],
    )


def batch_page(filters: BatchFilters, page: Page) -> dict:
    """The batch screen: each cluster of the page with its members, the text it offers,
    its warnings, flags and version (all from what the queue read: no query a cluster)."""
    rows = []
    for cluster in page:
        members = [membership.memory for membership in cluster.memberships.all()]
        pending = cluster.pending[0] if cluster.pending else None
        rows.append(
            {
                "cluster": cluster,
                "members": members,
                "text": offered_text(members, pending),
                "warnings": offered_warnings(members, pending),
                "flags": bulk_flags(cluster, members=members),
                "copies": copies_across(members),
                "version": cluster_version(
                    cluster, member_ids=[m.pk for m in members], proposal=pending
                ),
            }
        )
    return {
        # Copies of one text from other sources first, a group of their own.
        "copies": [row for row in rows if row["copies"] and not row["flags"]],
        "rows": [row for row in rows if not (row["copies"] and not row["flags"])],
        "page": page,
        "filters": filters.arguments(),
        "tiers": Tier.values,
        "namespaces": Namespace.objects.values_list("name", flat=True),
    }


def batch_query(filters: BatchFilters) -> str:
    """The screen's filters and page as a query string, to go back to the same list (the
    page it was on: a decision keeps the curator where they were)."""
    shown = {key: value for key, value in filters.back().items() if value not in ("", 0.0)}
    return f"?{urlencode(shown)}" if shown else ""


def batch_preview(action: str, ids: list[int], selection, filters: BatchFilters) -> dict:
    """What the ticked clusters of the batch screen become: each with the text it will be
    merged as; for a merge, the flagged ones apart; those decided meanwhile named."""
    found = {
        c.pk: c
        for c in with_members_and_proposals(
            Cluster.objects.select_related("namespace")
            .defer("explanation", "evidence")
            .filter(pk__in=ids, status=ClusterStatus.OPEN)
        )
    }
    items, flagged = [], []
    for pk in ids:
        if pk not in found:
            continue
        members = cluster_members(found[pk])
        flags = bulk_flags(found[pk], members=members) if action == "accept" else []
        row = {
            "cluster": found[pk],
            "members": members,
            "text": selection.text_of(pk),
            "version": selection.version_of(pk),
            "flags": flags,
        }
        (flagged if flags else items).append(row)
    query = batch_query(filters)
    return {
        "items": items,
        "flagged": flagged,
        "gone": [pk for pk in ids if pk not in found],
        "action": action,
        "verb": BATCH_ACTIONS[action],
        "back": reverse("batch-clusters") + query,
        "query": query,
        # The screen's filters and page, for the decision to go back to the same list.
        "back_to": filters.back(),
    }
