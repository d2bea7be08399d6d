"""`push_source --reembed`: the points a push gave a new text beside the store's old
vector get memadmin's own embedding of it, for a store of memadmin's model."""

from __future__ import annotations

from memadmin.curation.decisions import update_rows
from memadmin.sources.models import Source, point_hash
from memadmin.sources.pushing import source_lock
from memadmin.sources.stores import Point, SourceError, open_store, speaking_for


def reembed(source: Source) -> tuple[int, int]:
    """(re-embedded, left alone): the points a push gave a new text beside the store's
    old vector get memadmin's own embedding of their text, for a store whose vectors are
    memadmin's model (all-MiniLM-L6-v2, 384 numbers; another length is refused). A point
    the agent changed since is left alone (its next pull brings it in)."""
    from memadmin.store import embeddings

    stale = list(source.points.filter(present=True, vector_stale=True).order_by("pk"))
    done = left = 0
    with source_lock(source):
        store = open_store(source)
        try:
            for batch in [stale[i : i + 200] for i in range(0, len(stale), 200)]:
                with speaking_for(source):
                    current = store.fetch([p.point_id for p in batch])
                same = [
                    p
                    for p in batch
                    if p.point_id in current
                    and point_hash(current[p.point_id].text, current[p.point_id].metadata) == p.said
                ]
                left += len(batch) - len(same)
                fresh = embeddings.encode([p.text for p in same])
                written = [
                    _with_dense(current[p.point_id], [float(x) for x in vector])
                    for p, vector in zip(same, fresh, strict=True)
                ]
                with speaking_for(source):
                    if written:
                        store.write(written)
                for point in same:
                    point.vector_stale = False
                update_rows(same, ["vector_stale"])
                done += len(same)
        finally:
            store.close()
    return done, left


def _with_dense(point: Point, fresh: list[float]) -> Point:
    vector = point.vector
    if isinstance(vector, dict):
        dense = next(name for name, value in vector.items() if not hasattr(value, "indices"))
        old, vector = vector[dense], {**vector, dense: fresh}
    else:
        old, vector = vector, fresh
    if old is not None and len(old) != len(fresh):
        raise SourceError(
            f"the store's vectors have {len(old)} numbers, memadmin's model {len(fresh)}: "
            "they are another model's, re-embed these points with it"
        )
    return Point(point.id, point.text, point.metadata, vector, point.created)
