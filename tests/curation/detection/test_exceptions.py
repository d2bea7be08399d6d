"""A negation that excepts one thing says that thing alone ("never answers in any
language but English", "ne boit que de l'eau": reading.polarity.denies), and a value
said to be the only one leaves no room for another (comparing.slots.exclusive)."""

import pytest

from memadmin.curation.detection.comparing import contrast, frames, relations, slots
from memadmin.curation.detection.reading import polarity
from memadmin.curation.detection.reading.clause import read


@pytest.mark.parametrize(
    "text",
    [
        "Never answers in any language but English.",
        "Doesn't drink anything except water at work.",
        "Doesn't use anything other than Linux.",
        "Eats nothing but rice for lunch.",
        "Trusts no one but her sister with the keys.",
        "Ne boit que de l'eau.",
        "N’utilise que Vim pour coder.",
        "Trinkt nichts außer Wasser.",
        "No bebe más que agua.",
    ],
)
def test_a_negation_that_excepts_one_thing_asserts_it_alone(text):
    found = read(text)
    assert found.sign == 1
    assert slots.exclusive(found)


@pytest.mark.parametrize(
    "text",
    [
        "Doesn't eat meat, but eats fish.",  # "but" joins two clauses: meat is denied
        "Ne boit pas que de l'eau.",  # not water alone
        "Never drinks coffee.",
        "Ne boit pas de café.",
        "Trinkt keinen Kaffee.",
    ],
)
def test_a_negation_that_excepts_nothing_still_denies(text):
    assert read(text).sign == -1


def test_an_excepted_name_is_asserted_where_the_named_negation_ends():
    asserted, negated = polarity.negated_names("Does not use Jenkins but GitLab.")
    assert "jenkins" in negated and "gitlab" in asserted
    assert "english" in polarity.negated_names("Never answers in any language but English.")[0]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Always answers in English.", "Never answers in any language but English."),
        ("Only drinks water at work.", "Never drinks anything but water at work."),
        ("Ne boit que de l'eau.", "Boit uniquement de l'eau."),
        ("Trinkt nur Wasser.", "Trinkt nichts außer Wasser."),
    ],
)
def test_an_exception_and_the_same_value_said_plainly_say_the_same(a, b):
    reading_a, reading_b = read(a), read(b)
    assert frames.compare(reading_a, reading_b).kind in (relations.SAME, relations.REFINES)
    assert contrast.polarity_difference(a, b) is None


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Only drinks water.", "Drinks coffee every morning."),
        ("Never drinks anything but water at work.", "Drinks coffee at work."),
        ("Boit uniquement de l'eau.", "Boit du café."),
        ("Only uses Linux.", "Uses Windows at work."),
        ("Only drinks tea.", "Only drinks coffee."),
    ],
)
def test_a_value_said_to_be_the_only_one_leaves_no_room_for_another(older, newer):
    assert frames.compare(read(older), read(newer)).kind == relations.NEW_VALUE


def test_an_only_value_of_another_slot_is_no_new_value():
    found = frames.compare(read("Only works day shifts."), read("Works at the city hospital."))
    assert found.kind != relations.NEW_VALUE


@pytest.mark.parametrize(
    ("older", "newer", "kind"),
    [
        # A subject said to be the only one: who does it is one slot.
        ("Only Priya has admin rights on the cluster.", "Marco has admin rights on the cluster.",
         relations.NEW_VALUE),
        ("Nobody but Priya has admin rights on the cluster.",
         "Marco has admin rights on the cluster.", relations.NEW_VALUE),
        ("Only Priya can deploy to prod.", "Only Marco can deploy to prod.", relations.NEW_VALUE),
        # Two subjects otherwise, or where the two say different things.
        ("Priya has admin rights on the cluster.", "Marco has admin rights on the cluster.",
         relations.OTHER_SUBJECT),
        ("Only Priya has admin rights on the cluster.", "Marco has a laptop.",
         relations.OTHER_SUBJECT),
    ],
)  # fmt: skip
def test_a_subject_said_to_be_the_only_one_leaves_no_room_for_another(older, newer, kind):
    assert frames.compare(read(older), read(newer)).kind == kind
