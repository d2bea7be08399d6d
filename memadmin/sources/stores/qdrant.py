"""A Qdrant collection: local mode (a folder, QdrantClient(path=...)) or a server (a URL).
The text is one key of the payload ("text", or "data" in Mem0's layout); the rest of the
payload is the point's metadata."""

from __future__ import annotations

from collections.abc import Iterator

from memadmin.sources.stores.points import Point, SourceError, is_sparse, split_text


def _point_id(value: str):
    """Qdrant ids are unsigned integers or UUIDs: an id read as digits goes back as one."""
    return int(value) if value.isdigit() else value


class QdrantStore:
    def __init__(
        self, location: str, collection: str, fields: dict[str, str], *, api_key=None, client=None
    ):
        from qdrant_client import QdrantClient

        if client is not None:
            self.client, self.shared = client, True
        elif location.startswith(("http://", "https://")):
            self.client, self.shared = QdrantClient(url=location, api_key=api_key), False
        else:
            self.client, self.shared = QdrantClient(path=location), False
        if not self.client.collection_exists(collection):
            self.close()
            raise SourceError(f"no collection {collection!r} in {location}")
        self.location, self.fields = location, fields
        self.collection = collection
        self.text_key = fields.get("text", "text")
        self.created_key = fields.get("created", "")

    def companion(self, collection: str) -> QdrantStore | None:
        """Another collection of the same store, on this client (local mode allows one
        client per folder), or None where there is none."""
        if not self.client.collection_exists(collection):
            return None
        return QdrantStore(self.location, collection, self.fields, client=self.client)

    def count(self) -> int:
        return self.client.count(self.collection, exact=True).count

    def scan(self, batch_size: int) -> Iterator[list[Point]]:
        offset = None
        while True:
            records, offset = self.client.scroll(
                self.collection,
                limit=batch_size,
                offset=offset,
                with_payload=True,
                with_vectors=False,
            )
            if records:
                yield [self._point(record) for record in records]
            if offset is None:
                return

    def fetch(self, ids: list[str]) -> dict[str, Point]:
        records = self.client.retrieve(
            self.collection, [_point_id(i) for i in ids], with_payload=True, with_vectors=True
        )
        points = {}
        for record in records:
            point = self._point(record)
            point.vector = record.vector
            points[point.id] = point
        return points

    def delete(self, ids: list[str]) -> None:
        from qdrant_client import models

        self.client.delete(
            self.collection, points_selector=models.PointIdsList(points=[_point_id(i) for i in ids])
        )

    def write(self, points: list[Point]) -> None:
        from qdrant_client import models

        self.client.upsert(
            self.collection,
            points=[
                models.PointStruct(
                    id=_point_id(p.id),
                    vector=_as_qdrant(p.vector, models),
                    payload={**p.metadata, self.text_key: p.text},
                )
                for p in points
            ],
        )

    def close(self) -> None:
        if not self.shared:
            self.client.close()  # local mode holds a lock on its folder until then

    def _point(self, record) -> Point:
        text, metadata = split_text(record.payload or {}, self.text_key)
        created = metadata.get(self.created_key) if self.created_key else None
        return Point(str(record.id), text, metadata, created=created)


def _as_qdrant(vector, models):
    """A point's vectors as qdrant-client takes them: named ones (Mem0 2.x: a dense ""
    and a sparse "bm25") each in its kind, a sparse one as Qdrant's SparseVector."""
    if isinstance(vector, dict):
        return {name: _as_qdrant(value, models) for name, value in vector.items()}
    if is_sparse(vector):
        return models.SparseVector(indices=list(vector.indices), values=list(vector.values))
    return vector
