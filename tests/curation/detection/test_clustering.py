from memadmin.curation.detection.scoring.clustering import Edge, UnionFind, clusters


def test_union_find_joins_and_finds():
    union_find = UnionFind(5)
    union_find.union(0, 1)
    union_find.union(3, 4)
    union_find.union(1, 4)

    assert len({union_find.find(i) for i in (0, 1, 3, 4)}) == 1
    assert union_find.find(2) == 2


def test_a_chain_is_split_at_its_weakest_link():
    # A~B and B~C, but A and C are unrelated: plain union-find would join all three.
    scores = {(0, 1): 0.9, (1, 2): 0.7, (0, 2): 0.1}
    edges = [Edge(0, 1, 0.9, "vector"), Edge(1, 2, 0.7, "vector")]

    found = clusters(edges, pair_score=lambda a, b: (scores[(a, b)], "vector"), floor=0.5)

    assert [c.members for c in found] == [[0, 1]]


def test_a_clique_stays_one_cluster_with_its_weakest_link():
    scores = {(0, 1): 0.9, (1, 2): 0.8, (0, 2): 0.6}
    edges = [Edge(0, 1, 0.9, "vector"), Edge(1, 2, 0.8, "vector")]

    (cluster,) = clusters(edges, pair_score=lambda a, b: (scores[(a, b)], "lexical"), floor=0.5)

    assert cluster.members == [0, 1, 2]
    assert (cluster.weakest.a, cluster.weakest.b, cluster.weakest.similarity) == (0, 2, 0.6)
    assert len(cluster.edges) == 3


def test_a_pair_that_must_never_meet_splits_the_cluster():
    edges = [Edge(0, 1, 0.9, "vector"), Edge(1, 2, 0.8, "vector")]

    found = clusters(edges, pair_score=lambda a, b: None, floor=0.5)

    assert [c.members for c in found] == [[0, 1]]


def test_a_similarity_exactly_at_the_floor_counts_as_above():
    edges = [Edge(0, 1, 0.5, "vector")]

    assert [c.members for c in clusters(edges, pair_score=lambda a, b: None, floor=0.5)] == [[0, 1]]


def test_a_bridge_between_two_pairs_is_cut_although_it_is_not_the_weakest_edge():
    # Two translations (0-1, 2-3) joined by a slightly stronger false pair (1-2), every
    # other two members apart: cutting the weakest edge first would tear both
    # translations off and keep the bridge.
    edges = [
        Edge(0, 1, 0.5, "vector", confidence=0.353),
        Edge(1, 2, 0.3, "vector", confidence=0.365),
        Edge(2, 3, 0.5, "vector", confidence=0.352),
    ]

    found = clusters(edges, pair_score=lambda a, b: None, floor=0.2)

    assert sorted(c.members for c in found) == [[0, 1], [2, 3]]


def test_among_edges_that_stand_between_as_many_pairs_the_weakest_is_cut():
    # 0 and 2 are apart; both edges on the path between them (0-1, 1-2) separate them
    # alone, and the weaker goes: 3, which 0 accepts, stays.
    scores = {(0, 3): 0.8, (2, 3): 0.6}
    edges = [Edge(0, 1, 0.9, "vector"), Edge(1, 2, 0.6, "vector"), Edge(1, 3, 0.7, "vector")]

    def score(a, b):
        return (scores[(a, b)], "vector") if (a, b) in scores else None

    found = clusters(edges, pair_score=score, floor=0.5)

    assert [c.members for c in found] == [[0, 1, 3]]
