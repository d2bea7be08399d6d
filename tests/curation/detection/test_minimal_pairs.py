"""The minimal-pair suites (pairs/*.txt), judged as find_duplicates judges them: each pair
a namespace of two memories with no metadata (calibration.judge_pairs). With no LLM, no
class is proposed wrong in more than one pair of ten (a doubtful pair waits in the
possible tier: not wrong); with an oracle judge answering the doubtful pairs from the
labels (curation/learning/oracle.py, through the real SDK), every class is read right in at least
nine pairs of ten, in English, German, French and Chinese; and no pair that is not one
fact is ever merged without review. The pairs kept out of every fit
(tests/data/held_out/probe_pairs.txt) are held to the same bound with no LLM."""

from pathlib import Path

import pytest

from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.learning import calibration
from memadmin.curation.learning import fitting as model_fit
from memadmin.curation.learning.oracle import Oracle
from memadmin.curation.llm import client as llm

SUITES = sorted((Path(__file__).parent / "pairs").glob("*.txt"))
# Issues 21 and 26: at least 90 % of each class read right (with the LLM band, issue 39);
# issue 39: with no LLM, at most 10 % proposed wrong.
BOUND = 0.9
WRONG_AT_MOST = 0.1


def by_suite(judged) -> dict[str, list[calibration.PairOutcome]]:
    found: dict[str, list[calibration.PairOutcome]] = {}
    for outcome in judged:
        found.setdefault(outcome.pair.suite, []).append(outcome)
    return found


@pytest.fixture(scope="module")
def vectors() -> calibration.Vectors:
    return calibration.Vectors()


@pytest.fixture(scope="module")
def outcomes(vectors) -> dict[str, list[calibration.PairOutcome]]:
    pairs = [pair for path in SUITES for pair in calibration.read_suite(path)]
    return by_suite(calibration.judge_pairs(pairs, Thresholds.from_settings(), vectors))


@pytest.fixture(scope="module")
def with_an_oracle(vectors) -> dict[str, list[calibration.PairOutcome]]:
    pairs = [pair for path in SUITES for pair in calibration.read_suite(path)]
    rows, labels = model_fit.load("minimal_pairs")
    with pytest.MonkeyPatch.context() as patch, Oracle(rows, labels, error_rate=0.0) as oracle:
        patch.setenv("ANTHROPIC_BASE_URL", oracle.url)
        patch.setenv("ANTHROPIC_API_KEY", "oracle-not-secret")
        judged = calibration.judge_pairs(
            pairs, Thresholds.from_settings(), vectors, session=llm.Session(max_calls=10_000)
        )
    return by_suite(judged)


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
def test_with_no_llm_a_class_is_proposed_wrong_in_one_pair_of_ten_at_most(outcomes, suite):
    found = outcomes[suite]
    wrong = [o for o in found if o.wrong]

    assert len(wrong) / len(found) <= WRONG_AT_MOST, "\n".join(failures(wrong))


@pytest.mark.parametrize("suite", [path.stem for path in SUITES])
def test_with_the_llm_band_a_class_is_read_right_in_nine_pairs_of_ten(with_an_oracle, suite):
    found = with_an_oracle[suite]
    passed = sum(o.passed for o in found) / len(found)

    assert passed >= BOUND, "\n".join(failures(found))


def test_with_no_llm_the_doubtful_pairs_are_apart_not_proposed(outcomes):
    # The same judgement with no LLM leaves pairs in the possible tier: they are neither
    # read right nor wrong, and there are some (the LLM band is where they are decided).
    doubtful = [o for found in outcomes.values() for o in found if o.found.startswith("possible")]

    assert doubtful
    assert all(not o.wrong and not o.passed for o in doubtful)


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


@pytest.mark.parametrize(
    ("name", "least"),
    [
        # Pairs written as an outside probe writes them, in styles no fitted set has
        # (docs/detection.md); 1 of 98 proposed wrong now.
        ("probe_pairs.txt", 70),
        # Two languages: a translation, two things of one kind, a changed value; 2 of 32.
        ("cross_language_pairs.txt", 30),
    ],
)
def test_pairs_kept_out_of_every_fit_are_proposed_wrong_in_one_of_ten_at_most(name, least, vectors):
    held_out = Path(__file__).parents[2] / "data" / "held_out" / name
    found = calibration.judge_pairs(
        calibration.read_suite(held_out), Thresholds.from_settings(), vectors
    )
    wrong = [o for o in found if o.wrong]

    assert len(found) >= least
    assert len(wrong) / len(found) <= WRONG_AT_MOST, "\n".join(failures(wrong))
    assert [o for o in found if o.unsafe] == []
