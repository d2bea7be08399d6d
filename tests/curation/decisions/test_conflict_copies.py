"""One conflict per pair of facts (issue 49): conflicts between copies of the same two
texts are one conflict (the others its copies), settled and undone together, each with
its own history."""

import pytest

from memadmin.curation import decisions
from memadmin.curation.models import Conflict, HistoryEvent
from memadmin.store.models import Memory
from tests.factories import line, person, store, unit

pytestmark = pytest.mark.django_db


def copies_of_a_conflict():
    """Friday / Saturday, written once from the chat and once from the agent."""
    memories = store(
        *(
            line(f"{source}-{day}", f"billing-api is released every {day}.", unit(n),
                 source_ref=source, created_at=f"2026-01-0{n}T00:00:00Z")
            for n, (source, day) in enumerate(
                [("chat", "Friday"), ("agent", "Friday"), ("chat", "Saturday"),
                 ("agent", "Saturday")], start=1)
        )
    )  # fmt: skip
    friday_chat, friday_agent, saturday_chat, saturday_agent = memories
    fields = {
        "kind": "update",
        "reason": "one slot, two values: Friday / Saturday",
        "differing_tokens": [],
    }
    decisions.open_conflicts(
        [
            (friday_chat, saturday_chat, fields),
            (friday_agent, saturday_agent, fields),
            (friday_chat, saturday_agent, fields),
        ]
    )
    return memories


def test_conflicts_of_the_same_two_texts_are_one_open_conflict_and_its_copies():
    copies_of_a_conflict()

    rows = list(Conflict.objects.order_by("pk").values_list("status", "copy_of"))

    lead = Conflict.objects.get(status="open")
    assert rows == [("open", None), ("copy", lead.pk), ("copy", lead.pk)]
    assert Conflict.objects.filter(status="open").count() == 1  # every count sees one


def test_settling_the_conflict_settles_its_copies_each_with_history_and_one_undo_takes_all_back():
    copies_of_a_conflict()
    ada = person("ada", "admin")
    lead = Conflict.objects.get(status="open")

    decisions.resolve_conflict(conflict=lead, resolution="b_supersedes_a", user=ada)

    statuses = dict(Memory.objects.values_list("external_id", "status"))
    assert statuses == {
        "chat-Friday": "superseded",
        "agent-Friday": "superseded",
        "chat-Saturday": "active",
        "agent-Saturday": "active",
    }
    settled = set(Conflict.objects.values_list("status", flat=True))
    assert settled <= {"resolved", "overtaken"} and "resolved" in settled
    for copy in Conflict.objects.filter(copy_of=lead, status="resolved"):
        assert HistoryEvent.objects.filter(conflict=copy, action="resolve").exists()

    decisions.undo_resolution(conflict=lead, user=ada)

    assert set(Memory.objects.values_list("status", flat=True)) == {"active"}
    assert sorted(Conflict.objects.values_list("status", flat=True)) == ["copy", "copy", "open"]


def test_a_copy_is_settled_and_undone_only_with_its_conflict():
    copies_of_a_conflict()
    ada = person("ada", "admin")
    lead = Conflict.objects.get(status="open")
    copy = Conflict.objects.filter(status="copy").first()

    with pytest.raises(decisions.StaleDecision, match=f"a copy of conflict {lead.pk}"):
        decisions.resolve_conflict(conflict=copy, resolution="keep_a", user=ada)
    decisions.resolve_conflict(conflict=lead, resolution="dismiss", user=ada)
    copy.refresh_from_db()
    with pytest.raises(decisions.DecisionError, match=f"settled with conflict {lead.pk}"):
        decisions.undo_resolution(conflict=copy, user=ada)
