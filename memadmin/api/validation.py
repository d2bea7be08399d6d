"""What an agent sends, checked before anything is done with it (through store.validation,
the one validation layer): the body of a write, field by field so that every bad field is
named at once, and the parameters of a search. The JSON API and the MCP server share it.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings

from memadmin.store import validation
from memadmin.store.importing import DESCRIPTIVE_FIELDS, Record, parse_record
from memadmin.store.validation import Invalid

WRITE_FIELDS = ("content", "id", "created_at", *DESCRIPTIVE_FIELDS, "metadata")
# Ids memadmin makes itself (a merged memory, a conflict's rewrite, an agent's memory
# sent without an id) start with these; an agent may not send one, so that a generated
# id never meets one chosen by an agent.
GENERATED_ID_PREFIXES = ("merged-", "rewritten-", "api-")
MAX_RESULTS = 100


class Refused(Exception):
    """A request refused before anything was done: the HTTP status, a message, and the
    fields at fault (`{field: message}`)."""

    def __init__(self, status: int, message: str, fields: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.message, self.fields = status, message, fields or {}


def decode_body(raw: bytes) -> Any:
    """The JSON value of a request body (413 when over API_MAX_BODY_BYTES, 400 when it is
    not strict UTF-8 JSON)."""
    if len(raw) > settings.API_MAX_BODY_BYTES:
        raise Refused(413, f"the body is over {settings.API_MAX_BODY_BYTES} bytes")
    try:
        return validation.decode_json(raw)
    except Invalid as problem:
        raise Refused(400, f"the body is not usable: {problem.message}") from None


def write_record(body: Any, namespace: str) -> Record:
    """The record an agent's write describes. Refused (400) naming every bad field, or
    413 when the content is over MAX_CONTENT_BYTES."""
    if not isinstance(body, dict):
        raise Refused(400, "invalid fields", {"body": "must be a JSON object"})
    errors: dict[str, str] = {}
    for key in sorted(set(body) - set(WRITE_FIELDS)):
        errors[key] = "unknown field"
    content = body.get("content")
    if isinstance(content, str) and len(content.encode("utf-8", "replace")) > (
        settings.MAX_CONTENT_BYTES
    ):
        raise Refused(413, f"content is longer than {settings.MAX_CONTENT_BYTES} bytes")
    given = {key: value for key, value in body.items() if key in WRITE_FIELDS}
    if "id" in given:
        try:
            external_id = validation.identifier(given["id"])
            if external_id.startswith(GENERATED_ID_PREFIXES):
                raise Invalid("id", f"may not start with {', '.join(GENERATED_ID_PREFIXES)}")
        except Invalid as problem:
            errors["id"] = problem.message
    else:
        given["id"] = f"api-{uuid.uuid4().hex[:16]}"
    if "content" not in body:
        errors["content"] = "required"
    # Each field alone through the import's checks, so that every bad one is named.
    for key in WRITE_FIELDS:
        if key in given and key != "id" and not (key == "content" and "content" in errors):
            probe = {"id": "x", "content": "x", key: given[key]}
            try:
                parse_record(probe, line=0, default_namespace=namespace)
            except Invalid as problem:
                errors[key] = problem.message
    if errors:
        raise Refused(400, "invalid fields", errors)
    return parse_record(given, line=0, default_namespace=namespace)


def search_query(text: Any, k: Any) -> tuple[str, int]:
    """(text, k) of a semantic search: a non-empty readable text of at most
    MAX_CONTENT_BYTES (413 beyond) and k from 1 to MAX_RESULTS (default 10)."""
    if isinstance(text, str) and len(text.encode("utf-8", "replace")) > settings.MAX_CONTENT_BYTES:
        raise Refused(413, f"q is longer than {settings.MAX_CONTENT_BYTES} bytes")
    errors = {}
    try:
        text = validation.text(text, "q").strip()
    except Invalid as problem:
        errors["q"] = "required" if text in (None, "") else problem.message
    if k is None or k == "":
        k = 10
    elif isinstance(k, str):
        try:
            k = validation.whole_number(k, "k", low=1, high=MAX_RESULTS)
        except Invalid as problem:
            errors["k"] = problem.message
    elif isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_RESULTS:
        errors["k"] = f"must be a whole number from 1 to {MAX_RESULTS}"
    if errors:
        raise Refused(400, "invalid query", errors)
    return text, k
