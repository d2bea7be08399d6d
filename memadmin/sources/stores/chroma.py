"""A ChromaDB collection on disk (PersistentClient): text is the document, metadata the
point's metadata; or, with a text field (`--text-field`, Mem0's layout: "data"), the text
is that metadata key and the documents are left as they are."""

from __future__ import annotations

from collections.abc import Iterator

from memadmin.sources.stores.points import Point, SourceError, split_text


class ChromaStore:
    def __init__(self, location: str, collection: str, fields: dict[str, str]):
        import chromadb
        from chromadb.config import Settings

        self.client = chromadb.PersistentClient(
            path=location, settings=Settings(anonymized_telemetry=False)
        )
        try:
            self.collection = self.client.get_collection(collection)
        except Exception as error:  # chromadb raises its own NotFoundError (or ValueError)
            raise SourceError(f"no collection {collection!r} in {location}: {error}") from None
        self.location, self.fields = location, fields
        self.created_key = fields.get("created", "")
        self.text_key = fields.get("text", "")

    def companion(self, collection: str) -> ChromaStore | None:
        """Another collection of the same folder, or None where there is none."""
        if collection not in [
            c if isinstance(c, str) else c.name for c in self.client.list_collections()
        ]:
            return None
        return ChromaStore(self.location, collection, self.fields)

    def count(self) -> int:
        return self.collection.count()

    def scan(self, batch_size: int) -> Iterator[list[Point]]:
        offset = 0
        while True:
            found = self.collection.get(
                limit=batch_size, offset=offset, include=["documents", "metadatas"]
            )
            if not found["ids"]:
                return
            yield [
                self._point(id_, text, metadata)
                for id_, text, metadata in zip(
                    found["ids"], found["documents"], found["metadatas"], strict=True
                )
            ]
            offset += len(found["ids"])

    def fetch(self, ids: list[str]) -> dict[str, Point]:
        found = self.collection.get(ids=ids, include=["documents", "metadatas", "embeddings"])
        points = {}
        for id_, text, metadata, vector in zip(
            found["ids"], found["documents"], found["metadatas"], found["embeddings"], strict=True
        ):
            point = self._point(id_, text, metadata)
            point.vector = [float(value) for value in vector]
            points[id_] = point
        return points

    def delete(self, ids: list[str]) -> None:
        self.collection.delete(ids=ids)

    def write(self, points: list[Point]) -> None:
        # Chroma's upsert merges metadata into what the point had: a key the new metadata
        # lacks is removed by giving it None (and a point's own None values cannot be
        # stored: Chroma takes strings, numbers and booleans).
        ids = [p.id for p in points]
        old = self.collection.get(ids=ids, include=["metadatas"])
        had = {i: set(m or {}) for i, m in zip(old["ids"], old["metadatas"], strict=True)}
        metadatas = []
        for point in points:
            kept = {k: v for k, v in point.metadata.items() if v is not None}
            dropped = dict.fromkeys(had.get(point.id, set()) - set(kept))
            if self.text_key:
                kept[self.text_key] = point.text
            metadatas.append({**dropped, **kept} or None)
        texts = {} if self.text_key else {"documents": [p.text for p in points]}
        self.collection.upsert(
            ids=ids, metadatas=metadatas, embeddings=[p.vector for p in points], **texts
        )

    def close(self) -> None:
        pass  # a PersistentClient writes as it goes

    def _point(self, id_, text, metadata) -> Point:
        metadata = dict(metadata or {})
        if self.text_key:
            text, metadata = split_text(metadata, self.text_key)
        created = metadata.get(self.created_key) if self.created_key else None
        return Point(str(id_), text or "", metadata, created=created)
