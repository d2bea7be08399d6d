"""Checking an agent's JSON body, field by field (every bad field is named at once)."""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings

from memadmin.store.importing import DESCRIPTIVE_FIELDS, InvalidRecord, Record, parse_record

WRITE_FIELDS = ("content", "id", "created_at", *DESCRIPTIVE_FIELDS, "metadata")


class ContentTooLarge(ValueError):
    pass


def write_record(body: Any, namespace: str) -> tuple[Record | None, dict[str, str]]:
    """(record, {}) for a valid body, or (None, {field: message}) naming every problem."""
    if not isinstance(body, dict):
        return None, {"body": "must be a JSON object"}
    errors: dict[str, str] = {}
    for key in sorted(set(body) - set(WRITE_FIELDS)):
        errors[key] = "unknown field"
    content = body.get("content")
    if isinstance(content, str) and len(content.encode("utf-8")) > settings.MAX_CONTENT_BYTES:
        raise ContentTooLarge(f"content is longer than {settings.MAX_CONTENT_BYTES} bytes")
    given = {key: value for key, value in body.items() if key in WRITE_FIELDS}
    given.setdefault("id", f"api-{uuid.uuid4().hex[:16]}")
    # Each field alone through the import's checks, so that every bad one is named.
    for key in WRITE_FIELDS:
        if key in given and key not in ("id", "content"):
            try:
                parse_record(
                    {"id": "x", "content": "x", key: given[key]},
                    line=0,
                    default_namespace=namespace,
                )
            except InvalidRecord as error:
                errors[key] = str(error)
    if "content" not in body:
        errors["content"] = "required"
    elif not isinstance(content, str) or not content.strip():
        errors["content"] = "must be a non-empty string"
    if not isinstance(given["id"], str) or not given["id"].strip() or len(given["id"]) > 200:
        errors["id"] = "must be a non-empty string of at most 200 characters"
    if errors:
        return None, errors
    return parse_record(given, line=0, default_namespace=namespace), {}
