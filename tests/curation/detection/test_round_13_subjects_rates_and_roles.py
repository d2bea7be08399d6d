"""Readings of round 13: whom one side says a verb of is the other's subject ("Reports to
Tom." / "Tom reports to the CTO."); a word of relation that only modifies the other's noun
("The team retro" / "Retros"); a change of a thing the other names is no parallel fact
("Gym membership ..." / "Upgraded Urban Sports Club to ..."); the holder of a role said
of the role ("Dr. Lena Vogt is her GP." / "Changed GP to ..."); a rate said with its days
("biweekly on Fridays"); a plural part of a hyphenated word ("T-shirts" / "T-shirt"); a
clock after "at", a time of day; a verb done again after a copula's participle; units
written out; a tie of function words told by py3langid; a name shortened ("TX" /
"Texas"); and a verb of cessation in the present, a habit ("Sells yarn on Etsy")."""

import pytest

from memadmin.curation.detection.comparing import contrast, relations
from memadmin.curation.detection.reading import clause, clocks, keytokens, roles
from memadmin.curation.learning import calibration
from memadmin.store import lexicon
from tests.curation.detection.readings import judged, relation, values


@pytest.fixture(scope="module")
def vectors() -> calibration.Vectors:
    return calibration.Vectors()


@pytest.mark.parametrize(
    ("older", "newer", "kind"),
    [
        ("Reports to Tom.", "Tom reports to the CTO.", relations.OTHER_SUBJECT),
        ("Lives with Tom.", "Tom lives in Leeds.", relations.OTHER_SUBJECT),
        # Said back of the user: one fact; but "her grandmother" is someone else.
        ("Married Tom in 2019.", "Tom married her in 2019.", relations.SAME),
        ("Calls Mia every Sunday.", "Mia calls her every Sunday.", relations.SAME),
        ("Calls Mia every Sunday.", "Mia calls her grandmother every Sunday.",
         relations.OTHER_SUBJECT),
        # Not a thing the other says after the verb.
        ("Ships orders within 48 hours.", "Orders ship in two days.", relations.REFINES),
        # A passive's subject is its verb's object.
        ("Builds of report-worker run on Buildkite.", "Report-worker is built on Buildkite.",
         relations.REFINES),
        ("Hired Tom last year.", "Tom was hired in 2023.", relations.REFINES),
    ],
)  # fmt: skip
def test_whom_a_verb_is_said_of_is_the_others_subject(older, newer, kind):
    assert relation(older, newer) == kind


def test_two_subjects_by_one_verb_are_no_duplicate(vectors):
    found = judged("Reports to Tom.", "Tom reports to the CTO.", vectors)
    assert found.probabilities[0] < 0.5  # was one fact at 0.99


@pytest.mark.parametrize(
    ("older", "newer", "kind"),
    [
        ("The team retro is every other Friday.", "Retros are now monthly, first Monday.",
         relations.NEW_VALUE),
        ("The team retro is every other Friday.", "The retro is now monthly.",
         relations.NEW_VALUE),
        # A word of relation that heads its phrase names someone else.
        ("Her sister's car is red.", "Her car is blue.", relations.OTHER_SUBJECT),
        ("Kenta's manager lives in Osaka.", "Kenta lives in Osaka.", relations.OTHER_SUBJECT),
    ],
)  # fmt: skip
def test_a_word_of_relation_that_modifies_the_others_noun(older, newer, kind):
    assert relation(older, newer) == kind


def test_a_noun_in_capitals_only_as_the_first_word_is_no_name(vectors):
    older = "Gym membership is at Urban Sports Club, M plan."
    newer = "Upgraded Urban Sports Club to the L plan."
    assert relation(older, newer) != relations.OTHER_SUBJECT
    assert judged(older, newer, vectors).probabilities[2] < 0.8  # was two facts at 0.81
    # A name said first still is someone else's subject.
    assert relation("Ada lives in Chicago.", "Lives in Denver.") == relations.OTHER_SUBJECT


def test_the_holder_of_a_role_is_the_roles_value(vectors):
    vogt = clause.read("Dr. Lena Vogt is her GP.")
    assert roles.role_held(vogt).text == "gp"
    assert roles.role_held(clause.read("Ana is a nurse.")) is None
    assert roles.role_held(clause.read("Mia is Tom's daughter.")) is None
    newer = "Changed GP to Dr. Aydin after moving."
    assert relation("Dr. Lena Vogt is her GP.", newer) != relations.OTHER_SUBJECT
    found = judged("Dr. Lena Vogt is her GP.", newer, vectors)
    assert found.probabilities[1] >= 0.8  # was two facts at 0.95
    # A role of the lexicon's, a noun of it the other says.
    assert relation("Nadia is her accountant.", "Switched her accountant to Bram.") != (
        relations.OTHER_SUBJECT
    )


def test_a_rate_said_with_its_days():
    assert values("The retro is biweekly on Fridays.") == values("The retro is every other Friday.")
    assert values("Meets weekly on Mondays and Thursdays.") == values("Meets twice a week.")
    assert values("Standup is daily.") == [("rate", "1")]


def test_a_rate_said_with_its_days_is_one_fact(vectors):
    found = judged(
        "The team retro is every other Friday.", "Retros happen biweekly on Fridays.", vectors
    )
    assert found.probabilities[1] < 0.5  # was a contradiction at 0.80


def test_a_plural_part_of_a_hyphenated_word():
    assert not contrast.key_token_differences("Wears a size M in T-shirts.", "T-shirt size: M.")
    assert contrast.key_token_differences("Runs on auth-svc.", "Runs on billing-svc.")
    # A capital letter before a hyphen makes a word, not a name.
    assert [t.kind for t in keytokens.key_tokens("Wears T-shirts.")] == []
    assert [t.kind for t in keytokens.key_tokens("Uses Contact-GraspNet.")] == ["name"]


def test_a_clock_after_at_is_a_time_of_day():
    assert clocks.a_time_taken("3:41", "13260", "Marathon PB is 3:41.")
    assert not clocks.a_time_taken("11:20", "40800", "The flight leaves at 11:20.")
    assert not clocks.a_time_taken("11:20", "40800", "The shop is open until 11:20.")
    assert not clocks.a_time_taken("3:41", "13000", "Marathon PB is 3:41.")


def test_a_verb_done_again_after_a_copulas_participle(vectors):
    living = clause.read("The living room is painted sage green.")
    assert [t.text for t in living.subject_words] == ["living", "room"]
    assert [t.text for t in clause.read("Her running shoes are Asics.").subject_words] == [
        "running",
        "shoes",
    ]
    assert clause.read("Is living in Lyon.").predicate.name == "live"
    found = judged(
        "The living room is painted sage green.", "Repainted the living room off-white.", vectors
    )
    assert found.probabilities[2] < 0.5  # was two facts at 0.78


def test_units_written_out():
    assert values("The hike was fourteen and a half kilometres.") == values("The hike was 14.5 km.")
    assert values("50 centimetres") == values("0.5 m")
    assert values("Has 2 terabytes of storage.") == values("Has 2 TB of storage.")
    assert values("Takes 500 milligrams.") == values("Takes 500 mg.")
    # A yard is a garden as often as a length.
    assert values("Has a yard.") == []


@pytest.mark.parametrize(
    ("text", "language"),
    [
        # "de" is French, Spanish and Portuguese: py3langid tells which, sure among them.
        ("Gosta de jogar xadrez.", "pt"),
        ("Gosta muito de café.", "pt"),
        ("Joue de la guitare.", "fr"),
        ("Works at De Beers.", "en"),
        ("Ana de la Cruz lives in Lima.", "en"),
    ],
)
def test_a_tie_of_function_words_told_by_ngrams(text, language):
    assert lexicon.language_of(text) == language


def test_a_name_shortened_is_one_name():
    assert not contrast.key_token_differences("Lives in Austin, Texas.", "Lives in Austin, TX.")
    assert not contrast.key_token_differences(
        "Lives in Portland, Oregon.", "Lives in Portland, OR."
    )
    assert contrast.key_token_differences("Lives in Austin, Texas.", "Lives in Austin, MN.")
    assert contrast.key_token_differences("Lives in Portland, Oregon.", "Lives in Portland, Maine.")
    # Only a region's code: "IT" shortens no "Italy", "PR" no "PagerDuty".
    assert contrast.key_token_differences("Works in IT.", "Works in Italy.")
    assert contrast.key_token_differences("Alerts go to PagerDuty.", "Merged as PR 482.")
    assert relation("Lives in CA.", "Lives in California.") == relations.SAME
    assert relation("Lives in CA.", "Lives in Colorado.") == relations.NEW_VALUE


def test_a_verb_of_cessation_in_the_present_says_a_habit(vectors):
    assert not clause.read("Sells hand-dyed yarn on Etsy.").ceased
    assert not clause.read("Leaves work at 5.").ceased
    assert clause.read("Sold the Golf.").ceased and clause.read("Left Google in May.").ceased
    found = judged("The Etsy shop sells hand-dyed yarn.", "Sells hand-dyed yarn on Etsy.", vectors)
    assert found.probabilities[1] < 0.5  # was a conflict at 1.00: selling read as sold


def test_one_role_in_two_words_is_no_two_things():
    older, newer = "Calls her mother every Sunday.", "Calls her mom weekly on Sundays."
    assert relation(older, newer) == relations.SAME
    assert relation("Calls her mother every Sunday.", "Calls her sister every Sunday.") == (
        relations.OTHER_SUBJECT
    )
