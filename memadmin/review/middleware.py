"""A Content-Security-Policy on every response: scripts and styles from our own origin
only (htmx is vendored; no page has inline script)."""

from django.conf import settings


def content_security_policy(get_response):
    def middleware(request):
        response = get_response(request)
        response.setdefault("Content-Security-Policy", settings.CONTENT_SECURITY_POLICY)
        return response

    return middleware
