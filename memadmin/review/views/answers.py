"""What every review view shares: the role check, query-string parsing, and the one shape
of the answer to a decision."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.core.paginator import Page, Paginator
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django_htmx.http import HttpResponseClientRedirect, trigger_client_event

from memadmin.review.context import UNDO_OFFER
from memadmin.review.roles import VIEWER, has_role
from memadmin.store import validation
from memadmin.store.validation import unreadable

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
        def signed_in(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if request.htmx and not request.user.is_authenticated:
                # An expired session during an HTMX action: the whole page goes to the
                # login (never the login form inside a fragment), and comes back to the
                # page the reviewer was on.
                return HttpResponseClientRedirect(
                    redirect_to_login(_current_page(request), settings.LOGIN_URL).url
                )
            if request.method == "POST" and not request.user.is_authenticated:
                # A plain form sent after the session expired: to the login, then back to
                # the page the form was on (never to the form's POST-only address, which
                # would answer 405); nothing is decided without a new click.
                return redirect_to_login(_page_of_form(request), settings.LOGIN_URL)
            return guarded(request, *args, **kwargs)

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

        return signed_in

    return decorate


def _current_page(request: HttpRequest) -> str:
    """The page an HTMX request came from (its path and query), if it is this site's."""
    current = request.htmx.current_url or ""
    parts = urlsplit(current)
    if parts.netloc and parts.netloc != request.get_host():
        return request.get_full_path()
    return (parts.path + ("?" + parts.query if parts.query else "")) or "/"


def _page_of_form(request: HttpRequest) -> str:
    """The page a plain form was sent from: its `next`, else the Referer, when either is
    a page of this site; else the dashboard."""
    for candidate in (request.POST.get("next", ""), request.headers.get("Referer", "")):
        parts = urlsplit(candidate)
        if candidate and url_has_allowed_host_and_scheme(
            candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            return (parts.path or "/") + ("?" + parts.query if parts.query else "")
    return "/"


def page_of(request: HttpRequest, items, size: int) -> Page:
    """The requested page of `items`: a page number that is not one (or is huge) is
    page 1, one past the end the last page."""
    try:
        number = validation.whole_number(request.GET.get("page", "1"), "page", low=1, high=MAX_PAGE)
    except validation.Invalid:
        number = 1
    return Paginator(items, size).get_page(number)


def query_without_page(request: HttpRequest):
    """The query string minus `page`: pagination links add their own, once, and keep
    every filter."""
    query = request.GET.copy()
    query.pop("page", None)
    return query


# The most rows one "selected" action takes; an id is a positive bigint.
MAX_SELECTED = 500
MAX_ROW_ID = 2**63 - 1


def selected_ids(values: list[str]) -> list[int]:
    """The row ids ticked on a page (`selected` boxes), in order, without repeats: what
    is not a row id (a word, a 5,000-digit number) is ignored, as a stale box would be."""
    ids = []
    for value in values:
        try:
            found = validation.whole_number(value, "selected", low=1, high=MAX_ROW_ID)
        except validation.Invalid:
            continue
        if found not in ids:
            ids.append(found)
    return ids[:MAX_SELECTED]


# "All N matching this filter": the most one bulk action takes (a preview lists each).
MAX_MATCHING = 2000


def chosen_ids(source, matching) -> tuple[list[int], int]:
    """(ids, how many matched) of a bulk action: the rows ticked, or, with `all`, every
    row the queue's filter (`from`) matches, `matching(query)` giving them in order, the
    first MAX_MATCHING of them."""
    if source.get("all"):
        found = matching(source.get("from", ""))
        return found[:MAX_MATCHING], len(found)
    ids = selected_ids(source.getlist("selected"))
    return ids, len(ids)


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


@dataclass
class Place:
    """Where a cluster or conflict stands in the queue it was opened from: "3 of 14",
    its neighbours, and the way back to that queue as filtered."""

    query: str
    number: int | None
    total: int
    previous: str | None
    following: str | None
    queue: str


def place_in(order: list[int], pk: int, *, url, queue: str, query: str) -> Place:
    """`pk`'s place among `order` (the queue's ids, in its order); `url(pk)` a page."""
    at = order.index(pk) if pk in order else None
    return Place(
        query=query,
        number=None if at is None else at + 1,
        total=len(order),
        previous=url(order[at - 1]) if at else None,
        following=url(order[at + 1]) if at is not None and at + 1 < len(order) else None,
        queue=queue,
    )


def queue_url(url: str, query: str) -> str:
    """A queue page (`url`) with the filters it had (`query`, its query string), parsed
    and encoded again so that nothing but parameters comes through."""
    filters = queue_query(query)
    return url + (f"?{filters.urlencode()}" if filters else "")


def queue_query(query: str) -> QueryDict:
    """A queue's filters carried inside one value (a page's `from`), parsed: what the
    middleware refuses in a query string (a NUL, a lone surrogate) is no filter here."""
    parsed = QueryDict(mutable=True)
    for name, values in QueryDict(query).lists():
        if not unreadable(name):
            parsed.setlist(name, [value for value in values if not unreadable(value)])
    return parsed


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


def offer_undo(request: HttpRequest, *, url: str, label: str, back: str) -> None:
    """After a decision: the next page shows a toast with one button that undoes it
    (POST to `url`, then to `back`). Shown once (review.context.undo_offer)."""
    request.session[UNDO_OFFER] = {"url": url, "label": label, "next": back}


# The session key of the drafts a refused decision set aside (no JavaScript).
DRAFTS = "drafts"
BOXES = "boxes"  # texts refused for themselves, back in their box
MAX_DRAFTS = 20


def keep_draft(request: HttpRequest, key: str, text: str) -> None:
    """Set a refused decision's text aside for the page it goes back to (`key`: the
    cluster or conflict), where it is shown as the reviewer's draft, never in the box."""
    if not text.strip():
        return
    drafts = request.session.get(DRAFTS, {})
    drafts[key] = text
    request.session[DRAFTS] = dict(list(drafts.items())[-MAX_DRAFTS:])


def take_draft(request: HttpRequest, key: str) -> str:
    """The draft set aside for `key`, shown once: opening the page again drops it."""
    drafts = request.session.get(DRAFTS)
    if not drafts or key not in drafts:
        return ""
    text = drafts.pop(key)
    request.session[DRAFTS] = drafts
    return text


def keep_in_box(request: HttpRequest, key: str, text: str, error: str) -> None:
    """A text refused for itself (blank, too long), with what is wrong: the page it goes
    back to puts it back in its box, the error beside it (no JavaScript: a redirect)."""
    boxes = request.session.get(BOXES, {})
    boxes[key] = [text, error]
    request.session[BOXES] = dict(list(boxes.items())[-MAX_DRAFTS:])


def take_from_box(request: HttpRequest, key: str) -> tuple[str, str]:
    """The text and error keep_in_box set for `key`, once; ("", "") when none."""
    boxes = request.session.get(BOXES)
    if not boxes or key not in boxes:
        return "", ""
    text, error = boxes.pop(key)
    request.session[BOXES] = boxes
    return text, error


@dataclass
class DecisionPage:
    """Where a decision was taken: the page's template, and the partial HTMX swaps in
    when it is refused (rendered from `context(error)`)."""

    template: str
    partial: str
    context: Callable[[str], dict]


def answer_decision(
    request: HttpRequest,
    *,
    page: DecisionPage,
    error: str = "",
    message: str = "",
    done_url: str,
    refused_url: str,
) -> HttpResponse:
    """The answer to a decision. A refusal: with HTMX the page's partial, refreshed, with
    the error (status 409, which the page swaps in: base.html's htmx config); without
    JavaScript the error as a message and a redirect back to `refused_url`. A decision
    taken: the message, and the whole page goes to `done_url` (with HTMX by HX-Redirect),
    so nothing on screen shows the state from before it."""
    if error:
        if request.htmx:
            return render(
                request, f"{page.template}#{page.partial}", page.context(error), status=409
            )
        messages.error(request, error)
        return redirect(refused_url)
    messages.success(request, message)
    if request.htmx:
        # decisionTaken: the page's draft of the text is spent (js/answers.js).
        return trigger_client_event(HttpResponseClientRedirect(done_url), "decisionTaken")
    return redirect(done_url)
