"""How often a memory says something happens ("often" / "rarely", "hardly ever" / "every
day", "20 mg a day" / "daily"), a share of its subject ("half of the budget" / "40% of
the budget"), a change told by both memories ("moved from Tuesday to Thursday" / "now on
Thursday instead of Tuesday"), opposites the word models call synonyms ("left-handed" /
"right-handed"), a denial of a verb alone ("No longer smokes."), and a list either way
round ("two cats and a dog" / "a dog and two cats")."""

import pytest

from memadmin.curation.detection.comparing import contrast, frames, order, relations
from memadmin.curation.detection.reading import quantities
from memadmin.curation.detection.reading.clause import read


def relation(older: str, newer: str) -> str:
    return frames.compare(read(older), read(newer)).kind


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Often works late on Fridays.", "Rarely works late on Fridays."),
        ("Usually cooks dinner at home.", "Seldom cooks dinner at home."),
        ("Geht oft ins Kino.", "Geht selten ins Kino."),
        ("Va souvent à la piscine.", "Va rarement à la piscine."),
        # Seldom against a rate of twice a week or more, or a time of each day.
        ("Hardly ever goes to the gym.", "Goes to the gym every day."),
        ("Rarely drinks coffee.", "Drinks coffee twice a day."),
        ("Hardly ever watches TV.", "Watches TV every evening."),
    ],
)
def test_often_and_seldom_reverse_a_statement(a, b):
    assert contrast.polarity_difference(a, b) is not None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Rarely drinks alcohol.", "Seldom drinks alcohol."),
        ("Rarely takes the car.", "Almost never takes the car."),
        ("Rarely eats out.", "Eats out once a month."),  # once a month may be rare
        ("Rarely drinks coffee.", "Drinks tea every morning."),  # of another thing
        ("Often reads before bed.", "Frequently reads before bed."),
    ],
)
def test_how_often_said_alike_reverses_nothing(a, b):
    assert contrast.polarity_difference(a, b) is None


def test_a_word_of_how_often_is_no_subject_and_almost_never_no_denial():
    assert read("Rarely works late on Fridays.").subject == ()
    assert read("Hardly ever goes to the gym.").subject == ()
    assert not read("Almost never takes the car.").negated
    assert read("Never takes the car.").negated


@pytest.mark.parametrize(
    ("older", "newer", "kind"),
    [
        # A share the subject starts with is a value of it, not another subject.
        ("50% of the budget goes to rent.", "40% of the budget goes to rent.",
         relations.NEW_VALUE),
        ("Half of the budget goes to rent.", "50% of the budget goes to rent.", relations.SAME),
        ("A quarter of her salary goes to savings.", "25% of her salary goes to savings.",
         relations.SAME),
        # A change told by both: one statement; against the value it replaced: a new one.
        ("The meeting was moved from Tuesday to Thursday.",
         "The meeting is now on Thursday instead of Tuesday.", relations.SAME),
        ("Switched from VS Code to Neovim.", "Uses Neovim now instead of VS Code.",
         relations.SAME),
        ("Migrate the VM from pve1 to pve3.", "Migrated the VM from pve1 to pve3.",
         relations.SAME),
        ("The meeting is on Tuesday.", "The meeting was moved from Tuesday to Thursday.",
         relations.NEW_VALUE),
        ("Switched from VS Code to Neovim.", "Switched from Neovim to Helix.",
         relations.NEW_VALUE),
        # Opposite states are never one word for another, however close the models say.
        ("Is left-handed.", "Is right-handed.", relations.NEW_VALUE),
        ("Favourite movie is Inception.", "His favorite film is Inception.", relations.SAME),
        # A denial of the verb alone denies it of anything; of one thing, only that.
        ("No longer smokes.", "Smokes a pack a day.", relations.OPPOSITE),
        ("Does not drink.", "Drinks wine on Fridays.", relations.OPPOSITE),
        ("Does not smoke cigars.", "Smokes.", relations.REFINES),
    ],
)  # fmt: skip
def test_shares_changes_and_opposites_are_read_as_what_they_say(older, newer, kind):
    assert relation(older, newer) == kind


def test_a_change_told_by_both_asserts_no_former_value():
    # "from Vodafone" is the former value, not one the other denies ("instead of").
    assert (
        contrast.polarity_difference(
            "Switched her phone plan from Vodafone to O2.",
            "Her phone plan is now with O2 instead of Vodafone.",
        )
        is None
    )


@pytest.mark.parametrize(
    ("older", "newer", "kept"),
    [
        ("Has two cats and a dog.", "Has a dog and two cats.", True),
        ("Speaks English and Spanish.", "Speaks Spanish and English.", True),
        # Parts that hold more than a thing each keep their roles.
        ("The red cable goes to port A and the blue one to port B.",
         "The blue cable goes to port A and the red one to port B.", False),
        ("Has two cats and a dog.", "Has two dogs and a cat.", False),
    ],
)  # fmt: skip
def test_a_list_of_two_things_has_no_order(older, newer, kept):
    assert order.roles_kept(read(older), read(newer)) is kept


@pytest.mark.parametrize(
    ("text", "rate"),
    [
        ("Takes citalopram, 20 mg a day.", "1"),
        ("Drinks 3 coffees per day.", "1"),
        ("The gym membership costs $40 a month.", "0.033"),
        ("Works 8 hours a day.", "1"),
    ],
)
def test_a_quantity_per_period_is_a_rate(text, rate):
    assert ("rate", rate) in quantities.keys(text)


@pytest.mark.parametrize("text", ["Spent a day in Paris.", "Lost 3 kg in a month."])
def test_a_period_that_is_a_span_is_no_rate(text):
    assert all(value.measure != "rate" for value in quantities.read(text))
