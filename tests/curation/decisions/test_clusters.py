"""A split by the pair model (curation/decisions/clusters.py: model_split): the two parts
that make the cluster's pairs likeliest."""

import itertools

from memadmin.curation.decisions.clusters import model_split


def test_a_split_keeps_what_the_model_calls_one_fact_together_not_what_is_most_alike():
    """The issue's case: "Ines A. lives in Lyon." is most alike "Ines D. lives in Lyon."
    (a cosine of 0.95), but the model reads them as two people and "Ines A. is based in
    Lyon." as her own fact: the split keeps Ines A.'s two memories together."""
    ines_a, ines_d, based = 1, 2, 3
    edges = [
        {"a": ines_a, "b": ines_d, "similarity": 0.95, "confidence": 0.3},
        {"a": ines_a, "b": based, "similarity": 0.81, "confidence": 0.9},
        {"a": ines_d, "b": based, "similarity": 0.78, "confidence": 0.2},
    ]

    assert model_split([1, 2, 3], edges) == [[ines_a, based], [ines_d]]


def test_a_split_of_many_weighs_the_model_beyond_a_whole_search():
    members = list(range(1, 19))  # 18 members: past WHOLE_SEARCH
    twins = {frozenset(pair) for pair in itertools.combinations(range(1, 10), 2)}
    twins |= {frozenset(pair) for pair in itertools.combinations(range(10, 19), 2)}
    edges = [
        {"a": a, "b": b, "similarity": 0.9, "confidence": 0.9 if {a, b} in twins else 0.1}
        for a, b in itertools.combinations(members, 2)
    ]

    assert model_split(members, edges) == [list(range(1, 10)), list(range(10, 19))]
