"""Values written in more than one token or in words ("72°F", "65 m²", "1m80", "$1.5M",
"two dozen", "half past nine", "one in four", "the second floor", "a decade"), two
conversions of one value ("60 mph" / "97 km/h", "450 °F" / "230 °C"), days of each week
said together ("Mon-Fri", "on weekdays", "Tue/Thu"), e-mail addresses, a role's holder
against the role said first ("Dr. Ortiz is her GP." / "Her GP is Dr. Lang."), and a
change's former value said again by a later memory."""

import pytest

from memadmin.curation.detection.comparing import relations, things
from memadmin.curation.detection.reading import keytokens, roles, rounding
from memadmin.curation.detection.reading.clause import read
from tests.curation.detection.readings import relation, values


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Needs two dozen chairs.", [("number", "24")]),
        ("Needs a dozen eggs.", [("number", "12")]),
        ("The startup raised $1.5M.", [("usd", "1500000")]),
        ("Raised €2bn.", [("eur", "2000000000")]),
        ("Her flat is 65 square metres.", [("area", "65")]),
        ("Her apartment is 65 m².", [("area", "65")]),
        ("The office is 120 sq m.", [("area", "120")]),
        ("The thermostat is set to 72°F.", [("temperature", "22.222222")]),
        ("The thermostat is set to 22 °C.", [("temperature", "22")]),
        ("A 90° angle.", [("angle-or-temperature", "90")]),  # no scale: as before
        ("Is 1m80.", [("length", "1.8")]),
        ("Has lived in Porto for a decade.", [("calendar", "120")]),
        ("The meeting starts at half past nine.", [("time", "09:30")]),
        ("Leaves at a quarter to ten.", [("time", "09:45")]),
        ("One in four users churns.", [("share", "25")]),
        ("Lives on the second floor.", [("number", "2")]),
        ("The report is due on the fifteenth.", [("number", "15")]),
        ("Is the thirty-first.", [("number", "31")]),
        ("The first day.", []),  # said of any start
        ("Waited a second.", [("duration", "1")]),  # a unit, no place in an order
        ("Won 3 in 2019.", [("number", "3"), ("number", "2019")]),  # no share
        ("Did 10 in 30 minutes.", [("number", "10"), ("duration", "1800")]),
    ],
)
def test_values_written_in_several_tokens_or_in_words(text, expected):
    assert values(text) == expected


def test_a_conversion_is_one_value_rounded_as_written():
    # Both sides converted (a speed is kept in metres a second): one in each unit.
    assert rounding.one_rounded("speed", *(values(t)[0][1] for t in ("60 mph", "97 km/h")))
    assert not rounding.one_rounded("speed", *(values(t)[0][1] for t in ("100 km/h", "101 km/h")))
    # A temperature to the digits written, a few degrees off at most.
    for fahrenheit, celsius, one in (
        ("72°F", "22 °C", True),
        ("450 °F", "230 °C", True),
        ("68°F", "16 °C", False),
        ("90°F", "40 °C", False),
    ):
        pair = (values(fahrenheit)[0][1], values(celsius)[0][1])
        assert rounding.one_rounded("temperature", *pair) is one
    # A share only where a side says it is rounded: two availability targets differ.
    assert not rounding.one_rounded("share", "99.95", "99.9")
    assert rounding.one_rounded("share", "33.333333", "33", roughly=True)


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("Works Mon-Fri.", {"monday", "tuesday", "wednesday", "thursday", "friday"}),
        ("Works Monday to Friday.", {"monday", "tuesday", "wednesday", "thursday", "friday"}),
        ("Works on weekdays.", {"monday", "tuesday", "wednesday", "thursday", "friday"}),
        ("Deploys happen Tue/Thu.", {"tuesday", "thursday"}),
        ("The gym is open Sat-Sun.", {"saturday", "sunday"}),
    ],
)
def test_days_of_each_week_said_together_are_one_rate(text, days):
    (token,) = [t for t in read(text).tokens if t.value.startswith("rate:")]
    assert set(token.value.partition("@")[2].split(",")) == days


def test_a_day_moved_is_no_range_of_days():
    assert values("The meeting moved from Tuesday to Thursday.") == []
    assert values("Works from Monday to Friday.") == [("rate", "0.71")]


def test_a_verb_that_opens_a_memory_is_no_label_and_an_address_is_one_value():
    assert not any(t.kind == "name" for t in keytokens.key_tokens("Needs 40 chairs."))
    assert ("name", "sprint 31") in {
        (t.kind, t.value) for t in keytokens.key_tokens("Sprint 31 ends Friday.")
    }
    found = {(t.kind, t.value) for t in keytokens.key_tokens("Reach Ana at ana.ruiz@example.com.")}
    assert ("email", "ana.ruiz@example.com") in found
    assert not any(kind == "name" and "." in value for kind, value in found)
    # A login at an address is no e-mail address.
    assert ("ip", "10.0.0.5") in {
        (t.kind, t.value) for t in keytokens.key_tokens("ssh deploy@10.0.0.5")
    }


@pytest.mark.parametrize(
    ("older", "newer", "kind"),
    [
        ("Is 1m80.", "Is 180 cm tall.", relations.SAME),
        ("Her apartment is 65 m².", "Her apartment is 90 m².", relations.NEW_VALUE),
        ("Works Mon-Fri.", "Works on weekdays.", relations.SAME),
        ("Dr. Ortiz is her GP.", "Her GP is Dr. Lang.", relations.NEW_VALUE),
        ("Dr. Ortiz is her GP.", "Her GP is Dr. Ortiz.", relations.SAME),
        # A change's former value, said as current by a later memory.
        (
            "The standup moved from Tuesday to Thursday.",
            "The standup is on Tuesday.",
            relations.NEW_VALUE,
        ),
        (
            "Her email is ana.ruiz@example.com.",
            "Her email is aruiz@example.org.",
            relations.NEW_VALUE,
        ),
    ],
)
def test_relations(older, newer, kind):
    assert relation(older, newer) == kind


def test_a_role_of_several_is_not_read_role_first():
    older, _ = roles.read_both("Tom is her brother.", "Her brother is Jack.")
    assert older.body == "Tom is her brother."


def test_titles_tell_two_people_apart_only_before_one_name():
    assert things.two_of_one_name("Mr. Chen teaches math.", "Mrs. Chen teaches math.")
    assert not things.two_of_one_name(
        "Their landlord is Mr. Patel.", "Their landlord is Mrs. Chen."
    )


def test_a_share_after_a_hedge_is_no_subject():
    reading = read("Roughly one in three orders ships late.")
    assert [t.lemma for t in reading.subject] == ["order"]
    assert [t.value for t in reading.share] == ["share:33.333333"]


def test_a_label_of_an_attribute_is_no_other_subject():
    # "Timezone" before a label's colon is the user's attribute, not someone else.
    assert relation("Diet: vegetarian.", "Is vegetarian.") != relations.OTHER_SUBJECT
    assert relation("Ada: vegetarian.", "Is vegetarian.") == relations.OTHER_SUBJECT
    # One address said of two common nouns is one slot named two ways.
    assert relation("Contact: ana@acme.io.", "Her email is ana@acme.io.") != (
        relations.OTHER_SUBJECT
    )
