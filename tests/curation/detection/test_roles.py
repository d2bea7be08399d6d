"""Who holds a role (curation.detection.reading.roles): "Anna is the team lead" is read
role first, as "The team lead is Anna", where both texts of a pair name a role's holder."""

import pytest

from memadmin.curation.detection.comparing import frames
from memadmin.curation.detection.reading import clause, roles


def relation(older: str, newer: str) -> frames.Relation:
    return frames.compare(*roles.read_both(older, newer))


@pytest.mark.parametrize(
    ("text", "role_first"),
    [
        ("Anna is the team lead.", "The team lead is Anna."),
        ("Ben is now the team lead.", "The team lead is now Ben."),
        ("Jana Vogel is the PO of CEMS.", "The PO of CEMS is Jana Vogel."),
        ("Dr. Weber is the practice's dentist.", "The practice's dentist is Dr. Weber."),
        # A possessive before a role of one holder ("[roles]" in the lexicon).
        ("Priya is her manager.", "Her manager is Priya."),
        ("Daniel is now his boss.", "His boss is now Daniel."),
        ("Mia is his daughter.", ""),
        ("Priya is her mentor.", ""),
        # Not a role's holder: a class, a place, a pronoun, a negation, a clause.
        ("Anna is a nurse.", ""),
        ("Lena T. is on the Pro plan.", ""),
        ("She is the team lead.", ""),
        ("Anna is not the team lead.", ""),
        ("The team lead is Anna.", ""),
        ("Anna is the one who decides.", ""),
    ],
)
def test_a_name_said_to_be_the_role_is_its_holder(text, role_first):
    assert roles.role_first(clause.read(text)) == role_first


@pytest.mark.parametrize(
    ("older", "newer", "kind"),
    [
        # One role, two holders: its value changed.
        ("Anna is the team lead.", "Ben is now the team lead.", frames.NEW_VALUE),
        ("Anna is the team lead.", "Ben is the team lead.", frames.NEW_VALUE),
        ("Jana Vogel is the PO of CEMS.", "Tim Berg is now the PO of CEMS.", frames.NEW_VALUE),
        (
            "Sofia is the on-call engineer this week.",
            "Marco is the on-call engineer this week.",
            frames.NEW_VALUE,
        ),
        ("Priya is her manager.", "Daniel is her manager now.", frames.NEW_VALUE),
        ("Dr. Weber is her dentist.", "Dr. Kaya is her dentist now.", frames.NEW_VALUE),
        ("Sofia is our product owner.", "Marco is our product owner now.", frames.NEW_VALUE),
        # One holder, two roles: two facts. One holder said twice: one.
        ("Anna is the team lead.", "Anna is the product owner.", frames.OTHER_SUBJECT),
        ("Anna is the team lead.", "Anna is the team lead.", frames.SAME),
        # A class, not a role of one holder: two people.
        ("Anna is a nurse.", "Ben is a nurse.", frames.OTHER_SUBJECT),
        ("Mia is Tom's daughter.", "Ana is Tom's daughter.", frames.OTHER_SUBJECT),
        ("Mia is his daughter.", "Ana is his daughter.", frames.OTHER_SUBJECT),
    ],
)
def test_two_holders_of_one_role_are_one_slot_with_two_values(older, newer, kind):
    assert relation(older, newer).kind == kind


@pytest.mark.parametrize(
    ("older", "newer", "kind"),
    [
        ("Alice owns the payments service.", "Bob owns the payments service now.",
         frames.NEW_VALUE),
        ("Maria leads the data team.", "Tom leads the data team now.", frames.NEW_VALUE),
        ("Anna manages the Berlin office.", "Since May, Ben manages the Berlin office.",
         frames.NEW_VALUE),
        # A "now" between the holder and the verb says the change, as after the object.
        ("J. Alvarez manages the Denver office.", "K. Obi now manages the Denver office.",
         frames.NEW_VALUE),
        ("Alice owns the payments service.", "Bob now owns the payments service.",
         frames.NEW_VALUE),
        # Two things held, or a thing of which there are several: as written.
        ("Priya K. owns the billing dashboard.", "Priya S. owns the search dashboard.",
         frames.OTHER_SUBJECT),
        ("Alice owns a red car.", "Bob owns a red car.", frames.OTHER_SUBJECT),
        # Two people told apart by an initial may each hold one: as written.
        ("Ines K. manages the Lisbon office.", "Ines M. manages the Lisbon office.",
         frames.OTHER_SUBJECT),
        ("Yuki A. is the team lead.", "Yuki R. is the team lead.", frames.OTHER_SUBJECT),
        # The initial first, the surname shared: two people as well.
        ("J. Alvarez manages the Denver office.", "R. Alvarez manages the Denver office.",
         frames.OTHER_SUBJECT),
        ("A. Kim leads the data team.", "B. Kim leads the data team.", frames.OTHER_SUBJECT),
        ("Tom runs the Berlin marathon.", "Ana runs the Berlin marathon.", frames.OTHER_SUBJECT),
    ],
)  # fmt: skip
def test_a_thing_of_one_holder_held_by_another_is_a_new_value(older, newer, kind):
    # "owns", "leads", "manages": the lexicon's [holders], read "The owner of ... is ...".
    assert relation(older, newer).kind == kind


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("She reports to Daniel Osei.", "Her manager is Daniel Osei."),
        ("User now reports to Daniel.", "User's manager is now Daniel."),
        ("Carla reports to Dev.", "Carla's manager is Dev."),
        ("Reports to Priya.", "User's manager is Priya."),
        ("I report to Tom.", "My manager is Tom."),
        ("Works with Tom.", ""),
        ("The Berlin office reports to Munich.", ""),  # no person's manager
    ],
)
def test_a_role_said_by_a_verb_is_said_by_its_noun(text, named):
    assert roles.role_named(text) == named


@pytest.mark.parametrize(
    ("older", "newer", "kind"),
    [
        ("Carla reports to Dev.", "Carla's manager is Dev.", frames.SAME),
        ("Mira's manager is Daniel Osei.", "She reports to Daniel Osei.", frames.REFINES),
        ("Reports to Priya.", "Reports to Daniel now.", frames.NEW_VALUE),
        ("Carla reports to Dev.", "Marco reports to Dev.", frames.OTHER_SUBJECT),
        # Two people's roles by the verb: as written (two possessives read one slot).
        ("Carla reports to Dev.", "Dev reports to Carla.", frames.UNREAD),
        # A role or a value written first is no holder: read as written.
        ("Manager is the CTO.", "Manager is now the CEO.", frames.NEW_VALUE),
        ("Deadline is the 15th.", "Budget is the 15th.", frames.OTHER_SUBJECT),
    ],
)
def test_a_manager_named_either_way_is_one_slot(older, newer, kind):
    assert relation(older, newer).kind == kind


@pytest.mark.parametrize(
    ("older", "newer", "kind"),
    [
        # One holder on both, the sides swapped, words added only to the role: the role
        # named two ways, or two roles of one holder. No value changed.
        ("Customer contact at Globex is Hank Scorpio.",
         "Hank Scorpio is our point of contact at Globex.", frames.UNREAD),
        ("The team lead is Anna.", "Anna is the product owner.", frames.UNREAD),
        # Another holder of one role is its new value.
        ("Main contact at Globex is Hank Scorpio.", "Dana Lee is now our main contact at Globex.",
         frames.NEW_VALUE),
    ],
)  # fmt: skip
def test_a_role_named_two_ways_of_one_holder_changes_no_value(older, newer, kind):
    assert relation(older, newer).kind == kind
