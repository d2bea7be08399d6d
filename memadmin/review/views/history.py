"""The audit log, and undoing one merge from it."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.dateparse import parse_date
from django.views.decorators.http import require_POST

from memadmin.curation import decisions, queries
from memadmin.curation.models import Cluster, ClusterStatus, HistoryEvent
from memadmin.review.roles import CURATOR
from memadmin.review.views.answers import LIST_PAGE_SIZE, require_role
from memadmin.store.models import Namespace


@login_required
def history(request: HttpRequest) -> HttpResponse:
    filters = {
        key: request.GET.get(key, "") for key in ("namespace", "action", "actor", "since", "until")
    }
    events = queries.history_events(
        namespace=filters["namespace"],
        action=filters["action"],
        actor=filters["actor"],
        since=parse_date(filters["since"]) if filters["since"] else None,
        until=parse_date(filters["until"]) if filters["until"] else None,
    )
    page = Paginator(events, LIST_PAGE_SIZE).get_page(request.GET.get("page"))
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
    require_role(request, CURATOR)
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
