"""The clauses after the first (comparing.later) and the words of opposite states that
reverse a statement (comparing.opposites, lexicon.toml: polarity.opposite_states)."""

import pytest

from memadmin.curation.detection.comparing import contrast, frames, later, opposites, relations
from memadmin.curation.detection.comparing import rules as judgement
from memadmin.curation.detection.reading.clause import read


def relation(older: str, newer: str) -> str:
    reading_a, reading_b = read(older), read(newer)
    first = frames.compare(reading_a, reading_b)
    return later.of_later_clauses(reading_a, reading_b, first).kind


@pytest.mark.parametrize(
    ("older", "newer", "kind"),
    [
        # The first clauses say the same; what follows does not.
        ("Works at Acme; leads the data team.", "Works at Acme; leads the web team.",
         relations.OTHER_VALUE),
        ("Is vegetarian. Eats fish on Fridays.", "Is vegetarian. Never eats fish.",
         relations.OPPOSITE),
        ("Lives in Oslo - works in Bergen.", "Lives in Oslo - works in Trondheim.",
         relations.NEW_VALUE),
        # The same later clause, or none on one side: the first clauses' relation.
        ("Works at Acme; leads the data team.", "Works at Acme; leads the data team!",
         relations.SAME),
        ("Works at Acme.", "Works at Acme; leads the data team.", relations.SAME),
        # A fragment read as two events where a value differs: the key tokens read it.
        ("Plays chess online - rated 1500.", "Plays chess online - rated 1720.", relations.SAME),
        # What "not" sets apart is the clause's, no later clause.
        ("Prefers tea, not coffee.", "Prefers tea, not juice.", relations.SAME),
        # A pronoun stands for what the first clause names, not for someone else.
        ("Has a dog named Rex; he is a beagle.", "Has a dog named Rex; Rex is a beagle.",
         relations.SAME),
        ("Has a cat named Miso; she is 3.", "Has a cat named Miso; Miso is 5.",
         relations.NEW_VALUE),
        ("Owns a Golf; it is blue.", "Owns a Golf; the Golf is red.", relations.NEW_VALUE),
        ("Works with Tom; he leads the data team.", "Works with Tom; Anna leads the data team.",
         relations.OTHER_SUBJECT),
        ("Has a brother, Luis; he lives in Quito.", "Has a brother, Luis; Marta lives in Lima.",
         relations.OTHER_SUBJECT),
    ],
)  # fmt: skip
def test_where_the_first_clauses_say_the_same_the_later_ones_decide(older, newer, kind):
    assert relation(older, newer) == kind


def test_a_later_clause_is_read_from_its_own_first_word():
    found = later.later_clause(read("Safety rule: arms stop at 1 m; humans stay out."))
    assert found is not None and found.text == "humans stay out."
    assert later.later_clause(read("Works at Acme.")) is None


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Deploys on Fridays, but only after noon.", "Deploys on Fridays, but only before noon."),
        ("Is vegetarian. Eats fish on Fridays.", "Is vegetarian. Never eats fish."),
        ("Works at Acme; leads the data team.", "Works at Acme; leads the web team."),
    ],
)
def test_no_automatic_merge_where_a_later_clause_differs(older, newer):
    thresholds = judgement.Thresholds.from_settings()
    assert not judgement.automatic_merge(older, newer, cosine=0.995, thresholds=thresholds)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Deploys only after noon.", "Deploys only before noon."),
        ("Keeps the thermostat above 20 degrees.", "Keeps the thermostat below 20 degrees."),
        ("Runs more than 10 km a week.", "Runs less than 10 km a week."),
        ("Arrive avant la réunion.", "Arrive après la réunion."),
        # Antonyms the embeddings put close.
        ("The office is open on Sundays.", "The office is closed on Sundays."),
        ("The quota was increased to 50 GB.", "The quota was decreased to 50 GB."),
        ("The gym opens early on Saturdays.", "The gym opens late on Saturdays."),
        ("The staging server is online.", "The staging server is offline."),
        ("All tests must pass before merging.", "Some tests may fail before merging."),
        ("Works full-time at the clinic.", "Works part-time at the clinic."),
        # A negation that is one of the pair is the opposite, not its denial.
        ("Always reviews the diff.", "Never reviews the diff."),
    ],
)
def test_words_of_opposite_direction_reverse_a_statement(a, b):
    assert contrast.polarity_difference(a, b) is not None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # German "vor" / "nach" are no directions here: "ago" and "to".
        ("Zog vor zwei Jahren nach Berlin.", "Zog nach Berlin."),
        ("Runs more than 10 km a week.", "Runs more than 12 km a week."),  # a value
        # The opposite word denied says the same.
        ("The office is closed on Sundays.", "The office doesn't open on Sundays."),
        # Two slots, not one reversed: no such pair in the lexicon.
        ("First name is Ana.", "Last name is Silva."),
        ("Start date is May 1.", "End date is June 30."),
        # A negation that excepts a thing is no denial ("never ... but English").
        ("Always answers in English.", "Never answers in any language but English."),
    ],
)
def test_words_that_only_look_opposite_reverse_nothing(a, b):
    assert contrast.polarity_difference(a, b) is None


@pytest.mark.parametrize(
    ("older", "newer", "kind"),
    [
        # Two values of a slot that are opposite states: one statement reversed.
        ("Parks inside the garage.", "Parks outside the garage.", relations.OPPOSITE),
        ("Likes the window open at night.", "Likes the window shut at night.",
         relations.OPPOSITE),
        # Two values that are no such pair stay two.
        ("Parks inside the garage.", "Parks inside the shed.", relations.OTHER_VALUE),
        # One side denies the opposite of the other's: one statement.
        ("The staging server is offline.", "The staging server is not online.",
         relations.SAME),
        ("Her account is active.", "Her account is not active.", relations.OPPOSITE),
    ],
)  # fmt: skip
def test_two_values_that_are_opposite_states_reverse_one_statement_or_deny_its_opposite(
    older, newer, kind
):
    reading_a, reading_b = read(older), read(newer)
    found = opposites.reversed_values(frames.compare(reading_a, reading_b), reading_a, reading_b)
    assert found.kind == kind
