"""Readings of round 8: phone numbers as one value, a 12-hour clock said without its half of
the day, "thrice weekly", an age that "turned" at a time, an adjective that opens a memory
with no verb ("Allergic to penicillin"), a comparative or superlative that is no verb
("Personal best in the marathon: ..."), the relation one holds towards several people
("Ana is Ben's sister" / "... Carl's sister"), a cessation of the name one's verb takes
("Left Shopify"), an owner a subject adds ("The kid's school" / "School"), a plural
owner's bare apostrophe ("Kids' bedtime"), and someone named by a relation against no one
across two languages."""

import pytest

from memadmin.curation.detection.comparing import contrast, relations
from memadmin.curation.detection.reading import clocks, keytokens, quantities, roles
from memadmin.curation.detection.reading.clause import read
from tests.curation.detection.readings import relation, values


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Phone: +49 170 1234567.", [("phone", "491701234567")]),
        ("Call her on 0171 2345678.", [("phone", "01712345678")]),
        ("Reach him at (555) 123-4567.", [("phone", "5551234567")]),
        ("His number is 555-123-4567.", [("phone", "5551234567")]),
        ("Her number is +44 (0) 20 7946 0958.", [("phone", "442079460958")]),
        ("Score was 3 5 7.", [("number", "3"), ("number", "5"), ("number", "7")]),  # none
        ("Goes running thrice weekly.", [("rate", "0.43")]),
        ("Takes it twice daily.", [("rate", "2")]),
        ("Zweimal wöchentlich.", [("rate", "0.29")]),
    ],
)
def test_phone_numbers_and_counted_rates(text, expected):
    assert values(text) == expected


def test_a_date_is_no_phone_number():
    for text in ("Due on 01.02.2024.", "Born on 03 05 2024.", "Opened 2024-03-05."):
        assert "phone" not in {measure for measure, _ in values(text)}


def test_a_twelve_hour_clock_without_its_half_of_the_day_is_either():
    assert quantities.one_time_of_day("07:30", "19:30", "Dinner is at 7:30.", "At 19:30.")
    assert quantities.one_time_of_day(
        "19:30", "07:30", "Bed at 7:30 pm.", "Bed at half past seven."
    )
    # A half of the day said, or a 24-hour clock: no.
    assert not quantities.one_time_of_day("07:30", "19:30", "Up at 7:30 am.", "At 19:30.")
    assert not quantities.one_time_of_day("07:30", "19:30", "Up at 07:30.", "At 19:30.")
    assert not quantities.one_time_of_day("07:30", "20:30", "Up at 7:30.", "At 20:30.")
    assert not contrast.key_token_differences("Dinner is at 7:30.", "Dinner is at 19:30.")


def test_an_adjective_opening_a_memory_has_the_copula_it_leaves_out():
    reading = read("Allergic to penicillin.")
    assert reading.predicate is not None and reading.predicate.name == "be"
    assert [t.lemma for t in reading.objects] == ["allergic", "penicillin"]
    assert read("Responsible for hiring.").predicate.name == "be"  # "for" a marker
    # A noun, or a word of a class, keeps its reading.
    assert read("Dinner with the team on Friday.").predicate is None
    assert read("Based in Lyon.").predicate.name != "be"


def test_a_comparative_or_superlative_is_no_verb():
    reading = read("Personal best in the marathon: 3 hours 12 minutes.")
    assert reading.tokens[reading.predicate_at].text == ":"
    assert not reading.event


def test_an_age_turned_at_a_time_is_the_age_since():
    reading = read("Luna turned 13 in March.")
    assert reading.predicate.name == "age" and not reading.event
    assert ("value", "calendar:156") in {
        (t.kind, t.value) for t in read("Luna turned 13 last week.").tokens
    }
    # "old" of "12 years old" is a word of the value.
    assert "old" not in [t.text for t in read("Luna is 12 years old.").objects]


def test_a_plural_owner_is_no_name():
    assert "kids" not in {t.value for t in keytokens.key_tokens("Kids' bedtime is at 8.")}
    assert "jonas" in {t.value for t in keytokens.key_tokens("Jonas' team moved to Berlin.")}


@pytest.mark.parametrize(
    ("older", "newer", "kind"),
    [
        # A relation held towards several, or towards one at a time.
        ("Ana is Ben's sister.", "Ana is Carl's sister.", relations.OTHER_VALUE),
        ("Ana is Ben's wife.", "Ana is Carl's wife.", relations.NEW_VALUE),
        ("Ben's sister is Ana.", "Ben's sister is Clara.", relations.NEW_VALUE),
        # The name one's verb takes first, ended; not one a later clause names.
        (
            "Works at Shopify as a staff engineer.",
            "Left Shopify; now at Stripe.",
            relations.OPPOSITE,
        ),
        (
            "Asked the agent to summarise the Lumen Health handbook.",
            "Left Lumen Health; now at Quarry Labs.",
            relations.UNREAD,  # not taken back: the name qualifies the handbook
        ),
        # An owner added to one subject, none said on the other.
        ("The kid's school starts at 8:10.", "School starts at 8:30 now.", relations.NEW_VALUE),
        ("Her son's school starts at 8:10.", "Her school starts at 9:00.", relations.OTHER_SUBJECT),
        # A number changed by a verb of amount after "up".
        (
            "The staging cluster has 3 nodes.",
            "Staging cluster scaled up to 5 nodes.",
            relations.NEW_VALUE,
        ),
        ("Luna is 12 years old.", "Luna turned 13 in March.", relations.NEW_VALUE),
        ("Allergic to penicillin.", "Allergic to latex.", relations.OTHER_VALUE),
        # Across two languages: someone named by a relation, and no one.
        ("Er wohnt in Hamburg.", "His brother lives in Hamburg.", relations.OTHER_SUBJECT),
        ("Sein Bruder wohnt in Hamburg.", "His brother lives in Hamburg.", relations.SAME),
        # A holder said in the passive, and "heads" as "leads".
        (
            "Marta Silva heads the payments squad.",
            "The payments squad is now led by Joe Park.",
            relations.NEW_VALUE,
        ),
        ("Ben heads the design team.", "Ben is the head of the design team.", relations.SAME),
        ("Auth-svc is owned by Ines K.", "The owner of auth-svc is Ines K.", relations.SAME),
        # A name said without its number, replaced.
        ("Has a Pixel 8.", "Switched from the Pixel to an iPhone 15.", relations.NEW_VALUE),
        (
            "Her car is a blue 2017 Mazda 3.",
            "Sold the Mazda; now drives a Kia EV6.",
            relations.OPPOSITE,
        ),
        # A word written closed on one side and apart on the other.
        ("Timezone: CET.", "Is in the Central European time zone.", relations.SAME),
        # One phone number said of two nouns.
        ("Phone: +49 170 1234567.", "Mobile number is +49 170 1234567.", relations.UNREAD),
    ],
)
def test_relations(older, newer, kind):
    assert relation(older, newer) == kind


def test_a_half_of_the_day_written_next_to_its_digits_is_said():
    assert not quantities.one_time_of_day("02:00", "14:00", "Backups at 2am.", "At 2pm.")


def test_a_holder_in_the_passive_is_read_role_first():
    said = roles.role_first(read("The payments squad is now led by Joe Park."))
    assert said == "The lead of the payments squad is now Joe Park."
    # Not a verb of no holder, nor a holder written without capitals.
    assert roles.role_first(read("The office is run by Sven.")) == ""
    assert roles.role_first(read("The repo is owned by the platform team.")) == ""


def test_a_clock_may_say_a_time_taken():
    assert clocks.a_time_taken("21:40", "1300", "His 5k best is 21:40.")  # minutes and seconds
    assert clocks.a_time_taken("03:12", "11520", "Ran it in 3:12.")  # hours and minutes
    assert not clocks.a_time_taken("21:40", "1320", "His 5k best is 21:40.")
    assert relation("His 5k best is 21:40.", "His 5k best is 21 min 40 s.") == relations.SAME
