"""Readings of round 11: a word one side writes without its accents ("Lopez" /
"López"), a stance denied by a contraction ("Isn't a fan of"), and a memory whose news
comes first and whose fact follows ("Got a new job; now works at Shopify.")."""

import pytest

from memadmin.curation.detection.comparing import later, relations
from memadmin.curation.detection.reading import polarity, roles
from memadmin.curation.detection.reading.spelling import one_spelling
from memadmin.curation.detection.scoring.judgement import Judgement
from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.learning import calibration
from tests.curation.detection.readings import relation


@pytest.fixture(scope="module")
def vectors() -> calibration.Vectors:
    return calibration.Vectors()


def judged(older: str, newer: str, vectors) -> Judgement:
    rows = [
        {"id": "a", "content": older, "created_at": "2026-01-01T00:00:00+00:00"},
        {"id": "b", "content": newer, "created_at": "2026-02-01T00:00:00+00:00"},
    ]
    memories = [calibration.as_memory(row) for row in rows]
    found = calibration.judge_namespace(memories, Thresholds.from_settings(), vectors)
    ((_, judgement),) = found.judgements.items()
    return judgement


def test_a_word_written_with_and_without_its_accents_is_one_spelling():
    assert one_spelling("Maria Lopez is the CFO.", "Maria López is the CFO.") == (
        "Maria Lopez is the CFO.",
        "Maria Lopez is the CFO.",
    )
    assert one_spelling("José García handles payroll.", "Payroll: Jose Garcia.") == (
        "Jose Garcia handles payroll.",
        "Payroll: Jose Garcia.",
    )
    # Both sides alike keep their accents (the lexicon's words have theirs); so do words
    # of two letters, and kana, whose marks make other words.
    assert one_spelling("Préfère le thé.", "Préfère le café.") == (
        "Préfère le thé.",
        "Préfère le café.",
    )
    assert one_spelling("Wohnt in der Nähe.", "Où est-il ou pas?")[1] == "Où est-il ou pas?"
    assert one_spelling("かきが好き。", "かぎがない。") == ("かきが好き。", "かぎがない。")


def test_a_name_without_its_accents_is_the_same_person(vectors):
    same = judged("Maria Lopez is the CFO.", "The CFO is Maria López.", vectors)
    assert same.p_one >= 0.8  # was a conflict at 0.98: "one slot, two values: Lopez / López"
    other = judged("Maria Lopez is the CFO.", "The CFO is Mario Lopes.", vectors)
    assert other.probabilities[1] > other.p_one


def test_a_stance_denied_by_a_contraction():
    assert polarity.stance("Isn't a fan of horror films.") == (
        frozenset(),
        frozenset({"isn't a fan"}),
    )
    assert polarity.stance("Is not keen on sushi.")[1] == {"not keen on"}
    assert polarity.stance("Is a fan of horror films.")[0] == {"fan"}


def test_two_denials_of_one_stance_are_no_contradiction(vectors):
    both = judged("Isn't a fan of horror films.", "Doesn't like horror movies.", vectors)
    assert both.p_one > both.probabilities[1]  # was a conflict at 0.85
    flipped = judged("Is a fan of horror films.", "Isn't a fan of horror films.", vectors)
    assert flipped.probabilities[1] >= 0.8


@pytest.mark.parametrize(
    ("older", "newer", "kind"),
    [
        ("Works at Spotify.", "Got a new job; now works at Shopify.", relations.NEW_VALUE),
        ("Works at Spotify.", "Got a new job. Now works at Shopify.", relations.NEW_VALUE),
        ("Got married; lives in Paris.", "Lives in Berlin.", relations.NEW_VALUE),
        ("Lives in Berlin.", "Got married; lives in Berlin.", relations.REFINES),
        # The next clause says something else again: the first clauses' reading stays.
        ("Works at Spotify.", "Got a new job; loves the commute.", relations.OTHER_PREDICATE),
    ],
)
def test_the_fact_after_the_news(older, newer, kind):
    first = roles.read_both(older, newer)
    assert relation(older, newer) == relations.OTHER_PREDICATE  # the first clauses alone
    assert later.of_next_clause(*first, relations.Relation(relations.OTHER_PREDICATE)).kind == kind


def test_the_fact_after_the_news_is_a_changed_value(vectors):
    found = judged("Works at Spotify.", "Got a new job; now works at Shopify.", vectors)
    assert found.probabilities[1] >= 0.8  # was two facts at 0.75
