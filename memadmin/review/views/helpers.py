"""What every review view shares: the role check, the page of a list, where an action may
go after, the undo toast, the drafts a refusal sets aside, and the one shape of the answer
to a decision."""

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
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django_htmx.http import HttpResponseClientRedirect, trigger_client_event

from memadmin.review.context import UNDO_OFFER
from memadmin.review.forms import Next, PageNumber
from memadmin.review.roles import VIEWER, has_role
from memadmin.store import validation

# Rows per page of the queues, the history and the memory browser.
QUEUE_PAGE_SIZE = 25
LIST_PAGE_SIZE = 50


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
    for candidate in (Next(request.POST).target, request.headers.get("Referer", "")):
        parts = urlsplit(candidate)
        if candidate and url_has_allowed_host_and_scheme(
            candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            return (parts.path or "/") + ("?" + parts.query if parts.query else "")
    return "/"


def page_of(request: HttpRequest, items, size: int) -> Page:
    """The requested page of `items`: a page number that is not one (or is huge) is
    page 1, one past the end the last page."""
    return Paginator(items, size).get_page(PageNumber(request.GET).number)


def query_without_page(request: HttpRequest):
    """The query string minus `page`: pagination links add their own, once, and keep
    every filter."""
    query = request.GET.copy()
    query.pop("page", None)
    return query


def safe_next(request: HttpRequest, default: str) -> str:
    """Where to go after an action: the form's `next` when it is a page of this site,
    else `default`. Refused (400) when `next` points anywhere else, before the action
    writes anything."""
    target = Next(request.POST).target
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


def offer_undo_of_many(
    request: HttpRequest, decided: list[int], back: str, *, what: str = ""
) -> None:
    """One undo for a bulk action: the toast takes back every cluster it decided."""
    if decided:
        offer_undo(
            request,
            url=reverse("unmerge-many") + "?clusters=" + ",".join(map(str, decided)),
            label=f"Undo these {len(decided)}{what}",
            back=back,
        )


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
