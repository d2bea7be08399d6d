import pytest

from memadmin.curation import guards
from tests.factories import unsaved


def kinds(text_a, text_b):
    return sorted(d.kind for d in guards.key_token_differences(text_a, text_b))


@pytest.mark.parametrize(
    ("a", "b", "kind"),
    [
        (
            "The billing API is deployed on Hetzner.",
            "The billing API is deployed on Railway.",
            "name",
        ),
        ("Local Python is 3.11.", "Local Python is 3.13.", "number"),
        ("Sprint review is on Tuesday.", "Sprint review is on Thursday.", "weekday"),
        ("Backups run at 02:00.", "Backups run at 03:30.", "time"),
        ("Freeze starts on 2025-12-19.", "Freeze starts on 2025-12-15.", "date"),
        ("Router is at 192.168.10.1.", "Router is at 192.168.1.1.", "ip"),
        ("Dashboards live at grafana.example.org.", "Dashboards live at dash.example.org.", "host"),
        ("The blocker is ticket R-118.", "The blocker is ticket R-121.", "name"),
        ("The service runs in staging.", "The service runs in production.", "env"),
        ("Grip force is 12.5 N.", "Use 15 N grip force; at 12.5 N it slipped.", "quantity (force)"),
    ],
)
def test_a_changed_value_is_a_key_token_difference(a, b, kind):
    assert kind in kinds(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Alice lives in Lyon.", "Her home is in Lyon, France, up on the Croix-Rousse hill."),
        ("Postmortem 2025-11-04: ingest lost data.", "Incident on 4 Nov 2025: ingest lost data."),
        ("Joint 4 overheats after 40 minutes.", "After ~40 min the joint 4 warning fires."),
        (
            "Prod DB: Postgres 16 + Timescale.",
            "Production database is PostgreSQL 16 with TimescaleDB.",
        ),
        ("NOx readings use mg/Nm³ at 6% O2.", "Emission values for NOx use mg/Nm3 at 6 % oxygen."),
    ],
)
def test_added_detail_and_other_spellings_are_no_difference(a, b):
    assert kinds(a, b) == []


def test_opposite_polarity_is_found():
    assert guards.polarity_difference("Likes cilantro in tacos.", "Hates cilantro.") is not None
    assert guards.polarity_difference("Likes cilantro.", "Really likes cilantro.") is None


def test_a_newer_text_can_announce_a_change():
    assert guards.announces_change("The ingest service now listens on port 9100.")
    assert not guards.announces_change("The ingest service listens on port 9100.")


@pytest.mark.parametrize(
    ("other", "reason"),
    [
        ({"category": "config"}, "different category"),
        ({"source_ref": "other-repo"}, "different source_ref"),
        ({"tags": ["session:s-2"]}, "different session tags"),
    ],
)
def test_metadata_guards_name_the_difference(other, reason):
    assert guards.metadata_guard(unsaved(), unsaved(**other)).startswith(reason)


def test_same_metadata_passes_the_guards():
    assert guards.metadata_guard(unsaved(tags=["a"]), unsaved(tags=["b"])) is None


@pytest.mark.parametrize(
    "fields",
    [
        {"category": "constraint"},
        {"category": "postmortem"},
        {"category": "gotcha"},
        {"importance": 0.95},
        {"confidence": 0.99},
        {"pinned": True},
    ],
)
def test_protected_memories(fields):
    assert guards.is_protected(unsaved(**fields))


def test_an_ordinary_memory_is_not_protected():
    assert not guards.is_protected(unsaved(importance=0.94, confidence=0.94))
