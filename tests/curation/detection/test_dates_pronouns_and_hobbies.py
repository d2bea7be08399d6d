"""Readings of round 10: a date written with digits ("3/14/1990", "14.03.1990"), a set of
pronouns one goes by ("she/her"), an opening that says only when ("Since 2024 works at
Stripe"), two relations one person holds towards another ("his brother" / "his
landlord"), the article of a rate ("10,000 a day": no ampere), "According to the user,",
a library's ".js" and a version's "v" ("Node.js v20"), a handle said of two nouns ("Zoom
handle" / "Zoom username"), what one earns, a quantity that "went up to" its new value,
two dimensions ("wide" / "deep"), and a hobby said as a stance ("Likes to play cricket" /
"No longer plays cricket")."""

import pytest

from memadmin.curation.detection.comparing import contrast, relations
from memadmin.curation.detection.reading.clause import read
from memadmin.curation.detection.reading.keytokens import key_tokens, subject
from tests.curation.detection.readings import relation, values


def dates(text: str) -> set[str]:
    return {t.value for t in key_tokens(text) if t.kind == "date"}


def test_a_date_written_with_digits():
    assert dates("Born on 3/14/1990.") == {"1990-03-14"}  # the month first
    assert dates("Born 14/3/1990.") == {"1990-03-14"}  # the day first
    assert dates("Born 14.03.1990.") == {"1990-03-14"}
    assert dates("Born 5/6/1990.") == {"1990"}  # either could be the month: its year
    assert dates("Born 40/6/1990.") == set()  # no day
    # None of its numbers is a value: no share of 3 in 14, no version.
    assert values("Born on 3/14/1990.") == []
    assert values("Born 14.03.1990.") == []
    assert ("share", "90") in values("Scored 18/20.")
    assert ("version", "1.2.3") in values("Runs version 1.2.3.")


def test_a_set_of_pronouns_is_a_value():
    names = {t.value for t in key_tokens("Uses they/them pronouns.") if t.kind == "name"}
    assert names == {"they/them"}
    assert contrast.key_token_differences("Uses they/them pronouns.", "Pronouns are she/her.")
    assert not contrast.key_token_differences("Pronouns: they/them.", "Uses they/them pronouns.")


def test_an_opening_that_says_only_when_leaves_the_subject_out():
    reading = read("Since 2024 works at Stripe.")
    assert reading.about_user and not reading.opening
    # An opening with a subject of its own keeps it unread ("After ~40 min, the J4 ...").
    assert read("After 40 min of cycling the J4 joint reached 71 °C.").opening


def test_the_article_of_a_rate_is_no_ampere():
    assert values("Steps goal is 10,000 a day.") == [("number", "10000"), ("rate", "1")]
    assert values("Draws 5 A at peak.") == [("current", "5")]


def test_a_library_and_its_version_named_two_ways():
    def names(text):
        return {t.value for t in key_tokens(text) if t.kind == "name"}

    assert names("Runs Node 20 in production.") == names("Production runs Node.js v20.")
    assert names("Uses Vue.js 3.") == {"vue 3"}


def test_a_compound_after_a_copula_is_no_subject():
    assert subject("Zoom handle is @dana.k") is None
    assert subject("api.acme.io is down") == "api.acme.io"


@pytest.mark.parametrize(
    ("older", "newer", "kind"),
    [
        ("Pronouns: he/him", "Pronouns: she/they", relations.NEW_VALUE),
        ("Since 2024 works at Stripe.", "Her brother works at Stripe.", relations.OTHER_SUBJECT),
        ("Since 2024 works at Stripe.", "Works at Stripe.", relations.SAME),
        # A person holds several relations towards another; not two partners at once.
        ("Jonas is his brother.", "Jonas is his landlord.", relations.OTHER_VALUE),
        ("Anna is her manager.", "Anna is her sister.", relations.OTHER_VALUE),
        ("Omar is his flatmate.", "Omar is his business partner.", relations.OTHER_VALUE),
        ("Tom is her boyfriend.", "Tom is her husband now.", relations.NEW_VALUE),
        ("Anna is her manager.", "Bob is her manager now.", relations.NEW_VALUE),
        # A handle said of two nouns names one slot; a host many things run on does not.
        ("Zoom handle is @dana.k", "Her Zoom username is dana.k.", relations.UNREAD),
        (
            "The staging target of sync-worker is Fly.io.",
            "The staging target of report-worker is Fly.io.",
            relations.OTHER_SUBJECT,
        ),
        ("Salary is $4.2k a month.", "Now earns $5k a month.", relations.NEW_VALUE),
        ("Rent is 1200 a month.", "Rent went up to 1350.", relations.NEW_VALUE),
        ("The sofa is 2.2 m wide.", "The sofa is 0.9 m deep.", relations.OTHER_PREDICATE),
        ("The desk is 1.6 m wide.", "The desk is 1.2 m wide.", relations.NEW_VALUE),
        ("Likes to play cricket", "No longer plays cricket", relations.OPPOSITE),
        ("Enjoys playing tennis", "Plays tennis", relations.REFINES),
        ("Born on 3/14/1990.", "Birthday is March 14.", relations.SAME),
        ("Born 14.03.1990.", "Was born on 14 May 1990.", relations.NEW_VALUE),
    ],
)
def test_relations(older, newer, kind):
    assert relation(older, newer) == kind


def test_according_to_the_user_is_a_preamble():
    reading = read("According to the user, they moved to Boulder last month.")
    assert reading.said_when and reading.predicate.name == "move"
