from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST
from django_htmx.http import trigger_client_event

from memadmin.api.models import ApiToken
from memadmin.curation import decisions, proposals
from memadmin.curation import queries as curation_queries
from memadmin.curation.models import Cluster, ClusterStatus, ProposalStatus
from memadmin.review.diff import word_diff
from memadmin.review.roles import ADMIN, CURATOR, has_role
from memadmin.store import queries
from memadmin.store.importing import NAMESPACE_PATTERN
from memadmin.store.models import Namespace


def _require_role(request: HttpRequest, role: str) -> None:
    if not has_role(request.user, role):
        raise PermissionDenied(f"this needs the {role} role")


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "review/home.html", {"namespaces": queries.namespace_summaries()})


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
    }
    if filters["status"] not in ClusterStatus.values:
        filters["status"] = ClusterStatus.OPEN
    queue = curation_queries.cluster_queue(
        namespace=filters["namespace"] or None,
        status=filters["status"],
        min_similarity=_float_or_none(filters["min_similarity"]),
        max_similarity=_float_or_none(filters["max_similarity"]),
    )
    page = Paginator(queue, QUEUE_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "filters": filters,
        "statuses": ClusterStatus.values,
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
        proposal = found.proposals.filter(status=ProposalStatus.PENDING).first()
        if proposal is None:
            members = [
                m.memory for m in found.memberships.filter(excluded=False).select_related("memory")
            ]
            draft = proposals.check(proposals.rule_draft(members, "written at review"), members)
            proposal = decisions.record_proposal(cluster=found, members=members, draft=draft)
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
