"""The minimal-pair suites (pairs/*.txt): every class read right in at least nine pairs
of ten, in English, German, French and Chinese, and no pair that is not one fact merged
without review. Judged as find_duplicates judges them: each pair a namespace of two
memories with no metadata (calibration.judge_pairs), no LLM."""

from pathlib import Path

import pytest

from memadmin.curation import calibration
from memadmin.curation.detection.judgement import Thresholds

SUITES = sorted((Path(__file__).parent / "pairs").glob("*.txt"))
# Issue 21 and 26: at least 90 % of each class.
BOUND = 0.9


@pytest.fixture(scope="module")
def outcomes() -> dict[str, list[calibration.PairOutcome]]:
    pairs = [pair for path in SUITES for pair in calibration.read_suite(path)]
    judged = calibration.judge_pairs(pairs, Thresholds.from_settings(), calibration.Vectors())
    found: dict[str, list[calibration.PairOutcome]] = {}
    for outcome in judged:
        found.setdefault(outcome.pair.suite, []).append(outcome)
    return found


def failures(found: list[calibration.PairOutcome]) -> list[str]:
    return [
        f"line {o.pair.line}: want {o.pair.label}, got {o.found}: "
        f"{o.pair.older!r} / {o.pair.newer!r}"
        for o in found
        if not o.passed
    ]


def test_every_suite_has_fifteen_pairs_or_more_in_all_four_languages(outcomes):
    from memadmin.store.lexicon import language_of

    for suite, found in outcomes.items():
        languages = {language_of(t) for o in found for t in (o.pair.older, o.pair.newer)}
        assert len(found) >= 15, suite
        assert {"en", "de", "fr", "zh"} <= languages, suite


@pytest.mark.parametrize("suite", [path.stem for path in SUITES])
def test_a_class_is_read_right_in_nine_pairs_of_ten(outcomes, suite):
    found = outcomes[suite]
    passed = sum(o.passed for o in found) / len(found)

    assert passed >= BOUND, "\n".join(failures(found))


def test_no_pair_that_is_not_one_fact_is_merged_without_review(outcomes):
    unsafe = [
        f"{o.pair.suite}:{o.pair.line}: {o.pair.older!r} / {o.pair.newer!r}"
        for found in outcomes.values()
        for o in found
        if o.unsafe
    ]

    assert unsafe == []


def test_no_one_word_substitution_is_merged_without_review(outcomes):
    # Issue 26: a title, an employer, a city, a nationality, a weekday, a tool, a food, a
    # person, a product: whatever else it is, never an automatic merge.
    found = outcomes["substitution"]

    assert len(found) >= 40
    assert [o for o in found if o.found == "automatic"] == []


def test_a_bad_suite_line_is_named_by_its_number(tmp_path):
    path = tmp_path / "broken.txt"
    path.write_text("# a comment\nduplicate | one | two\nmaybe | three | four\n")

    with pytest.raises(calibration.BadSuite, match=r"broken\.txt: line 3"):
        calibration.read_suite(path)
