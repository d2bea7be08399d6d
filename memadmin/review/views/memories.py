"""The memory browser (words or meaning), one memory's page, and pinning."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memadmin.curation import decisions
from memadmin.review.forms import MemorySearch
from memadmin.review.presenters import memories as presenter
from memadmin.review.roles import ADMIN, VIEWER
from memadmin.review.views.helpers import (
    LIST_PAGE_SIZE,
    UnsafeNext,
    page_of,
    role_required,
    safe_next,
)
from memadmin.store.models import Memory


@role_required(VIEWER)
def browser(request: HttpRequest) -> HttpResponse:
    """Full-text or semantic search within a namespace, with filters."""
    context = presenter.browser_page(
        MemorySearch(request.GET), lambda found: page_of(request, found, LIST_PAGE_SIZE)
    )
    return render(request, "review/memories.html" + ("#results" if request.htmx else ""), context)


@role_required(VIEWER)
def memory(request: HttpRequest, memory_id: int) -> HttpResponse:
    """One memory: every cluster and conflict it is in (open ones first), the memories
    folded into it, and its whole history, newest first."""
    found = get_object_or_404(
        Memory.objects.select_related("namespace", "superseded_by").defer(
            "embedding", "embedding_multi"
        ),
        pk=memory_id,
    )
    return render(request, "review/memory.html", presenter.memory_page(found))


@require_POST
@role_required(ADMIN)
def pin(request: HttpRequest, memory_id: int) -> HttpResponse:
    found = get_object_or_404(Memory.objects.defer("embedding", "embedding_multi"), pk=memory_id)
    try:
        back = safe_next(request, reverse("memory", args=[found.pk]))
    except UnsafeNext as problem:
        return render(request, "400.html", {"message": str(problem)}, status=400)
    decisions.pin_memory(memory=found, pinned=not found.pinned, user=request.user)
    messages.success(request, f"{found.external_id} {'unpinned' if found.pinned else 'pinned'}.")
    return redirect(back)
