"""The dashboard: per namespace counts, four charts, each namespace over the last two
weeks, the last runs."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from memadmin.review.presenters import dashboard as presenter
from memadmin.review.roles import VIEWER
from memadmin.review.views.helpers import role_required


@role_required(VIEWER)
def dashboard(request: HttpRequest) -> HttpResponse:
    """Per namespace: memories, open clusters and conflicts, automatic merges this week,
    the last runs with their removal rate and alerts; four small charts."""
    return render(request, "review/home.html", presenter.dashboard_page())
