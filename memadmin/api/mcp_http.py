"""The MCP server over Streamable HTTP, in front of the Django app (memadmin.asgi).

`/mcp/<namespace>/` is the endpoint of one namespace: the JSON API's bearer token of that
namespace is required (401 without a valid one, 403 with another namespace's), and the
tools act for it. Stateless JSON answers: no session to keep between requests, so any
worker of any process can answer any call. Everything else goes to Django.
"""

from __future__ import annotations

import json
import re
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from django.http.request import split_domain_port, validate_host
from mcp.server.mcpserver import Context
from mcp.server.transport_security import TransportSecuritySettings

from memadmin.api import auth
from memadmin.api.mcp_tools import Grant, build_server

# The path of a namespace's endpoint, and the one path the MCP app itself serves.
ENDPOINT = re.compile(r"^/mcp/(?P<namespace>[^/]+)/?$")
INNER_PATH = "/mcp"
GRANT = "memadmin_grant"  # where the checked token's grant waits in the ASGI scope


def grant_of_request(ctx: Context) -> Grant:
    """The grant the router checked for this HTTP request."""
    return ctx.request_context.request.state.memadmin_grant


def mcp_app():
    """The SDK's Starlette app for the tools. Host checks are done by the router with
    Django's ALLOWED_HOSTS (one rule for the whole site), so the SDK's are off."""
    return build_server(grant_of_request).streamable_http_app(
        streamable_http_path=INNER_PATH,
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )


class McpRouter:
    """ASGI: /mcp/... to the MCP app (after the token check), the rest to Django; the
    lifespan (which runs the MCP app's session manager) to the MCP app."""

    def __init__(self, django_app, tools_app):
        self.django_app, self.tools_app = django_app, tools_app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            return await self.tools_app(scope, receive, send)
        path = scope.get("path", "")
        if scope["type"] != "http" or not (path == "/mcp" or path.startswith("/mcp/")):
            return await self.django_app(scope, receive, send)
        headers = {key.decode("latin-1").lower(): value for key, value in scope["headers"]}
        host, _ = split_domain_port(headers.get("host", b"").decode("latin-1"))
        if not validate_host(host, settings.ALLOWED_HOSTS):
            return await _answer(send, 400, "this host is not served here")
        match = ENDPOINT.match(path)
        if match is None:
            return await _answer(send, 404, "the MCP endpoint is /mcp/<namespace>/")
        header = headers.get("authorization", b"").decode("latin-1")
        try:
            grant = await _check_token(header, match["namespace"])
        except auth.Unauthorized as problem:
            return await _answer(send, 401, str(problem), {"www-authenticate": "Bearer"})
        except auth.Forbidden as problem:
            return await _answer(send, 403, str(problem))
        inner = dict(scope, path=INNER_PATH, raw_path=INNER_PATH.encode())
        inner["state"] = {**scope.get("state", {}), GRANT: grant}
        return await self.tools_app(inner, receive, send)


@sync_to_async
def _check_token(header: str, namespace: str) -> Grant:
    close_old_connections()
    try:
        token = auth.token_from_header(header, namespace)
        return Grant(namespace_id=token.namespace_id, actor=f"mcp:{token.name}")
    finally:
        close_old_connections()


async def _answer(send, status: int, message: str, extra: dict[str, str] | None = None) -> Any:
    """A refusal in the JSON API's error shape."""
    body = json.dumps({"error": {"status": status, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(key.encode(), value.encode()) for key, value in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
