"""Middleware of the whole site: the Content-Security-Policy header, no stored copies of
pages, and the first check of the validation layer on every request."""

from django.conf import settings
from django.http import JsonResponse
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers

from memadmin.store.validation import unreadable


def content_security_policy(get_response):
    """Scripts and styles from our own origin only (htmx is vendored; no page has inline
    script)."""

    def middleware(request):
        response = get_response(request)
        response.setdefault("Content-Security-Policy", settings.CONTENT_SECURITY_POLICY)
        return response

    return middleware


def no_stored_pages(get_response):
    """Every page and answer is `Cache-Control: no-store`: Back after a decision must show
    the cluster as it is now, never a copy from before the decision that still offers to
    decide it. (Static files are served before this runs, by WhiteNoise, and cached.)"""

    def middleware(request):
        response = get_response(request)
        add_never_cache_headers(response)
        return response

    return middleware


def refuse_unreadable_input(get_response):
    """A query string or form value that cannot be stored or searched as text (a NUL, a
    lone surrogate) is refused here with a 400 naming the parameter, before any view:
    PostgreSQL would otherwise fail on it halfway through a page. The API answers in its
    JSON error shape, pages with the 400 page."""

    def middleware(request):
        # The API reads JSON bodies (checked by api.validation); its form data, if any,
        # is never parsed here, so the body stays readable for it.
        api = request.path.startswith("/api/")
        for source in (request.GET,) if api else (request.GET, request.POST):
            for name, values in source.lists():
                bad = unreadable(name) or next(filter(None, map(unreadable, values)), None)
                if bad:
                    return _refusal(request, f"the parameter {name!r} {bad}")
        return get_response(request)

    return middleware


def _refusal(request, message: str):
    if request.path.startswith("/api/"):
        error = {"status": 400, "message": message}
        return JsonResponse({"error": error}, status=400)
    return render(request, "400.html", {"message": message}, status=400)


def method_not_allowed_page(get_response):
    """A page opened with the wrong method (a bookmarked decision URL, a login form sent
    to a GET-only page) answers with the site's 405 page, not Django's empty one."""

    def middleware(request):
        response = get_response(request)
        if (
            response.status_code == 405
            and not response.content
            and not request.path.startswith("/api/")
        ):
            page = render(request, "405.html", {"allowed": response.get("Allow", "")}, status=405)
            page["Allow"] = response.get("Allow", "")
            return page
        return response

    return middleware
