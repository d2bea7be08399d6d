"""The conflict queue's topics: a subject and its slot, two people two groups."""

from memadmin.curation.detection.reading.topics import topic_of


def test_two_people_told_apart_by_an_initial_are_two_topics():
    ines_a = topic_of("Ines A. lives in Lyon.", "Ines A. lives in Paris.")
    ines_d = topic_of("Ines D. lives in Lyon.", "Ines D. lives in Nice.")

    assert (ines_a, ines_d) == ("ines a. lives", "ines d. lives")


def test_a_unit_of_one_letter_is_no_topic_word_and_a_modifier_stays():
    assert topic_of("The gripper force is 12 N.", "The gripper force is 8 N.") == "gripper force"
    assert (
        topic_of(
            "Emil owes 529 euros to the welder from Lima.",
            "Emil owes 569 euros to the welder from Lima.",
        )
        == "emil owes euros welder lima"
    )
