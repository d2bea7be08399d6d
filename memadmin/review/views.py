from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from memadmin.store import queries


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "review/home.html", {"namespaces": queries.namespace_summaries()})
