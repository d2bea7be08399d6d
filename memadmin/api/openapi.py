"""The API's OpenAPI 3.1 description, served at /api/v1/openapi.json. Tests check every
response the API gives against these schemas."""

from __future__ import annotations

from memadmin.store.importing import DESCRIPTIVE_FIELDS

_ERROR = {"$ref": "#/components/schemas/Error"}


def _errors(*statuses: int) -> dict:
    meaning = {
        400: "Invalid JSON or fields (each bad field named in error.fields)",
        401: "Missing, unknown or revoked token",
        403: "The token belongs to another namespace",
        405: "Method not allowed",
        409: "The id exists already in the namespace",
        413: "Body over 64 KB or content over 8 KB",
    }
    return {
        str(status): {
            "description": meaning[status],
            "content": {"application/json": {"schema": _ERROR}},
        }
        for status in statuses
    }


NAMESPACE = {
    "name": "namespace",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$"},
}

MEMORY = {
    "type": "object",
    "required": ["id", "content", *DESCRIPTIVE_FIELDS, "created_at", "status"],
    "properties": {
        "id": {"type": "string"},
        "content": {"type": "string"},
        "category": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "source_ref": {"type": "string"},
        "session_id": {"type": "string"},
        "importance": {"type": "number", "minimum": 0, "maximum": 1},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "created_at": {"type": "string", "format": "date-time"},
        "status": {"enum": ["active", "superseded", "deleted"]},
    },
    "additionalProperties": False,
}

DOCUMENT = {
    "openapi": "3.1.0",
    "info": {
        "title": "memadmin agent API",
        "version": "1",
        "description": (
            "Write-time deduplication of agent memories, the profile read with open "
            "conflicts, and semantic search. Authenticate with a per-namespace token: "
            "`Authorization: Bearer <token>`."
        ),
    },
    "servers": [{"url": "/api/v1"}],
    "security": [{"bearer": []}],
    "paths": {
        "/namespaces/{namespace}/memories": {
            "parameters": [NAMESPACE],
            "post": {
                "summary": "Write a memory, checked for duplicates and conflicts first",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/NewMemory"}}
                    },
                },
                "responses": {
                    "200": {
                        "description": "An exact repeat: no new row (action duplicate)",
                        "content": {
                            "application/json": {
                                "schema": {"$ref": "#/components/schemas/WriteResult"}
                            }
                        },
                    },
                    "201": {
                        "description": "Stored (action inserted, replaced or merged)",
                        "content": {
                            "application/json": {
                                "schema": {"$ref": "#/components/schemas/WriteResult"}
                            }
                        },
                    },
                    **_errors(400, 401, 403, 405, 409, 413),
                },
            },
            "get": {
                "summary": "Semantic search over the active memories",
                "parameters": [
                    {"name": "q", "in": "query", "required": True, "schema": {"type": "string"}},
                    {
                        "name": "k",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
                    },
                ],
                "responses": {
                    "200": {
                        "description": "The k nearest active memories, closest first",
                        "content": {
                            "application/json": {
                                "schema": {"$ref": "#/components/schemas/SearchResult"}
                            }
                        },
                    },
                    **_errors(400, 401, 403, 405, 413),
                },
            },
        },
        "/namespaces/{namespace}/profile": {
            "parameters": [NAMESPACE],
            "get": {
                "summary": "The memories an agent should load, and the open conflicts apart",
                "responses": {
                    "200": {
                        "description": (
                            "Active memories (no superseded, no duplicates) and open conflicts"
                        ),
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Profile"}}
                        },
                    },
                    **_errors(401, 403, 405),
                },
            },
        },
    },
    "components": {
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        "schemas": {
            "Memory": MEMORY,
            "NewMemory": {
                "type": "object",
                "required": ["content"],
                "additionalProperties": False,
                "properties": {
                    "content": {"type": "string", "minLength": 1, "maxLength": 8192},
                    "id": {"type": "string", "description": "external id; generated if absent"},
                    "created_at": {"type": "string", "format": "date-time"},
                    "category": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "source_ref": {"type": "string"},
                    "session_id": {"type": "string"},
                    "importance": {"type": "number", "minimum": 0, "maximum": 1},
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    "metadata": {"type": "object"},
                },
            },
            "WriteResult": {
                "type": "object",
                "required": [
                    "action",
                    "memory",
                    "similar",
                    "conflict_id",
                    "conflict_ids",
                    "queued_for_review",
                    "check_failed",
                ],
                "additionalProperties": False,
                "properties": {
                    "action": {"enum": ["duplicate", "replaced", "merged", "inserted"]},
                    "memory": {"$ref": "#/components/schemas/Memory"},
                    "similar": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["id", "content", "similarity"],
                            "properties": {
                                "id": {"type": "string"},
                                "content": {"type": "string"},
                                "similarity": {"type": "number"},
                            },
                        },
                    },
                    "conflict_id": {"type": ["integer", "null"]},
                    "conflict_ids": {"type": "array", "items": {"type": "integer"}},
                    "queued_for_review": {"type": "boolean"},
                    "check_failed": {"type": "boolean"},
                },
            },
            "SearchResult": {
                "type": "object",
                "required": ["results"],
                "properties": {
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["memory", "similarity"],
                            "properties": {
                                "memory": {"$ref": "#/components/schemas/Memory"},
                                "similarity": {"type": "number"},
                            },
                        },
                    }
                },
            },
            "Profile": {
                "type": "object",
                "required": ["namespace", "memories", "conflicts"],
                "properties": {
                    "namespace": {"type": "string"},
                    "memories": {"type": "array", "items": {"$ref": "#/components/schemas/Memory"}},
                    "conflicts": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["id", "kind", "reason", "a", "b"],
                            "properties": {
                                "id": {"type": "integer"},
                                "kind": {"enum": ["contradiction", "update"]},
                                "reason": {"type": "string"},
                                "a": {"$ref": "#/components/schemas/Memory"},
                                "b": {"$ref": "#/components/schemas/Memory"},
                            },
                        },
                    },
                },
            },
            "Error": {
                "type": "object",
                "required": ["error"],
                "properties": {
                    "error": {
                        "type": "object",
                        "required": ["status", "message"],
                        "properties": {
                            "status": {"type": "integer"},
                            "message": {"type": "string"},
                            "fields": {
                                "type": "object",
                                "additionalProperties": {"type": "string"},
                            },
                        },
                    }
                },
            },
        },
    },
}
