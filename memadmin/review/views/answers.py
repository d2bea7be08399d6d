"""What every review view shares: the role check, query-string parsing, and the one shape
of the answer to a decision."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Page, Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django_htmx.http import trigger_client_event

from memadmin.review.roles import VIEWER, has_role
from memadmin.store import validation

# Rows per page of the queues, the history and the memory browser.
QUEUE_PAGE_SIZE = 25
LIST_PAGE_SIZE = 50


# The most pages a list goes to (a page number beyond is the last page).
MAX_PAGE = 1_000_000


def role_required(role: str):
    """The view needs `role` (or a stronger one). An anonymous visitor is sent to log in;
    a logged-in user without it gets the 403 page, which for a user with no role at all
    says so: an account nobody gave a role sees nothing but that page."""

    def decorate(view):
        @wraps(view)
        @login_required
        def guarded(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if not has_role(request.user, role):
                if not has_role(request.user, VIEWER):
                    raise PermissionDenied(
                        "Your account has no role yet: an admin must make you a viewer, "
                        "curator or admin before you can see anything here."
                    )
                raise PermissionDenied(f"This needs the {role} role.")
            return view(request, *args, **kwargs)

        return guarded

    return decorate


def page_of(request: HttpRequest, items, size: int) -> Page:
    """The requested page of `items`: a page number that is not one (or is huge) is
    page 1, one past the end the last page."""
    try:
        number = validation.whole_number(request.GET.get("page", "1"), "page", low=1, high=MAX_PAGE)
    except validation.Invalid:
        number = 1
    return Paginator(items, size).get_page(number)


def filter_value(request: HttpRequest, name: str, parse, **limits) -> object | None:
    """A query-string filter parsed by `parse(text, name, **limits)` (a validation
    function), or None when absent or invalid: a bad filter is ignored, never an error."""
    raw = request.GET.get(name, "")
    if raw == "":
        return None
    try:
        return parse(raw, name, **limits)
    except validation.Invalid:
        return None


def safe_next(request: HttpRequest, default: str) -> str:
    """Where to go after an action: the form's `next` when it is a page of this site,
    else `default`. Refused (400) when `next` points anywhere else, before the action
    writes anything."""
    target = request.POST.get("next", "")
    if not target:
        return default
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        raise UnsafeNext(f"next must be a page of this site, not {validation.shown(target)}")
    return target


class UnsafeNext(Exception):
    """A `next` that leaves the site."""


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
