"""Merge proposals: the rule's fallbacks, labelled, and the lost-fact check."""

import pytest

from memadmin.curation import proposals
from memadmin.curation.detection.scoring.representative import representative
from memadmin.curation.llm import client as llm
from memadmin.curation.llm import merges
from tests.factories import unsaved
from tests.fake_anthropic import error, text_message

THREE = [
    unsaved("Alice lives in Lyon.", day=3),
    unsaved("Her home is in Lyon, France, on the Croix-Rousse hill.", day=9),
    unsaved("Alice est basée à Lyon, dans le 4e arrondissement.", day=5),
]


def test_repeated_529_falls_back_to_the_rule(fake_llm, caplog):
    fake_llm.handler = lambda body, number: error(529)
    session = llm.Session()

    draft = merges.draft_for(THREE, session)

    assert draft.author == "rule"
    assert draft.text == "Her home is in Lyon, France, on the Croix-Rousse hill."  # newest
    assert "LLM failed" in draft.rationale
    assert len(fake_llm.requests) == 3  # the first try and the SDK's 2 retries
    assert "DEDUP_FAIL merge proposal falls back to the rule" in caplog.text


def test_a_timeout_falls_back_to_the_rule(fake_llm, settings):
    settings.LLM_TIMEOUT_SECONDS = 0.3
    settings.LLM_MAX_RETRIES = 0
    fake_llm.delay = 1.0
    fake_llm.queue.append(text_message("too late"))

    draft = merges.draft_for(THREE, llm.Session())

    assert draft.author == "rule"
    assert "APITimeoutError" in draft.rationale


def test_an_empty_merge_is_discarded_with_a_warning(fake_llm):
    fake_llm.queue.append(text_message("   "))

    draft = merges.draft_for(THREE, llm.Session())

    assert draft.author == "rule"
    assert draft.warnings[0] == "the LLM's merge was empty and was discarded"


def test_without_a_key_nothing_is_called_and_the_rule_is_labelled():
    draft = merges.draft_for(THREE, llm.Session())

    assert draft.author == "rule"
    assert "no LLM configured" in draft.rationale


def test_the_lost_fact_check_flags_dropped_numbers_and_long_merges():
    members = [
        unsaved("Postgres backups run nightly at 02:00 UTC.", day=1),
        unsaved("Nightly Postgres backups start at 2 am, kept 30 days.", day=2),
    ]

    draft = proposals.check(
        proposals.Draft(text="Backups run nightly. " * 10, author="llm"), members
    )

    assert "duration: 30 days" in draft.dropped_facts and "time: 02:00" in draft.dropped_facts
    assert "longer than all members together" in draft.warnings


@pytest.mark.parametrize(
    ("answer", "logged"),
    [
        ({}, "malformed answer"),
        ({**text_message("merged"), "usage": None}, "malformed answer"),
        ({**text_message("merged"), "content": "Alice lives in Lyon."}, "malformed answer"),
        (text_message("Alice lives in Lyon.\u0000"), "contains a NUL character"),
        (text_message("Alice lives in Lyon. " * 50_000), "is longer than 8192 bytes"),
        (text_message(""), "was empty"),
    ],
)
def test_an_unusable_llm_answer_falls_back_to_the_rule_with_a_dedup_fail_line(
    fake_llm, caplog, answer, logged
):
    fake_llm.queue.append(answer)

    draft = merges.draft_for(THREE, llm.Session())

    assert (draft.author, draft.text) == ("rule", representative(THREE).content)
    assert any("DEDUP_FAIL" in r.message and logged in r.message for r in caplog.records)


def test_a_value_written_another_way_is_not_dropped():
    members = [
        unsaved("Backups start at 3 am and take 90 minutes.", day=1),
        unsaved("The backup job runs at 03:00 for 1.5 h.", day=2),
    ]

    assert proposals.dropped_facts(members, "Backups run at 03:00 and take 1.5 hours.") == []


def test_lost_facts_are_named_as_the_member_wrote_them():
    from types import SimpleNamespace

    members = [
        SimpleNamespace(content="We meet at local time 9am."),
        SimpleNamespace(content="Zero downtime deploys."),
        SimpleNamespace(content="他有一个女儿。"),
    ]

    found = proposals.dropped_facts(members, "Meetings happen.")

    # Never a canonical value no text holds ("env: development", "number: 0"), and never
    # an article read as a count ("一个").
    assert found == ["env: local", "number: Zero", "time: 9am"]
