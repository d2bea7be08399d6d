"""The stores a source can be: one small class per kind, each reading and writing points
(id, text, metadata, the store's own vector) with the store's own client library. The
libraries are optional extras (`pip install memadmin[chroma,qdrant]`): a kind whose
library is missing is refused with the command that installs it."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from memadmin.sources.stores.points import Point, SourceError, is_sparse

# What each kind needs installed, and the extra that brings it.
LIBRARIES = {"chroma": ("chromadb", "chroma"), "qdrant": ("qdrant_client", "qdrant")}

# Where the text, the created time and (for a table) the id, vector and metadata are, by
# kind and layout. Mem0 (mem0ai 2.0.18, mem0/memory/main.py `_create_memory`) writes the
# text under "data" in the payload, with "hash" (MD5 of the text), "created_at",
# "updated_at", "user_id" / "agent_id" / "run_id" and the caller's metadata beside it; on
# PostgreSQL its table is (id UUID, vector, payload JSONB) (mem0/vector_stores/pgvector.py).
DEFAULT_FIELDS = {
    ("chroma", "plain"): {"created": "created_at"},
    # Mem0 on ChromaDB keeps the text in the metadata, under "data", and no document.
    ("chroma", "mem0"): {"text": "data", "created": "created_at"},
    ("qdrant", "plain"): {"text": "text", "created": "created_at"},
    ("qdrant", "mem0"): {"text": "data", "created": "created_at"},
    ("pgvector", "plain"): {
        "id": "id",
        "text": "content",
        "vector": "embedding",
        "metadata": "metadata",
        "created": "created_at",
    },
    ("pgvector", "mem0"): {
        "id": "id",
        "text": "payload.data",
        "vector": "vector",
        "metadata": "payload",
        "created": "payload.created_at",
    },
    ("jsonl", "plain"): {"id": "id", "text": "text", "created": "created_at"},
}

# A source whose vectors are memadmin's own model (all-MiniLM-L6-v2, 384-d): a push embeds
# a merged text itself.
EMBEDDER_MEMADMIN = "memadmin"

# Keys a push adds to a point's metadata (never read back as the agent's own metadata).
STATUS_KEY = "memadmin_status"
SUPERSEDED_BY_KEY = "memadmin_superseded_by"
TEXT_CHANGED_KEY = "memadmin_text_changed"
MARK_KEYS = (STATUS_KEY, SUPERSEDED_BY_KEY)


class Store(Protocol):
    def count(self) -> int:
        """How many points there are (for the progress bar)."""

    def scan(self, batch_size: int) -> Iterator[list[Point]]:
        """Every point, without vectors, in batches."""

    def fetch(self, ids: list[str]) -> dict[str, Point]:
        """The points with these ids that exist, with their vectors."""

    def delete(self, ids: list[str]) -> None: ...

    def write(self, points: list[Point]) -> None:
        """Insert or replace whole points (text, metadata, vector)."""

    def companion(self, name: str) -> Store | None:
        """Another collection (or table) of the same store, or None (Mem0's entities)."""

    def close(self) -> None: ...


@contextmanager
def speaking_for(source):
    """A store library's own error (a lost connection, a refused write) as a SourceError
    that names the source: the commands and the page show it in one line."""
    try:
        yield
    except SourceError:
        raise
    except Exception as error:  # each library has its own exception classes
        said = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise SourceError(f"{source.kind} store of {source.name}: {said}") from error


def require_library(kind: str) -> None:
    """Refuse a kind whose client library is not installed, with the command to run."""
    if kind not in LIBRARIES:
        return
    module, extra = LIBRARIES[kind]
    if importlib.util.find_spec(module) is None:
        raise SourceError(
            f"a {kind} source needs the {module} library: pip install 'memadmin[{extra}]'"
        )


def fields_of(source) -> dict[str, str]:
    return {**DEFAULT_FIELDS.get((source.kind, source.layout), {}), **source.fields}


def location_of(source) -> str:
    if source.location_env:
        value = os.environ.get(source.location_env, "")
        if not value:
            raise SourceError(f"the environment variable {source.location_env} is not set")
        return value
    return source.location


def open_store(source) -> Store:
    """The store a source names, opened."""
    require_library(source.kind)
    fields = fields_of(source)
    location = location_of(source)
    with speaking_for(source):
        return _opened(source, location, fields)


def _opened(source, location: str, fields: dict[str, str]) -> Store:
    if source.kind == "chroma":
        from memadmin.sources.stores.chroma import ChromaStore

        return ChromaStore(location, source.collection, fields)
    if source.kind == "qdrant":
        from memadmin.sources.stores.qdrant import QdrantStore

        api_key = os.environ.get(source.api_key_env) if source.api_key_env else None
        return QdrantStore(location, source.collection, fields, api_key=api_key)
    if source.kind == "pgvector":
        from memadmin.sources.stores.pgvector import PgvectorStore

        return PgvectorStore(location, source.collection, fields)
    from memadmin.sources.stores.jsonl import JsonlStore

    return JsonlStore(location, fields)


def with_new_text(source, point: Point, text: str) -> Point:
    """The point with a merge's text, and a vector for it: memadmin's own MiniLM where the
    source was added with `--embedder memadmin` (its vectors are that model's); else the
    source's vector is kept (recorded as stale here, see vector_stale). In Mem0's layout
    what Mem0 derives from the text follows it (sources/mem0.py)."""
    metadata = dict(point.metadata)
    vector = point.vector
    dropped = []
    if source.layout == "mem0":
        from memadmin.sources import mem0

        metadata, vector, dropped = mem0.rewritten(metadata, vector, point.text, text)
    elif isinstance(vector, dict) and any(is_sparse(value) for value in vector.values()):
        # A keyword (sparse) vector is of the old text's words and no encoder of it is
        # here: it goes (the store's search falls back on the dense vector); the journal
        # keeps it for an undo.
        vector = {name: value for name, value in vector.items() if not is_sparse(value)}
        dropped.append("the sparse keyword vectors")
    if fields_of(source).get("embedder") == EMBEDDER_MEMADMIN:
        from memadmin.store import embeddings

        fresh = [float(x) for x in embeddings.encode([text])[0]]
        if isinstance(vector, dict):  # named vectors: the dense one is memadmin's model's
            dense = next(name for name, value in vector.items() if not is_sparse(value))
            vector = {**vector, dense: fresh}
        else:
            vector = fresh
    # Nothing of memadmin's goes into what the agent reads: that the vector is of the old
    # text is recorded here (SourcePoint.vector_stale, listed on the Sources page). A key
    # an earlier version wrote is taken out.
    metadata.pop(TEXT_CHANGED_KEY, None)
    return Point(point.id, text, metadata, vector, point.created, dropped)
