"""What every store kind reads and writes: a point (id, text, metadata, the store's own
vector), a sparse vector as a store gives it back, and the one error a source raises.
The store classes (chroma, qdrant, pgvector, jsonl), the push journal and Mem0's layout
all build on these; nothing here imports any of them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class SourceError(Exception):
    """A source that cannot be opened or read: the message says what to do."""


@dataclass
class Point:
    id: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    vector: Any = None  # the store's own (a list of floats, or named vectors)
    created: str | None = None  # as the store gives it
    # What a rewrite took out of the point because it could not compute it again for the
    # new text (noted on the push's journal, never written to the store).
    dropped: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SparseValues:
    """A sparse vector (Qdrant's keyword vectors, as Mem0 writes them): what a store
    reads back is written back as it was."""

    indices: list[int]
    values: list[float]


def is_sparse(vector) -> bool:
    return hasattr(vector, "indices") and hasattr(vector, "values")


def split_text(payload: dict[str, Any], key: str) -> tuple[str, dict[str, Any]]:
    """(text, the rest) of a payload that holds its text under `key`."""
    rest = dict(payload)
    text = rest.pop(key, None)
    return (text if isinstance(text, str) else ""), rest
