"""What every review view shares: the role check, query-string parsing, and the one shape
of the answer to a decision."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django_htmx.http import trigger_client_event

from memadmin.review.roles import has_role

# Rows per page of the queues, the history and the memory browser.
QUEUE_PAGE_SIZE = 25
LIST_PAGE_SIZE = 50


def require_role(request: HttpRequest, role: str) -> None:
    if not has_role(request.user, role):
        raise PermissionDenied(f"this needs the {role} role")


def float_or_none(value: str | None) -> float | None:
    try:
        return float(value) if value not in (None, "") else None
    except ValueError:
        return None


@dataclass
class DecisionPage:
    """Where a decision was taken: the page's template, the partial HTMX swaps after it
    (rendered from `context(error)`), and the event that tells the rest of the page."""

    template: str
    partial: str
    context: Callable[[str], dict]
    event: str
    object_id: int


def answer_decision(
    request: HttpRequest,
    *,
    page: DecisionPage,
    error: str = "",
    message: str = "",
    done_url: str,
    refused_url: str,
) -> HttpResponse:
    """The answer to a decision. With HTMX: the page's partial, refreshed, with the error
    (status 409) or with the page's event on success. Without JavaScript: the message (or
    the error) and a redirect, to `done_url` or back to `refused_url`."""
    if request.htmx:
        response = render(
            request,
            f"{page.template}#{page.partial}",
            page.context(error),
            status=409 if error else 200,
        )
        if error:
            return response
        return trigger_client_event(response, page.event, {"id": page.object_id})
    if error:
        messages.error(request, error)
        return redirect(refused_url)
    messages.success(request, message)
    return redirect(done_url)
