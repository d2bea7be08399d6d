"""What the memory pages show: the browser (by words, or by meaning within a namespace)
and one memory's page with everything it is part of."""

from __future__ import annotations

from django.core.paginator import Page

from memadmin.curation.reads.memories import memory_search, originals_of, work_of
from memadmin.review.forms import MemorySearch
from memadmin.store import embeddings
from memadmin.store import queries as store_queries
from memadmin.store.models import Memory, MemoryStatus, Namespace

SEMANTIC_RESULTS = 50


def browser_page(search: MemorySearch, paged) -> dict:
    """The browser's context. By meaning: the nearest memories of the namespace to the
    words; else the memories holding them, with filters, a page at a time (`paged(found)`
    gives the page of a query)."""
    filters = search.shown()
    results, page, semantic = None, None, filters["mode"] == "semantic"
    namespace = Namespace.objects.filter(name=filters["namespace"]).first()
    if semantic and namespace and filters["q"]:
        vector = embeddings.encode([filters["q"]])[0]
        results = [
            (n.memory, n.similarity)
            for n in store_queries.nearest_memories(namespace, vector, k=SEMANTIC_RESULTS)
        ]
    else:
        found = memory_search(
            namespace=namespace,
            status=filters["status"],
            category=filters["category"],
            words=filters["q"],
        )
        page: Page = paged(found)
    return {
        "filters": filters,
        "page": page,
        "results": results,
        "needs_namespace": semantic and not namespace,
        "namespaces": Namespace.objects.values_list("name", flat=True),
        "statuses": MemoryStatus.values,
    }


def memory_page(found: Memory) -> dict:
    """One memory: every cluster and conflict it is in (open ones first), the memories
    folded into it, and its whole history, newest first."""
    events = found.history.select_related("cluster", "conflict").order_by("-created_at", "-id")
    clusters, conflicts = work_of(found)
    return {
        "memory": found,
        "events": events,
        "clusters": clusters,
        "conflicts": conflicts,
        "originals": originals_of(found),
    }
