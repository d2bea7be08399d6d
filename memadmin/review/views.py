import itertools
from collections import Counter
from datetime import timedelta

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.postgres.search import SearchQuery
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.dateparse import parse_date
from django.views.decorators.http import require_POST
from django_htmx.http import trigger_client_event

from memadmin.api.models import ApiToken
from memadmin.curation import decisions, llm, proposals
from memadmin.curation import queries as curation_queries
from memadmin.curation.models import (
    Cluster,
    ClusterMember,
    ClusterStatus,
    Conflict,
    ConflictResolution,
    ConflictStatus,
    DedupRun,
    HistoryEvent,
    ProposalStatus,
)
from memadmin.review import charts as charts_module
from memadmin.review.diff import word_diff
from memadmin.review.roles import ADMIN, CURATOR, has_role
from memadmin.store import embeddings, queries
from memadmin.store.importing import NAMESPACE_PATTERN
from memadmin.store.models import Memory, MemoryStatus, Namespace


def _require_role(request: HttpRequest, role: str) -> None:
    if not has_role(request.user, role):
        raise PermissionDenied(f"this needs the {role} role")


@login_required
def tokens(request: HttpRequest) -> HttpResponse:
    """API tokens (admins): the list, and a form to create one."""
    _require_role(request, ADMIN)
    created = None
    if request.method == "POST":
        name = request.POST.get("namespace", "").strip()
        label = request.POST.get("name", "").strip() or "agent"
        if not NAMESPACE_PATTERN.match(name):
            messages.error(request, "A namespace is letters, digits, '-' or '_'.")
        else:
            namespace, _ = Namespace.objects.get_or_create(name=name)
            _, created = ApiToken.issue(
                namespace=namespace, name=label[:100], created_by=request.user
            )
    context = {
        "tokens": ApiToken.objects.select_related("namespace", "created_by"),
        "created": created,
        "namespaces": Namespace.objects.all(),
    }
    return render(request, "review/tokens.html", context)


@require_POST
@login_required
def revoke_token(request: HttpRequest, token_id: int) -> HttpResponse:
    _require_role(request, ADMIN)
    token = get_object_or_404(ApiToken, pk=token_id, revoked_at__isnull=True)
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    messages.success(request, f"Token {token.prefix}... revoked.")
    return redirect("tokens")


# --- Clusters: the curators' queue and page --------------------------------------------

QUEUE_PAGE_SIZE = 25


def _float_or_none(value: str | None) -> float | None:
    try:
        return float(value) if value not in (None, "") else None
    except ValueError:
        return None


@login_required
def clusters(request: HttpRequest) -> HttpResponse:
    """The review queue: filters, closest clusters first, paginated. An HTMX request
    (a filter change) gets the queue section only."""
    filters = {
        "namespace": request.GET.get("namespace", ""),
        "status": request.GET.get("status", ClusterStatus.OPEN),
        "min_similarity": request.GET.get("min_similarity", ""),
        "max_similarity": request.GET.get("max_similarity", ""),
        "size": request.GET.get("size", ""),
        "category": request.GET.get("category", ""),
        "protected": request.GET.get("protected", ""),
        "method": request.GET.get("method", ""),
        "sort": request.GET.get("sort", "closest"),
    }
    if filters["status"] not in ClusterStatus.values:
        filters["status"] = ClusterStatus.OPEN
    queue = curation_queries.cluster_queue(
        namespace=filters["namespace"] or None,
        status=filters["status"],
        min_similarity=_float_or_none(filters["min_similarity"]),
        max_similarity=_float_or_none(filters["max_similarity"]),
        size=int(filters["size"]) if filters["size"].isdigit() else None,
        category=filters["category"],
        protected={"yes": True, "no": False}.get(filters["protected"]),
        method=filters["method"],
        sort=filters["sort"],
    )
    page = Paginator(queue, QUEUE_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "filters": filters,
        "statuses": ClusterStatus.values,
        "sorts": list(curation_queries.QUEUE_SORTS),
        "methods": ["exact", "vector", "lexical", "llm"],
        "namespaces": Namespace.objects.values_list("name", flat=True),
        "query": request.GET.copy(),
    }
    template = "review/clusters.html" + ("#queue" if request.htmx else "")
    return render(request, template, context)


def _cluster_context(cluster: Cluster, error: str = "") -> dict:
    members = [
        m.memory
        for m in cluster.memberships.filter(excluded=False)
        .select_related("memory")
        .defer("memory__embedding")
        .order_by("memory__created_at", "memory_id")
    ]
    proposal = cluster.proposals.filter(status=ProposalStatus.PENDING).first()
    text = proposal.merged_text if proposal else proposals.representative(members).content
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
    return {
        "cluster": cluster,
        "members": [(m, word_diff(m.content, text)) for m in members],
        "grid": zip(members, grid, strict=True),
        "proposal": proposal,
        "text": text,
        "error": error,
    }


@login_required
def cluster(request: HttpRequest, cluster_id: int) -> HttpResponse:
    found = get_object_or_404(
        Cluster.objects.select_related("namespace", "decided_by"), pk=cluster_id
    )
    return render(request, "review/cluster.html", _cluster_context(found))


def _decided(request: HttpRequest, found: Cluster, message: str) -> HttpResponse:
    """After a decision: HTMX gets the decision section and an event for counters;
    without JavaScript, a redirect to the queue with the message."""
    if request.htmx:
        found.refresh_from_db()
        response = render(request, "review/cluster.html#decision", _cluster_context(found))
        return trigger_client_event(response, "clusterDecided", {"id": found.pk})
    messages.success(request, message)
    return redirect("clusters")


def _refused(request: HttpRequest, found: Cluster, error: str) -> HttpResponse:
    if request.htmx:
        found.refresh_from_db()
        return render(
            request, "review/cluster.html#decision", _cluster_context(found, error), status=409
        )
    messages.error(request, error)
    return redirect("cluster", cluster_id=found.pk)


@require_POST
@login_required
def accept_cluster(request: HttpRequest, cluster_id: int) -> HttpResponse:
    """Accept the proposal, or the curator's edited text: one merged memory."""
    _require_role(request, CURATOR)
    found = get_object_or_404(Cluster, pk=cluster_id)
    text = request.POST.get("text")
    try:
        proposal = _pending_or_rule_proposal(found)
        merged = decisions.accept_proposal(proposal=proposal, user=request.user, text=text)
    except decisions.DecisionError as problem:
        return _refused(request, found, str(problem))
    return _decided(request, found, f"Merged into {merged.external_id}.")


@require_POST
@login_required
def dismiss_cluster(request: HttpRequest, cluster_id: int) -> HttpResponse:
    """Not duplicates: closed and remembered, never proposed again."""
    _require_role(request, CURATOR)
    found = get_object_or_404(Cluster, pk=cluster_id)
    try:
        decisions.dismiss_cluster(cluster=found, user=request.user)
    except decisions.DecisionError as problem:
        return _refused(request, found, str(problem))
    return _decided(
        request, found, "Dismissed: these memories will not be proposed together again."
    )


# --- Conflicts: the admins' queue and page ---------------------------------------------


@login_required
def conflicts(request: HttpRequest) -> HttpResponse:
    status = request.GET.get("status", ConflictStatus.OPEN)
    if status not in ConflictStatus.values:
        status = ConflictStatus.OPEN
    namespace = request.GET.get("namespace", "")
    found = (
        Conflict.objects.filter(status=status)
        .select_related("namespace", "memory_a", "memory_b")
        .defer("memory_a__embedding", "memory_b__embedding")
        .order_by("-created_at", "-id")
    )
    if namespace:
        found = found.filter(namespace__name=namespace)
    page = Paginator(found, QUEUE_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "status": status,
        "namespace": namespace,
        "statuses": ConflictStatus.values,
        "namespaces": Namespace.objects.values_list("name", flat=True),
    }
    return render(request, "review/conflicts.html" + ("#queue" if request.htmx else ""), context)


def _conflict_context(conflict: Conflict, error: str = "") -> dict:
    a, b = conflict.memory_a, conflict.memory_b
    return {
        "conflict": conflict,
        "a_spans": word_diff(a.content, b.content),
        "b_spans": word_diff(b.content, a.content),
        "resolutions": ConflictResolution.choices,
        "error": error,
    }


@login_required
def conflict(request: HttpRequest, conflict_id: int) -> HttpResponse:
    found = get_object_or_404(
        Conflict.objects.select_related("namespace", "memory_a", "memory_b", "resolver"),
        pk=conflict_id,
    )
    return render(request, "review/conflict.html", _conflict_context(found))


@require_POST
@login_required
def resolve_conflict(request: HttpRequest, conflict_id: int) -> HttpResponse:
    _require_role(request, ADMIN)
    found = get_object_or_404(Conflict, pk=conflict_id)
    try:
        decisions.resolve_conflict(
            conflict=found,
            resolution=request.POST.get("resolution", ""),
            user=request.user,
            scope_note=request.POST.get("scope_note", "").strip(),
            text=request.POST.get("text", ""),
        )
    except decisions.DecisionError as problem:
        if request.htmx:
            found.refresh_from_db()
            context = _conflict_context(found, str(problem))
            return render(request, "review/conflict.html#resolution", context, status=409)
        messages.error(request, str(problem))
        return redirect("conflict", conflict_id=found.pk)
    if request.htmx:
        found.refresh_from_db()
        response = render(request, "review/conflict.html#resolution", _conflict_context(found))
        return trigger_client_event(response, "conflictResolved", {"id": found.pk})
    messages.success(request, f"Conflict {found.pk} settled.")
    return redirect("conflicts")


# --- History: the audit log, and undoing one merge -------------------------------------

HISTORY_PAGE_SIZE = 50


@login_required
def history(request: HttpRequest) -> HttpResponse:
    filters = {
        key: request.GET.get(key, "") for key in ("namespace", "action", "actor", "since", "until")
    }
    events = HistoryEvent.objects.select_related("namespace", "memory", "cluster").defer(
        "memory__embedding"
    )
    if filters["namespace"]:
        events = events.filter(namespace__name=filters["namespace"])
    if filters["action"]:
        events = events.filter(action=filters["action"])
    if filters["actor"]:
        events = events.filter(actor__icontains=filters["actor"])
    for key, lookup in (("since", "created_at__date__gte"), ("until", "created_at__date__lte")):
        day = parse_date(filters[key]) if filters[key] else None
        if day:
            events = events.filter(**{lookup: day})
    page = Paginator(events.order_by("-created_at", "-id"), HISTORY_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    context = {
        "page": page,
        "filters": filters,
        "actions": HistoryEvent.Action.values,
        "namespaces": Namespace.objects.values_list("name", flat=True),
        "undoable": {ClusterStatus.AUTO_MERGED, ClusterStatus.ACCEPTED},
    }
    return render(request, "review/history.html" + ("#events" if request.htmx else ""), context)


@require_POST
@login_required
def unmerge(request: HttpRequest, cluster_id: int) -> HttpResponse:
    """Undo one merge: its originals come back exactly; the page explains a refusal."""
    _require_role(request, CURATOR)
    found = get_object_or_404(Cluster, pk=cluster_id)
    try:
        decisions.unmerge(
            cluster=found, actor=f"user:{request.user.get_username()}", user=request.user
        )
    except decisions.DecisionError as problem:
        messages.error(request, f"Cannot undo merge #{found.pk}: {problem}")
    else:
        messages.success(request, f"Merge #{found.pk} undone: its memories are back.")
    return redirect(request.POST.get("next") or "history")


# --- Dashboard ---------------------------------------------------------------------------


@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    """Per namespace: memories, open clusters and conflicts, automatic merges this week,
    the last runs with their removal rate and alerts; three small charts."""
    week_ago = timezone.now() - timedelta(days=7)
    namespaces = queries.namespace_summaries().annotate(
        auto_merges_week=queries.count_per_namespace(
            Cluster, status=ClusterStatus.AUTO_MERGED, decided_at__gte=week_ago
        )
    )
    runs = DedupRun.objects.select_related("namespace").order_by("-started_at")[:10]
    similarities = Cluster.objects.filter(status=ClusterStatus.OPEN).values_list(
        "min_similarity", flat=True
    )
    edges = [0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01]
    histogram = [
        (f"{low:.1f}", sum(low <= s < high for s in similarities))
        for low, high in itertools.pairwise(edges)
    ]
    sizes = Counter(
        ClusterMember.objects.filter(cluster__status=ClusterStatus.OPEN, excluded=False)
        .values("cluster")
        .annotate(size=Count("id"))
        .values_list("size", flat=True)
    )
    days = [(timezone.now() - timedelta(days=back)).date() for back in range(13, -1, -1)]
    decided = Counter(
        Cluster.objects.filter(decided_at__date__gte=days[0], decided_by__isnull=False).values_list(
            "decided_at__date", flat=True
        )
    )
    charts = [
        charts_module.bar_chart("Open clusters by weakest link", histogram),
        charts_module.bar_chart(
            "Open clusters by size", [(str(n), sizes.get(n, 0)) for n in range(2, 7)]
        ),
        charts_module.bar_chart(
            "Decisions per day (14 days)", [(d.strftime("%d"), decided.get(d, 0)) for d in days]
        ),
    ]
    context = {"namespaces": namespaces, "runs": runs, "charts": charts}
    return render(request, "review/home.html", context)


# --- Memory browser ----------------------------------------------------------------------


@login_required
def memories(request: HttpRequest) -> HttpResponse:
    """Full-text or semantic search within a namespace, with filters."""
    filters = {
        key: request.GET.get(key, "") for key in ("namespace", "q", "mode", "status", "category")
    }
    results, semantic = None, filters["mode"] == "semantic"
    namespace = Namespace.objects.filter(name=filters["namespace"]).first()
    if semantic and namespace and filters["q"]:
        vector = embeddings.encode([filters["q"]])[0]
        results = [
            (n.memory, n.similarity) for n in queries.nearest_memories(namespace, vector, k=50)
        ]
        page = None
    else:
        found = (
            Memory.objects.select_related("namespace")
            .defer("embedding")
            .order_by("-created_at", "-id")
        )
        if namespace:
            found = found.filter(namespace=namespace)
        if filters["status"]:
            found = found.filter(status=filters["status"])
        if filters["category"]:
            found = found.filter(category=filters["category"])
        if filters["q"]:
            # 'simple' configuration: memories come in many languages.
            found = found.filter(
                Q(content__icontains=filters["q"])
                | Q(content__search=SearchQuery(filters["q"], config="simple"))
            )
        page = Paginator(found, HISTORY_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "filters": filters,
        "page": page,
        "results": results,
        "needs_namespace": semantic and not namespace,
        "namespaces": Namespace.objects.values_list("name", flat=True),
        "statuses": MemoryStatus.values,
    }
    return render(request, "review/memories.html" + ("#results" if request.htmx else ""), context)


@login_required
def memory(request: HttpRequest, memory_id: int) -> HttpResponse:
    """One memory, its clusters and conflicts, and its whole history, newest first."""
    found = get_object_or_404(
        Memory.objects.select_related("namespace", "superseded_by").defer("embedding"),
        pk=memory_id,
    )
    events = found.history.select_related("cluster", "conflict").order_by("-created_at", "-id")
    return render(request, "review/memory.html", {"memory": found, "events": events})


def _cluster_action(request: HttpRequest, cluster_id: int, act, done: str) -> HttpResponse:
    _require_role(request, CURATOR)
    found = get_object_or_404(Cluster, pk=cluster_id)
    try:
        act(found)
    except decisions.DecisionError as problem:
        messages.error(request, str(problem))
        return redirect("cluster", cluster_id=found.pk)
    messages.success(request, done)
    found.refresh_from_db()
    return (
        redirect("cluster", cluster_id=found.pk) if found.status == "open" else redirect("clusters")
    )


@require_POST
@login_required
def keep_member(request: HttpRequest, cluster_id: int, memory_id: int) -> HttpResponse:
    return _cluster_action(
        request,
        cluster_id,
        lambda c: decisions.keep_survivor(cluster=c, survivor_id=memory_id, user=request.user),
        "Kept one member; the others fold into it.",
    )


@require_POST
@login_required
def exclude_member(request: HttpRequest, cluster_id: int, memory_id: int) -> HttpResponse:
    return _cluster_action(
        request,
        cluster_id,
        lambda c: decisions.exclude_member(cluster=c, memory_id=memory_id, user=request.user),
        "Member taken out of the cluster.",
    )


@require_POST
@login_required
def split_cluster(request: HttpRequest, cluster_id: int) -> HttpResponse:
    return _cluster_action(
        request,
        cluster_id,
        lambda c: decisions.split_cluster(cluster=c, user=request.user),
        "Split at the weakest link.",
    )


@require_POST
@login_required
def pin_memory(request: HttpRequest, memory_id: int) -> HttpResponse:
    _require_role(request, ADMIN)
    found = get_object_or_404(Memory.objects.defer("embedding"), pk=memory_id)
    decisions.pin_memory(memory=found, pinned=not found.pinned, user=request.user)
    messages.success(request, f"{found.external_id} {'unpinned' if found.pinned else 'pinned'}.")
    back = request.POST.get("next", "")
    if back.startswith("/") and not back.startswith("//"):  # only our own pages
        return redirect(back)
    return redirect("memory", memory_id=found.pk)


@require_POST
@login_required
def bulk_accept_exact(request: HttpRequest) -> HttpResponse:
    """Accept every open exact-duplicate cluster (of the namespace filtered) at once."""
    _require_role(request, CURATOR)
    accepted, refused = 0, []
    for found in curation_queries.exact_open_clusters(request.POST.get("namespace") or None):
        try:
            proposal = _pending_or_rule_proposal(found)
            decisions.accept_proposal(proposal=proposal, user=request.user)
            accepted += 1
        except decisions.DecisionError as problem:
            refused.append(f"#{found.pk}: {problem}")
    messages.success(request, f"Accepted {accepted} exact-duplicate cluster(s).")
    for line in refused:
        messages.error(request, line)
    return redirect("clusters")


def _pending_or_rule_proposal(found: Cluster):
    proposal = found.proposals.filter(status=ProposalStatus.PENDING).first()
    if proposal is not None:
        return proposal
    members = [m.memory for m in found.memberships.filter(excluded=False).select_related("memory")]
    draft = proposals.check(proposals.rule_draft(members, "written at review"), members)
    return decisions.record_proposal(cluster=found, members=members, draft=draft)


@require_POST
@login_required
def refresh_proposal(request: HttpRequest, cluster_id: int) -> HttpResponse:
    """A new proposal from the cluster's current members (after a stale refusal)."""
    _require_role(request, CURATOR)
    found = get_object_or_404(Cluster, pk=cluster_id)
    members = [
        m.memory
        for m in found.memberships.filter(excluded=False, memory__status="active").select_related(
            "memory"
        )
    ]
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
