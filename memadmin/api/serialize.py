"""JSON shapes of the API (described in openapi.py)."""

from __future__ import annotations


def memory(m) -> dict:
    return {
        "id": m.external_id,
        "content": m.content,
        "category": m.category,
        "tags": m.tags,
        "source_ref": m.source_ref,
        "session_id": m.session_id,
        "importance": m.importance,
        "confidence": m.confidence,
        "created_at": m.created_at.isoformat(),
        "status": m.status,
    }


def write_result(result) -> dict:
    return {
        "action": result.action,
        "memory": memory(result.memory),
        "similar": result.similar,
        "conflict_id": result.conflict_id,
        "conflict_ids": result.conflict_ids,
        "queued_for_review": result.queued_for_review,
        "check_failed": result.check_failed,
    }


def status_of(result) -> int:
    return 200 if result.action == "duplicate" else 201


def conflict(c) -> dict:
    return {
        "id": c.pk,
        "kind": c.kind,
        "reason": c.reason,
        "a": memory(c.memory_a),
        "b": memory(c.memory_b),
    }
