"""The agent API (JSON): write with dedup, profile with open conflicts, semantic search.
Thin views over curation.write_time, curation.decisions and the named queries."""

from __future__ import annotations

import logging
from functools import wraps

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from memadmin.api import auth, openapi, serialize, validation
from memadmin.curation import decisions, write_time
from memadmin.curation.llm import client as llm
from memadmin.curation.reads import exports
from memadmin.store import embeddings, queries

logger = logging.getLogger("memadmin.api")


def error(status: int, message: str, fields: dict | None = None) -> JsonResponse:
    body = {"error": {"status": status, "message": message}}
    if fields:
        body["error"]["fields"] = fields
    return JsonResponse(body, status=status)


def api_view(*methods: str):
    """Allowed methods (405 in JSON otherwise), then the bearer token for the URL's
    namespace: 401 without a valid token, 403 with another namespace's."""

    def decorate(view):
        @wraps(view)
        def wrapper(request: HttpRequest, namespace: str):
            if request.method not in methods:
                response = error(405, f"use {' or '.join(methods)}")
                response["Allow"] = ", ".join(methods)
                return response
            try:
                token = auth.token_for(request, namespace)
            except auth.Unauthorized as problem:
                return error(401, str(problem))
            except auth.Forbidden as problem:
                return error(403, str(problem))
            return view(request, token)

        # Tokens, not cookies, authenticate here: there is no session for CSRF to protect.
        return csrf_exempt(wrapper)

    return decorate


@api_view("GET", "POST")
def memories(request: HttpRequest, token):
    if request.method == "POST":
        return _write(request, token)
    return _search(request, token)


def _write(request: HttpRequest, token) -> JsonResponse:
    declared = request.META.get("CONTENT_LENGTH") or "0"
    if not declared.isdigit() or len(declared) > 12 or int(declared) > settings.API_MAX_BODY_BYTES:
        return error(413, f"the body is over {settings.API_MAX_BODY_BYTES} bytes")
    try:
        body = validation.decode_body(request.body)
        record = validation.write_record(body, token.namespace.name)
    except validation.Refused as refused:
        return error(refused.status, refused.message, refused.fields)
    try:
        result = write_time.write_memory(
            namespace=token.namespace,
            record=record,
            actor=f"api:{token.name}",
            llm_session=llm.Session(max_calls=1) if llm.configured() else None,
        )
    except decisions.DecisionError as problem:
        return error(409, str(problem))
    response = JsonResponse(serialize.write_result(result), status=serialize.status_of(result))
    response["Server-Timing"] = f"embed;dur={result.embed_ms:.1f}, check;dur={result.check_ms:.1f}"
    return response


def _search(request: HttpRequest, token) -> JsonResponse:
    try:
        text, k = validation.search_query(request.GET.get("q"), request.GET.get("k"))
    except validation.Refused as refused:
        return error(refused.status, refused.message, refused.fields)
    vector = embeddings.encode([text])[0]
    found = queries.nearest_memories(token.namespace, vector, k=k)
    return JsonResponse(
        {
            "results": [
                {"memory": serialize.memory(n.memory), "similarity": round(n.similarity, 4)}
                for n in found
            ]
        }
    )


@api_view("GET")
def profile(request: HttpRequest, token):
    """What an agent should load: its active memories without duplicates awaiting review,
    and, apart, the open conflicts with both sides."""
    memories, conflicts = exports.profile(token.namespace)
    return JsonResponse(
        {
            "namespace": token.namespace.name,
            "memories": [serialize.memory(m) for m in memories],
            "conflicts": [serialize.conflict(c) for c in conflicts],
        }
    )


@require_GET
def openapi_document(request: HttpRequest):
    return JsonResponse(openapi.DOCUMENT)
