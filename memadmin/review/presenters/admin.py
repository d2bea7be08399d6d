"""What the admins' pages show: the people and their roles, the API tokens, and the
sources with what the next push to each will do."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import Count, Q

from memadmin.api.models import ApiToken
from memadmin.review import roles
from memadmin.sources import pushing
from memadmin.sources.models import PushOperation, Source
from memadmin.store.models import Namespace

PREVIEW_ROWS = 10


def people_page(invited=None) -> dict:
    """Everyone with an account, their role and state; `invited`: (the user, the link
    that sets their password) just made."""
    return {
        "people": [
            (person, roles.role_of(person))
            for person in User.objects.prefetch_related("groups").order_by("username")
        ],
        "roles": roles.ROLES,
        "invited": invited,
    }


def admins() -> list[str]:
    """Who can give a role (the 403 page names them)."""
    return list(
        User.objects.filter(is_active=True, groups__name=roles.ADMIN)
        .order_by("username")
        .values_list("username", flat=True)
    )


def tokens_page(created=None) -> dict:
    return {
        "tokens": ApiToken.objects.select_related("namespace", "created_by"),
        "created": created,
        "namespaces": Namespace.objects.all(),
    }


def sources_page() -> dict:
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
        operations = next_push(source)
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
    return {"rows": rows}


def push_preview(source: Source) -> dict:
    """Every operation of the next push."""
    return {"source": source, "operations": [pushing.describe(op) for op in next_push(source)]}


def next_push(source: Source) -> list[PushOperation]:
    return pushing.pending_operations(source) + pushing.plan(source)


def _namespaces(source: Source) -> list[str]:
    return sorted(set(source.points.values_list("memory__namespace__name", flat=True).distinct()))
