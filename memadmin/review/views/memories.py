"""The memory browser (words or meaning), one memory's page, and pinning."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memadmin.curation import decisions
from memadmin.curation.reads.memories import memory_search, originals_of, work_of
from memadmin.review.roles import ADMIN, VIEWER
from memadmin.review.views.answers import (
    LIST_PAGE_SIZE,
    UnsafeNext,
    page_of,
    role_required,
    safe_next,
)
from memadmin.store import embeddings
from memadmin.store import queries as store_queries
from memadmin.store.models import Memory, MemoryStatus, Namespace


@role_required(VIEWER)
def browser(request: HttpRequest) -> HttpResponse:
    """Full-text or semantic search within a namespace, with filters."""
    filters = {
        key: request.GET.get(key, "") for key in ("namespace", "q", "mode", "status", "category")
    }
    results, page, semantic = None, None, filters["mode"] == "semantic"
    namespace = Namespace.objects.filter(name=filters["namespace"]).first()
    if semantic and namespace and filters["q"]:
        vector = embeddings.encode([filters["q"]])[0]
        results = [
            (n.memory, n.similarity)
            for n in store_queries.nearest_memories(namespace, vector, k=50)
        ]
    else:
        found = memory_search(
            namespace=namespace,
            status=filters["status"],
            category=filters["category"],
            words=filters["q"],
        )
        page = page_of(request, found, LIST_PAGE_SIZE)
    context = {
        "filters": filters,
        "page": page,
        "results": results,
        "needs_namespace": semantic and not namespace,
        "namespaces": Namespace.objects.values_list("name", flat=True),
        "statuses": MemoryStatus.values,
    }
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
    events = found.history.select_related("cluster", "conflict").order_by("-created_at", "-id")
    clusters, conflicts = work_of(found)
    context = {
        "memory": found,
        "events": events,
        "clusters": clusters,
        "conflicts": conflicts,
        "originals": originals_of(found),
    }
    return render(request, "review/memory.html", context)


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
