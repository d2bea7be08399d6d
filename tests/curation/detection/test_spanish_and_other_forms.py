"""Readings of round 9: Spanish, Italian and Portuguese read as clauses (their verbs,
copulas, people, possessives, ages and number words), "alternate Sundays" as every other
one, a daily word beside the days it names ("Daily standup, Monday to Friday"), a bare
number said of an age ("Age: 34"), an identifier said of two nouns ("main repo" /
"Primary repository: acme/web-app"), a numeronym ("k8s"), one verb in the passive and
the active, an adjective opening a label ("Allergic: shellfish"), an owner said as
someone's ("Her husband's shoe size"), and a relation across two languages where one
side was not read."""

import pytest

from memadmin.curation.detection.comparing import contrast, relations
from memadmin.curation.detection.reading.clause import read
from memadmin.curation.detection.reading.tokens import numeronym
from tests.curation.detection.readings import relation, values


def test_spanish_is_read_as_a_clause():
    reading = read("Su perro se llama Toby.")
    assert reading.predicate is not None and reading.predicate.name == "name"
    assert [t.kind for t in reading.subject_words] == ["word"]
    assert read("Vive en Sevilla.").predicate.name == "live"
    assert read("Está casada con Jorge.").predicate.name == "marry"
    assert read("Le gusta el jazz.").predicate.name == "like"
    assert read("Nunca bebe alcohol.").negated


def test_italian_and_portuguese_are_read_as_clauses():
    assert read("Il suo cane si chiama Rex.").predicate.name == "name"
    assert read("Mora em Lisboa.").predicate.name == "live"  # "em": its preposition
    reading = read("Ha 34 anni.")
    assert reading.predicate.name == "age"
    assert ("value", "calendar:408") in {(t.kind, t.value) for t in reading.tokens}
    assert ("number", "3") in values("Tem três filhos.")
    # A noun of a person is no verb where its lemma differs ("irmã": "irmão"), and an
    # owner after its noun ("A irmã dela") is the subject's.
    reading = read("A irmã dela mora em Lisboa.")
    assert [t.text for t in reading.subject_words] == ["irmã"]
    assert reading.predicate.name == "live"


@pytest.mark.parametrize(
    ("older", "newer", "kind"),
    [
        ("Su perro se llama Toby.", "Su gato se llama Toby.", relations.OTHER_SUBJECT),
        ("Il suo cane si chiama Rex.", "Il suo gatto si chiama Rex.", relations.OTHER_SUBJECT),
        ("Vive a Torino.", "Sua sorella vive a Torino.", relations.OTHER_SUBJECT),
        ("Ha 34 anni.", "Ha 35 anni.", relations.NEW_VALUE),
        ("Mora em Lisboa.", "A irmã dela mora em Lisboa.", relations.OTHER_SUBJECT),
        ("Tem 34 anos.", "Tem 35 anos.", relations.NEW_VALUE),
        # "figli" / "children" scores under a translation where "figlio" / "child" does not.
        ("Ha due figli.", "Has two children.", relations.UNREAD),
        ("Su hija se llama Lucía.", "Su hija se llama Carmen.", relations.NEW_VALUE),
        ("Vive en Sevilla.", "Ahora vive en Granada.", relations.NEW_VALUE),
        ("Vive en Sevilla.", "Su hermana vive en Sevilla.", relations.OTHER_SUBJECT),
        ("Su jefe es Andrés Gil.", "Su mentor es Andrés Gil.", relations.OTHER_SUBJECT),
        ("Tiene 34 años.", "Su hermano tiene 34 años.", relations.OTHER_SUBJECT),
        (
            "Trabaja en Telefónica como ingeniera.",
            "Dejó Telefónica y ahora trabaja en BBVA.",
            relations.OPPOSITE,
        ),
        # Across two languages: a relation against a side no clause was read of is no
        # one else ("Su perro" was not read before Spanish was).
        ("Su perro se llama Toby.", "Her dog is called Toby.", relations.SAME),
        # One verb in the passive and the active: the active's subject is the agent.
        ("Node version is pinned to 20.11.", "The project pins Node 20.11.", relations.REFINES),
        (  # not an agent it names: a plant's readings, against readings in general
            "Plant Mannheim-2 reports SO2 and NOx.",
            "NOx readings are reported in mg/Nm³.",
            relations.OTHER_SUBJECT,
        ),
        # One identifier said of two nouns: no two things.
        ("Their main repo is acme/web-app.", "Primary repository: acme/web-app.", relations.UNREAD),
        ("Age: 34.", "Is 34 years old.", relations.SAME),
        ("• allergic: shellfish", "• allergic: pollen", relations.OTHER_VALUE),
        # An owner said as someone's: hers against his.
        ("Shoe size is EU 42.", "Her husband's shoe size is EU 45.", relations.OTHER_SUBJECT),
        ("The kid's school starts at 8:10.", "School starts at 8:30 now.", relations.NEW_VALUE),
    ],
)
def test_relations(older, newer, kind):
    assert relation(older, newer) == kind


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Sees her parents on alternate Sundays.", [("rate", "0.071")]),
        ("Visits her parents every other Sunday.", [("rate", "0.071")]),
        ("Waters the plants on alternate days.", [("rate", "0.5")]),
        ("Daily standup happens at 9:15 Monday to Friday.", [("time", "09:15"), ("rate", "0.71")]),
        ("Every day from Monday to Friday she swims.", [("rate", "0.71")]),
        ("Runs daily.", [("rate", "1")]),
    ],
)
def test_rates_said_of_days(text, expected):
    assert values(text) == expected


def test_an_age_said_as_a_label():
    assert ("value", "calendar:408") in {(t.kind, t.value) for t in read("Age: 34.").tokens}
    assert ("value", "calendar:408") in {(t.kind, t.value) for t in read("Her age is 34.").tokens}
    # A bare number of a thing is no age.
    assert ("value", "number:8080") in {(t.kind, t.value) for t in read("Port is 8080.").tokens}


def test_a_numeronym_is_its_word():
    assert numeronym("k8s", "kubernetes")
    assert numeronym("i18n", "internationalization")
    assert numeronym("a11y", "accessibility")
    assert not numeronym("k8s", "kubernetez")  # not its last letter
    assert not numeronym("k9s", "kubernetes")  # not its count
    assert not numeronym("ab", "about")
    assert not contrast.key_token_differences(
        "Cluster runs Kubernetes 1.28.", "The cluster is on k8s 1.28."
    )


def test_an_identifier_kept_apart_where_the_nouns_differ_in_kind():
    older, newer = "The staging host is db1.acme.io.", "The backup target is db1.acme.io."
    assert relation(older, newer) != relations.SAME
