"""Sources (admins): the stores agents run that memadmin curates, what was pulled from
each, and the next push, previewed before it is sent. The push button runs the same code
as `push_source` (sources.pushing)."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from memadmin.review import roles
from memadmin.review.presenters import admin as presenter
from memadmin.review.views.helpers import role_required
from memadmin.sources import pushing
from memadmin.sources.models import Source
from memadmin.sources.stores import SourceError


@role_required(roles.ADMIN)
def sources(request: HttpRequest) -> HttpResponse:
    return render(request, "review/sources.html", presenter.sources_page())


@role_required(roles.ADMIN)
def push(request: HttpRequest, source_id: int) -> HttpResponse:
    """GET: every operation of the next push, and the button that sends them; POST: push."""
    source = get_object_or_404(Source, pk=source_id)
    if request.method != "POST":
        return render(request, "review/source_push.html", presenter.push_preview(source))
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
