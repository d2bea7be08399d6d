"""memadmin as an agent's memory over the Model Context Protocol (the official `mcp` SDK).

Four tools, each a thin call into what the JSON API calls: `remember` (the write-time
check, curation.write_time), `recall` (semantic search), `profile` (what to load, open
conflicts apart) and `forget` (never a hard delete: curation.decisions.forget_memory).
Arguments go through the JSON API's own checks (api.validation, the one validation
layer): a bad one is a tool error naming the field, never a crash of the server.

Served over stdio (`manage.py mcp_server --namespace NS`, the namespace fixed for the
process) and over Streamable HTTP at /mcp/<namespace>/ (memadmin.asgi), where the JSON
API's per-namespace bearer tokens authenticate (api.auth).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any

from django.db import close_old_connections
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import ToolAnnotations
from pydantic import Field

from memadmin.api import serialize, validation
from memadmin.curation import decisions, write_time
from memadmin.curation.llm import client as llm
from memadmin.curation.reads import exports
from memadmin.store import embeddings, queries
from memadmin.store import validation as store_validation
from memadmin.store.models import Memory, MemoryStatus, Namespace

logger = logging.getLogger("memadmin.api")

# The longest reason an agent may give for forgetting a memory.
MAX_REASON_CHARS = 1000

INSTRUCTIONS = (
    "memadmin is this agent's long-term memory. Call `remember` with one short fact at a "
    "time: it is checked against what is stored (an exact or near repeat is answered "
    "`duplicate` and stores nothing; an update of a fact replaces it; a contradiction is "
    "stored and sent to people for review). Call `profile` at the start of a session to "
    "load what is known, with the open conflicts apart (do not rely on either side of one "
    "until it is settled). Call `recall` to search by meaning. `forget` retires a memory "
    "(people can restore it)."
)


@dataclass(frozen=True)
class Grant:
    """Whom a tool call acts for: the namespace, and the actor its history names."""

    namespace_id: int
    actor: str  # "mcp:<token name>" over HTTP, "mcp:stdio" for a local agent

    def namespace(self) -> Namespace:
        return Namespace.objects.get(pk=self.namespace_id)


def build_server(grant_of: Callable[[Context], Grant]) -> MCPServer:
    """The MCP server and its tools; `grant_of(ctx)` says whom a call acts for (fixed
    for stdio, the token's namespace over HTTP)."""

    def remember(
        content: Annotated[str, Field(description="One fact, in a sentence or two.")],
        ctx: Context,
        category: Annotated[str | None, Field(description="e.g. preference, fact")] = None,
        tags: Annotated[list[str] | None, Field(description="Short labels")] = None,
        source_ref: Annotated[str | None, Field(description="Where it came from")] = None,
        session_id: Annotated[str | None, Field(description="The agent's session")] = None,
        # Strict: `true` or "0.5" is no number (as the JSON API and import answer).
        importance: Annotated[float | None, Field(description="0 to 1", strict=True)] = None,
        confidence: Annotated[float | None, Field(description="0 to 1", strict=True)] = None,
    ) -> dict[str, Any]:
        """Store a memory, checked first against this namespace's memories. The result's
        `action` is `inserted`, `duplicate` (nothing stored: the existing memory's id),
        `replaced` (an update of a fact: the old one is kept as history) or `merged`; it
        lists the nearest similar memories and any conflict opened for review."""
        given = {
            "content": content,
            "category": category,
            "tags": tags,
            "source_ref": source_ref,
            "session_id": session_id,
            "importance": importance,
            "confidence": confidence,
        }
        with _call(ctx, grant_of) as grant:
            return _remember(grant, given)

    def recall(
        query: Annotated[str, Field(description="What to look for, in any words")],
        ctx: Context,
        k: Annotated[
            int, Field(description=f"How many, 1 to {validation.MAX_RESULTS}", strict=True)
        ] = 10,
    ) -> dict[str, Any]:
        """The active memories closest in meaning to `query`, closest first."""
        with _call(ctx, grant_of) as grant:
            return _recall(grant, query, k)

    def profile(ctx: Context) -> dict[str, Any]:
        """What to load about this user or project: the active memories (duplicates
        awaiting review shown once), and apart, the open conflicts with both sides."""
        with _call(ctx, grant_of) as grant:
            return _profile(grant)

    def forget(
        id: Annotated[str, Field(description="The memory's id, as remember returned it")],
        reason: Annotated[str, Field(description="Why it should be forgotten")],
        ctx: Context,
    ) -> dict[str, Any]:
        """Retire a memory: it leaves the profile and searches at once. Never a hard
        delete: the memory and the reason stay in the history, and people can restore
        it. A memory an admin pinned is kept."""
        with _call(ctx, grant_of) as grant:
            return _forget(grant, id, reason)

    tools = [
        _strict(remember, ToolAnnotations(destructiveHint=False, idempotentHint=True)),
        _strict(recall, ToolAnnotations(readOnlyHint=True)),
        _strict(profile, ToolAnnotations(readOnlyHint=True)),
        _strict(forget, ToolAnnotations(destructiveHint=False)),
    ]
    return MCPServer(name="memadmin", instructions=INSTRUCTIONS, tools=tools)


def _remember(grant: Grant, given: dict) -> dict[str, Any]:
    namespace = grant.namespace()
    record = validation.write_record(
        {key: value for key, value in given.items() if value is not None}, namespace.name
    )
    result = write_time.write_memory(
        namespace=namespace,
        record=record,
        actor=grant.actor,
        llm_session=llm.Session(max_calls=1) if llm.configured() else None,
    )
    return {"id": result.memory.external_id, **serialize.write_result(result)}


def _recall(grant: Grant, query, k) -> dict[str, Any]:
    text, k = validation.search_query(query, k)
    vector = embeddings.encode([text])[0]
    found = queries.nearest_memories(grant.namespace(), vector, k=k)
    return {
        "results": [
            {"memory": serialize.memory(n.memory), "similarity": round(n.similarity, 4)}
            for n in found
        ]
    }


def _profile(grant: Grant) -> dict[str, Any]:
    namespace = grant.namespace()
    memories, conflicts = exports.profile(namespace)
    return {
        "namespace": namespace.name,
        "memories": [serialize.memory(m) for m in memories],
        "conflicts": [serialize.conflict(c) for c in conflicts],
    }


def _forget(grant: Grant, id, reason) -> dict[str, Any]:
    """Retire a memory of the grant's namespace (`id` and `reason` as the agent sent
    them, both checked first: a refusal names each field)."""
    errors = {}
    try:
        external_id = store_validation.identifier(id)
    except store_validation.Invalid as problem:
        errors["id"] = problem.message
    try:
        why = store_validation.text(reason, "reason").strip()
        if len(why) > MAX_REASON_CHARS:
            raise store_validation.Invalid("reason", f"over {MAX_REASON_CHARS} characters")
    except store_validation.Invalid as problem:
        errors["reason"] = problem.message
    if errors:
        raise validation.Refused(400, "invalid fields", errors)
    memory = (
        Memory.objects.defer("embedding", "embedding_multi")
        .filter(namespace_id=grant.namespace_id, external_id=external_id)
        .first()
    )
    if memory is None:
        raise ToolError(f"no memory with id {external_id!r} in this namespace")
    forgotten = decisions.forget_memory(memory=memory, reason=why, actor=grant.actor)
    return {"id": forgotten.external_id, "status": MemoryStatus.DELETED, "restorable": True}


def _strict(function: Callable, annotations: ToolAnnotations) -> Tool:
    """A tool that refuses arguments it does not know (as the JSON API refuses unknown
    fields: a misspelt `importnace` must not be dropped silently), and says so in its
    input schema."""
    tool = Tool.from_function(function, annotations=annotations)
    arguments = tool.fn_metadata.arg_model
    arguments.model_config["extra"] = "forbid"
    arguments.model_rebuild(force=True)
    tool.parameters["additionalProperties"] = False
    return tool


@contextmanager
def _call(ctx: Context, grant_of: Callable[[Context], Grant]) -> Iterator[Grant]:
    """One tool call: the database connection handled as Django handles a request's
    (tools run in worker threads), and every refusal a tool error naming the fields."""
    close_old_connections()
    try:
        yield grant_of(ctx)
    except validation.Refused as refused:
        named = "; ".join(f"{name}: {message}" for name, message in refused.fields.items())
        raise ToolError(f"{refused.message}" + (f" ({named})" if named else "")) from None
    except decisions.DecisionError as problem:
        raise ToolError(str(problem)) from None
    finally:
        close_old_connections()
