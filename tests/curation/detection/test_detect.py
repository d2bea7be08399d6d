from pathlib import Path

import numpy as np
import pytest

from memadmin.curation.detection.candidates import neighbours as detect


def brute_force_pairs(vectors, queries, floor):
    """Every unordered pair with a query in it and a cosine >= floor, the plain way."""
    scores = vectors @ vectors.T
    found = set()
    for i in queries:
        for j in range(len(vectors)):
            if i != j and scores[i, j] >= floor:
                found.add((min(i, j), max(i, j)))
    return found


@pytest.fixture
def clustered_vectors():
    # Groups of near copies among random vectors, so that pairs fall on both sides of the
    # floor and across tile and block edges.
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(300, 16)).astype(np.float32)
    for source in range(0, 300, 23):
        for copy in range(source + 1, min(source + 4, 300)):
            vectors[copy] = vectors[source] + 0.3 * rng.normal(size=16)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("queries", ["all", "some"])
def test_the_blocked_product_finds_exactly_the_brute_force_pairs(
    clustered_vectors, workers, queries, monkeypatch, settings
):
    monkeypatch.setattr(detect, "TILE_COLUMNS", 37)  # tiles that do not divide the matrix
    settings.DEDUP_PARALLEL_MIN_WORK = 0  # fork the workers even for this small matrix
    query_positions = (
        np.arange(len(clustered_vectors)) if queries == "all" else np.array([0, 5, 24, 150, 299])
    )

    pairs = detect.vector_pairs_exact(
        clustered_vectors, query_positions, floor=0.6, block_size=50, workers=workers
    )

    found = [(int(i), int(j)) for i, j, _ in pairs]
    assert len(found) == len(set(found)), "each pair once"
    assert set(found) == brute_force_pairs(clustered_vectors, query_positions.tolist(), 0.6)
    assert len(found) >= 10  # the data has pairs to find
    for i, j, cosine in pairs:
        assert cosine == pytest.approx(float(clustered_vectors[int(i)] @ clustered_vectors[int(j)]))


def test_a_cosine_exactly_at_the_floor_counts():
    vectors = np.array([[1.0, 0.0], [0.5, np.sqrt(0.75)]], dtype=np.float32)
    floor = float(vectors[0] @ vectors[1])

    pairs = detect.vector_pairs_exact(vectors, np.arange(2), floor=floor, workers=1)

    assert [(int(i), int(j)) for i, j, _ in pairs] == [(0, 1)]


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_counts_every_pair_compared_once(clustered_vectors, workers, settings):
    settings.DEDUP_PARALLEL_MIN_WORK = 0
    heard = []

    detect.vector_pairs_exact(
        clustered_vectors,
        np.arange(len(clustered_vectors)),
        floor=0.6,
        block_size=64,
        workers=workers,
        on_progress=lambda done, total: heard.append((done, total)),
    )

    count = len(clustered_vectors)
    # Each block of the triangle compares its rows with every vector from its first row.
    total = sum((min(start + 64, count) - start) * (count - start) for start in range(0, count, 64))
    assert len(heard) == 5
    assert [done for done, _ in heard] == sorted(done for done, _ in heard)
    assert heard[-1] == (total, total)


def test_a_namespace_of_one_tile_is_compared_in_one_symmetric_product(clustered_vectors):
    every = np.arange(len(clustered_vectors))

    whole = detect.vector_pairs_exact(clustered_vectors, every, floor=0.6, workers=1)
    blocked = detect.vector_pairs_exact(
        clustered_vectors, every, floor=0.6, workers=1, block_size=64
    )

    assert {(int(i), int(j)) for i, j, _ in whole} == brute_force_pairs(
        clustered_vectors, every, 0.6
    )
    assert whole[:, :2].tolist() == blocked[:, :2].tolist()  # the same pairs, in one order
    assert np.allclose(whole[:, 2], blocked[:, 2], atol=1e-6)


def blas_threads() -> int:
    """The threads of numpy's own BLAS (scipy loads another, which numpy's products never
    use: counting it made this test depend on whether an earlier one had fit a model)."""
    from threadpoolctl import threadpool_info

    blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
    numpys = [i for i in blas if "numpy" in Path(i["filepath"]).parent.name]
    return max(i["num_threads"] for i in numpys or blas)


class _ThreadsSeen(np.ndarray):
    """Vectors that note the BLAS threads each product of theirs runs with."""

    seen: list[int] = []

    def __matmul__(self, other):
        _ThreadsSeen.seen.append(blas_threads())
        return np.asarray(self) @ np.asarray(other)


def test_a_namespace_of_one_tile_is_multiplied_with_one_blas_thread(clustered_vectors):
    # A second thread saved a millisecond, then spun on the other core while the run
    # judged the namespace. The process's own setting is left as it was.
    from threadpoolctl import threadpool_limits

    every = np.arange(len(clustered_vectors))
    _ThreadsSeen.seen = []
    with threadpool_limits(2):
        pairs = detect.vector_pairs_exact(
            clustered_vectors.view(_ThreadsSeen), every, floor=0.6, workers=1
        )
        after = blas_threads()

    assert _ThreadsSeen.seen == [1]
    assert after == 2
    assert {(int(i), int(j)) for i, j, _ in pairs} == brute_force_pairs(
        clustered_vectors, every, 0.6
    )


def test_slot_keys_join_a_move_to_where_one_lives_whatever_the_wording():
    assert "live:" in detect.slot_keys("Lives in Porto")
    assert "live:" in detect.slot_keys("Moved to Lyon in 2024")
    assert detect.slot_keys("Likes tea") == frozenset()  # a slot that holds several
