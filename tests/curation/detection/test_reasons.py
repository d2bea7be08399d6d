"""Reasons name the values as the memories write them: versions with their name, lengths
with their unit, names in their case (never the canonical values a reader cannot find)."""

import pytest

from memadmin.curation.detection.comparing import contrast, frames
from memadmin.curation.detection.comparing.contrast import as_written
from memadmin.curation.detection.reading import clause as reading


@pytest.mark.parametrize(
    ("older", "newer", "detail"),
    [
        ("Staging runs Postgres 15.", "Staging runs Postgres 16.", "Postgres 15 / Postgres 16"),
        ("The shelf is 42 cm deep.", "The shelf is 45 cm deep.", "42 cm / 45 cm"),
        ("The staging target is Azure", "The staging target is Fly.io", "Azure / Fly.io"),
        # A value of several words, whole.
        (
            "Her commute takes 1 h 15 min.",
            "Her commute takes 90 minutes.",
            "1 h 15 min / 90 minutes",
        ),
        (
            "Deploys happen every Tuesday and Thursday.",
            "Deploys now happen daily.",
            "every Tuesday and Thursday / daily",
        ),
    ],
)
def test_a_slot_with_two_values_names_them_as_written(older, newer, detail):
    assert frames.compare(reading.read(older), reading.read(newer)).detail == detail


def test_two_subjects_are_named_as_written():
    relation = frames.compare(
        reading.read("Anna K. wohnt in Bremen."), reading.read("Anna M. wohnt in Leipzig.")
    )

    assert (relation.kind, relation.detail) == (frames.OTHER_SUBJECT, "Anna K. / Anna M.")


@pytest.mark.parametrize(
    ("older", "newer", "said"),
    [
        (
            "The shelf is 42 cm deep.",
            "The shelf is 45 cm deep.",
            "quantity (length): 42 cm / 45 cm",
        ),
        ("Backups run at 3 am.", "Backups run at 04:00.", "time: 3 am / 04:00"),
        ("The meeting is on Tuesday", "The meeting is on Thursday", "weekday: Tuesday / Thursday"),
        # A span in weeks against one in calendar years: each as written, not in seconds.
        (
            "Sprints are two weeks long.",
            "Raw readings are retained for 2 years.",
            "quantity (duration): two weeks / 2 years",
        ),
    ],
)
def test_a_key_token_difference_reads_as_written(older, newer, said):
    (difference,) = contrast.key_token_differences(older, newer)
    assert as_written(difference, older, newer) == said


def test_two_things_are_named_by_their_words_not_their_stems():
    said = contrast.different_things("Max upload size is 10 MB.", "Max download size is 25 MB.")

    assert said == "upload / download"
