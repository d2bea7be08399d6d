"""Detection that needs nothing but the text: the labelled sets scored as they are and
with their metadata changed (tags emptied, renamed or made one per memory, categories
made one, dates moved a year, lines shuffled, all metadata gone) give the same figures,
within 0.02, and never an unsafe automatic merge (calibration.invariance; the README's
table is bench/calibrate.py --perturb)."""

from pathlib import Path

import pytest

from memadmin.curation.detection.thresholds import Thresholds
from memadmin.curation.learning import calibration

EVERYDAY = Path(__file__).resolve().parents[2] / "data" / "everyday"
TOLERANCE = 0.02


@pytest.fixture(scope="module")
def vectors() -> calibration.Vectors:
    return calibration.Vectors()


def invariance_of(folder: Path, vectors) -> list[calibration.InvarianceRow]:
    rows, labels = calibration.load_set(folder)
    return calibration.invariance(rows, labels, Thresholds.from_settings(), vectors)


def assert_invariant(table: list[calibration.InvarianceRow]) -> None:
    base = table[0].score
    for row in table:
        assert row.score.unsafe_auto_merges == [], row.name
        assert calibration.largest_change(base, row.score) <= TOLERANCE, (
            row.name,
            row.score.summary(),
        )


def test_the_dev_set_reads_the_same_whatever_its_metadata(dev_memories_path, vectors):
    table = invariance_of(dev_memories_path.parent, vectors)

    assert_invariant(table)
    assert [row.name for row in table] == ["as labelled", *calibration.PERTURBATIONS]


def test_the_everyday_set_reads_the_same_whatever_its_metadata(vectors):
    assert_invariant(invariance_of(EVERYDAY, vectors))


def test_the_dev_set_reaches_the_targets_with_no_metadata(dev_memories_path, vectors):
    table = {row.name: row.score for row in invariance_of(dev_memories_path.parent, vectors)}

    score = table["no metadata"]
    assert score.precision >= 0.93
    assert score.recall >= 0.45
    assert score.conflict_precision >= 0.85
    assert score.conflict_recall >= 0.55


@pytest.mark.parametrize(
    ("folder", "recall", "conflict_recall"),
    [("everyday", 0.75, 0.9), ("everyday2", 0.9, 0.9), ("everyday3", 0.7, 0.8)],
)
def test_everyday_memories_reach_their_floor(vectors, folder, recall, conflict_recall):
    # Short memories in the voices agents use, written for memadmin (tests/data/everyday*).
    # The proposed tier holds the precision target; with the possible tier, which waits
    # apart for a curator or the LLM, the recall the rules had before the calibrated
    # model (what they proposed at a lower precision).
    rows, labels = calibration.load_set(EVERYDAY.parent / folder)
    outputs = calibration.plan_set(rows, Thresholds.from_settings(), vectors)
    proposed = calibration.score(labels, outputs)
    reached = calibration.score(labels, calibration.with_possible(outputs))

    assert proposed.precision >= 0.93
    assert proposed.conflict_precision >= 0.93
    assert reached.recall >= recall
    assert reached.conflict_recall >= conflict_recall
    assert proposed.unsafe_auto_merges == []


def test_a_store_in_a_style_no_fit_saw_keeps_people_and_things_apart(vectors):
    # tests/data/held_out/templated: one user per namespace, many people told apart by an
    # initial ("Yuki A." / "Yuki R."), things by a name after their noun ("the welder
    # from Lima" / "from Oslo"), as Mem0 writes from templates; kept out of every fit.
    rows, labels = calibration.load_set(EVERYDAY.parent / "held_out" / "templated")
    proposed = calibration.score(
        labels, calibration.plan_set(rows, Thresholds.from_settings(), vectors)
    )

    assert proposed.false_pairs == []
    assert len(proposed.false_conflicts) <= 2
    assert proposed.conflict_recall >= 0.75
    assert proposed.unsafe_auto_merges == []


def test_a_lost_guard_leaves_its_pair_unscored():
    rows = [
        {"id": "a", "namespace": "n", "content": "x", "created_at": "2026-01-01T00:00:00Z"}
        | {"category": "config"},
        {"id": "b", "namespace": "n", "content": "x", "created_at": "2026-01-01T00:00:00Z"}
        | {"category": "preference"},
    ]
    labels = {"duplicate_groups": [], "conflicts": [], "guarded_pairs": [["a", "b"]]}

    after = calibration.labels_after(
        labels, rows, calibration.PERTURBATIONS["one category"](rows, None)
    )

    assert after["guarded_pairs"] == []
    assert after["unscored_pairs"] == [["a", "b"]]


def test_a_store_written_in_other_words_and_languages_proposes_nothing_false(vectors):
    # tests/data/held_out/conversational: facts kept from chats in the words each chat
    # used (other words, German, Spanish, Japanese, compound quantities, roles and their
    # synonyms), kept out of every fit. Without an LLM the readers are blind to most of
    # its paraphrases; what they propose must still be right (two Spanish sentences told
    # apart as two languages went to the multilingual bar for a pair across languages,
    # proposed as one fact), and what they cannot read waits in the possible tier: as much
    # of it as the rules before the model proposed on the store issue 48 scored (0.69 /
    # 0.56; a false pair between two Spanish sentences, a bridge between two
    # translations, kept both out of it until clusters were split at their bridges).
    rows, labels = calibration.load_set(EVERYDAY.parent / "held_out" / "conversational")
    outputs = calibration.plan_set(rows, Thresholds.from_settings(), vectors)
    proposed = calibration.score(labels, outputs)
    reached = calibration.score(labels, calibration.with_possible(outputs))

    assert proposed.false_pairs == [] and proposed.false_conflicts == []
    assert proposed.unsafe_auto_merges == []
    assert reached.recall >= 0.69 and reached.conflict_recall >= 0.56
