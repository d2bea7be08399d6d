"""The push journal's copy of a point (PushOperation.before): packed so that a restore
gives back exactly what the store returned, and read back as a point."""

from __future__ import annotations

import base64

import numpy as np

from memadmin.sources.stores.points import Point, SparseValues


# A vector in the journal, as the store returned it, no precision lost: a dense one as
# its float64 bytes in base64 (half the JSON of a list of numbers, and a restore gives
# back exactly what was read); a sparse one (Qdrant's keyword vectors: indices and
# values) as both lists; named vectors as a dict of those.
def packed(vector):
    if vector is None:
        return None
    if isinstance(vector, dict):
        return {name: packed(value) for name, value in vector.items()}
    if hasattr(vector, "indices") and hasattr(vector, "values"):
        return {"sparse": {"indices": list(vector.indices), "values": list(vector.values)}}
    return {"float64": base64.b64encode(np.asarray(vector, dtype="<f8").tobytes()).decode()}


def unpacked(vector):
    if vector is None:
        return None
    if len(vector) == 1 and "float64" in vector:
        return np.frombuffer(base64.b64decode(vector["float64"]), dtype="<f8").tolist()
    if len(vector) == 1 and "float32" in vector:  # journals written before float64
        return np.frombuffer(base64.b64decode(vector["float32"]), dtype="<f4").tolist()
    if len(vector) == 1 and "sparse" in vector:
        return SparseValues(vector["sparse"]["indices"], vector["sparse"]["values"])
    return {name: unpacked(value) for name, value in vector.items()}


def point_before(op) -> Point:
    kept = op.before
    return Point(kept["id"], kept["text"], kept["metadata"], unpacked(kept["vector"]))
