"""Token authentication for the agent API and the MCP server's HTTP endpoint:
`Authorization: Bearer <token>`, one token per namespace."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils import timezone

from memadmin.api.models import ApiToken, hash_token


class Unauthorized(Exception):
    pass


class Forbidden(Exception):
    pass


def token_for(request: HttpRequest, namespace_name: str) -> ApiToken:
    """The request's token, checked against the namespace in the URL. A session cookie
    is not enough: the API takes tokens only, so no browser session can call it (and so
    cross-site requests have nothing to ride on)."""
    return token_from_header(request.headers.get("Authorization", ""), namespace_name)


def token_from_header(header: str, namespace_name: str) -> ApiToken:
    """The token of an `Authorization: Bearer <token>` header, for `namespace_name`
    (the JSON API and the MCP server's HTTP endpoint): Unauthorized without a valid
    token, Forbidden with another namespace's."""
    scheme, _, plain = header.partition(" ")
    if scheme.lower() != "bearer" or not plain.strip():
        raise Unauthorized("missing bearer token (Authorization: Bearer <token>)")
    token = (
        ApiToken.objects.select_related("namespace")
        .filter(token_hash=hash_token(plain.strip()), revoked_at__isnull=True)
        .first()
    )
    if token is None:
        raise Unauthorized("unknown or revoked token")
    if token.namespace.name != namespace_name:
        raise Forbidden(f"this token is for namespace {token.namespace.name!r}")
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token
