"""Mem0's own records, kept true when a push rewrites or deletes its points (mem0ai 2.2.1,
read from its source: mem0/memory/main.py, mem0/utils/lemmatization.py,
mem0/memory/storage.py, mem0/vector_stores/qdrant.py).

- What Mem0 derives from a point's text follows the new text: `hash` (MD5), `updated_at`,
  `text_lemmatized` (its keyword-search text) and the sparse "bm25" keyword vector.
- Its history database (`Memory.history(id)`) gets the rows Mem0 itself writes for an
  update, a delete and an add, when the source names it (`add_source --mem0-history`).
- Its entity store (`<collection>_entities`, filled when spaCy runs beside the agent)
  loses its links to the points a push deleted, as Mem0's own delete does."""

from __future__ import annotations

import hashlib
import sqlite3
import uuid
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from memadmin.sources.journal import point_before
from memadmin.sources.models import PushOperation
from memadmin.sources.stores.points import SparseValues, is_sparse

KEYWORDS_KEY = "text_lemmatized"


def rewritten(metadata: dict, vector, old_text: str, new_text: str):
    """(metadata, vector, what was dropped) of a Mem0 point given a new text: each field
    derived from the text computed again as Mem0 computes it, or, where that cannot be
    done here, dropped (never left saying the old text) and named."""
    metadata = dict(metadata)
    dropped = []
    metadata["hash"] = hashlib.md5(new_text.encode()).hexdigest()
    metadata["updated_at"] = datetime.now(UTC).isoformat()
    if KEYWORDS_KEY in metadata:
        keywords = keyword_text(old_text, metadata[KEYWORDS_KEY], new_text)
        if keywords is None:
            del metadata[KEYWORDS_KEY]
            dropped.append(f"{KEYWORDS_KEY} (spaCy's en_core_web_sm is not installed here)")
        else:
            metadata[KEYWORDS_KEY] = keywords
    if isinstance(vector, dict) and any(is_sparse(value) for value in vector.values()):
        fresh = keyword_vector(metadata.get(KEYWORDS_KEY) or new_text)
        vector = {
            name: (fresh if is_sparse(value) else value)
            for name, value in vector.items()
            if not is_sparse(value) or fresh is not None
        }
        if fresh is None:
            dropped.append("the bm25 keyword vector (fastembed's Qdrant/bm25 is not here)")
    return metadata, vector, dropped


def keyword_text(old_text: str, old_keywords, new_text: str) -> str | None:
    """Mem0's `lemmatize_for_bm25` of the new text. Mem0 gives the text back unchanged
    where spaCy is missing beside the agent, which the old point shows (its keywords are
    its text); else spaCy's lemmas, when its English model is installed here; else None."""
    if old_keywords == old_text:
        return new_text
    nlp = _spacy_lemmatizer()
    if nlp is None:
        return None
    tokens = []
    for token in nlp(new_text.lower()):
        if token.is_punct or token.is_stop:
            continue
        if token.lemma_.isalnum():
            tokens.append(token.lemma_)
        # Mem0 keeps an -ing form beside its lemma (meeting / meet).
        if token.text.endswith("ing") and token.text != token.lemma_ and token.text.isalnum():
            tokens.append(token.text)
    return " ".join(tokens)


@cache
def _spacy_lemmatizer():
    """spaCy's en_core_web_sm as Mem0 loads it for keywords, only when it is installed
    (Mem0 would download it: memadmin never downloads at run time)."""
    try:
        import spacy
    except ImportError:
        return None
    if not spacy.util.is_package("en_core_web_sm"):
        return None
    return spacy.load("en_core_web_sm", disable=["parser", "ner"])


@cache
def _bm25_encoder():
    try:
        from fastembed import SparseTextEmbedding
    except ImportError:
        return None
    try:  # Mem0's encoder, from the local cache only
        return SparseTextEmbedding(model_name="Qdrant/bm25", local_files_only=True)
    except Exception:  # not cached here, or an older fastembed: no keyword vector
        return None


def keyword_vector(text: str):
    """The sparse vector Mem0's Qdrant store writes for a text, or None."""
    encoder = _bm25_encoder()
    if encoder is None:
        return None

    found = next(iter(encoder.embed([text])))
    return SparseValues(found.indices.tolist(), found.values.tolist())


# --- History ---------------------------------------------------------------------------------


def history_row(operation_key: str, before, after) -> tuple | None:
    """The row Mem0 writes to its history table for this change of a point (None: no
    change of text, as a mark). Its id is derived from the operation, so a push resumed
    after a kill writes it once."""
    if before is None and after is None:
        return None
    now = datetime.now(UTC).isoformat()
    payload = (after or before).metadata
    if after is None:
        event, old, new, deleted = "DELETE", before.text, None, 1
    elif before is None:
        event, old, new, deleted = "ADD", None, after.text, 0
    elif before.text != after.text:
        event, old, new, deleted = "UPDATE", before.text, after.text, 0
    else:
        return None
    return (
        str(uuid.uuid5(uuid.NAMESPACE_URL, f"memadmin:{operation_key}")),
        (after or before).id,
        old,
        new,
        event,
        payload.get("created_at"),
        now,
        deleted,
        payload.get("actor_id"),
        payload.get("role"),
    )


def write_history(path: str, rows: list[tuple]) -> None:
    """Rows into Mem0's history database, in the table Mem0 made."""
    if not rows:
        return
    connection = sqlite3.connect(path, timeout=30)
    try:
        with connection:
            connection.executemany(
                "INSERT OR IGNORE INTO history (id, memory_id, old_memory, new_memory, event,"
                " created_at, updated_at, is_deleted, actor_id, role)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
    finally:
        connection.close()


def check_history(path: str) -> str:
    """Why this is not Mem0's history database ("" when it is)."""
    try:
        if not Path(path).is_file():
            return f"cannot open {path}: no such file"
        # Read only, and never created: the path quoted as a URI ("?" and "#" are names).
        connection = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    except (sqlite3.Error, ValueError, OSError) as error:
        return f"cannot open {path}: {error}"
    try:
        columns = {row[1] for row in connection.execute("PRAGMA table_info(history)")}
    except sqlite3.Error as error:
        return f"{path} is not a SQLite database: {error}"
    finally:
        connection.close()
    if not {"memory_id", "old_memory", "new_memory", "event"} <= columns:
        return f"{path} has no Mem0 history table"
    return ""


# --- Entities --------------------------------------------------------------------------------

LINKS_KEY = "linked_memory_ids"


def unlinked_entities(entities: list, deleted: set[str]) -> tuple[list, list[str]]:
    """(entities to write with the deleted points' ids taken out, ids of entities left
    with no link, to delete): what Mem0's `_remove_memory_from_entity_store` does."""
    to_write, to_delete = [], []
    for entity in entities:
        links = entity.metadata.get(LINKS_KEY)
        if not isinstance(links, list) or not deleted.intersection(map(str, links)):
            continue
        remaining = [link for link in links if str(link) not in deleted]
        if remaining:
            entity.metadata = {**entity.metadata, LINKS_KEY: remaining}
            to_write.append(entity)
        else:
            to_delete.append(entity.id)
    return to_write, to_delete


# --- After a push's batch ------------------------------------------------------------------


def keep_records(source, store, sent: list) -> None:
    """Mem0's history rows for what was sent (its history database, when the source
    names it), and its entity store's links to the deleted points taken out."""
    path = source.fields.get("mem0_history")
    if path:
        rows = []
        for op, result in sent:
            before = point_before(op) if op.before else None
            if op.action == PushOperation.Action.RESTORE and not op.point.present:
                before = None  # a deleted point written back: Mem0 calls that an add
            row = history_row(f"{source.pk}:{op.pk}", before, result)
            if row is not None:
                rows.append(row)
        write_history(path, rows)
    deleted = {op.point.point_id for op, result in sent if result is None}
    if deleted:
        entities = store.companion(source.collection + "_entities")
        if entities is not None:
            try:
                found = [p for batch in entities.scan(1000) for p in batch]
                to_write, to_delete = unlinked_entities(found, deleted)
                if to_write:
                    fetched = entities.fetch([p.id for p in to_write])
                    for entity in to_write:  # written with their vectors as they are
                        entity.vector = fetched[entity.id].vector
                    entities.write(to_write)
                if to_delete:
                    entities.delete(to_delete)
            finally:
                entities.close()
