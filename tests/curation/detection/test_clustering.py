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
