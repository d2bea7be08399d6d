"""Sources (admins): the stores agents run that memadmin curates, what was pulled from
each, and the next push, previewed before it is sent. The push button runs the same code
as `push_source` (sources.pushing)."""

from django.contrib import messages
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from memadmin.review import roles
from memadmin.review.views.answers import role_required
from memadmin.sources import pushing
from memadmin.sources.models import PushOperation, Source
from memadmin.sources.stores import SourceError

PREVIEW_ROWS = 10


@role_required(roles.ADMIN)
def sources(request: HttpRequest) -> HttpResponse:
    found = Source.objects.annotate(
        pulled=Count("points", distinct=True),
        present=Count("points", filter=Q(points__present=True), distinct=True),
        # Points a push gave a new text beside the store's old vector.
        stale=Count(
            "points", filter=Q(points__present=True, points__vector_stale=True), distinct=True
        ),
        skipped=Count(
            "operations",
            filter=Q(operations__status=PushOperation.Status.SKIPPED),
            distinct=True,
        ),
    )
    rows = []
    for source in found:
        operations = _next_push(source)
        rows.append(
            {
                "source": source,
                "namespaces": _namespaces(source),
                "operations": len(operations),
                "preview": [pushing.describe(op) for op in operations[:PREVIEW_ROWS]],
                "stale_ids": list(
                    source.points.filter(present=True, vector_stale=True)
                    .order_by("pk")
                    .values_list("point_id", flat=True)[:PREVIEW_ROWS]
                )
                if source.stale
                else [],
            }
        )
    return render(request, "review/sources.html", {"rows": rows})


@role_required(roles.ADMIN)
def push(request: HttpRequest, source_id: int) -> HttpResponse:
    """GET: every operation of the next push, and the button that sends them; POST: push."""
    source = get_object_or_404(Source, pk=source_id)
    if request.method != "POST":
        operations = [pushing.describe(op) for op in _next_push(source)]
        return render(
            request, "review/source_push.html", {"source": source, "operations": operations}
        )
    try:
        report = pushing.push(source)
    except SourceError as problem:
        messages.error(
            request,
            f"Push of {source.name} stopped: {problem}. What it journalled resumes on the "
            "next push.",
        )
    else:
        messages.success(request, f"Pushed {source.name}: {report.summary()}.")
        for operation in report.skipped:
            messages.warning(request, f"Left alone: {operation.point.point_id}: {operation.note}.")
    return redirect("sources")


def _next_push(source: Source) -> list[PushOperation]:
    return pushing.pending_operations(source) + pushing.plan(source)


def _namespaces(source: Source) -> list[str]:
    return sorted(set(source.points.values_list("memory__namespace__name", flat=True).distinct()))
